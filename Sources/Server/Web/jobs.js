// Model jobs (writing tools, translations, summaries, date actions, search suggestions): the
// server answers a request with a job at once, then streams its progress as `job.updated`
// frames on the event socket. A slow poll of GET /api/jobs/{id} covers a socket that is down.

const FINISHED = new Set(['done', 'failed', 'cancelled']);
const POLL_MS = 2000;

export class Jobs {
  constructor(api) {
    this.api = api; // a function returning the current API client (the token is refreshed)
    this.watchers = new Map(); // job id → watcher
  }

  /// Starts a job with `start()` (a call returning {job}) and calls `onUpdate(job)` with each
  /// snapshot; resolves with the finished job. Throws what `start()` throws.
  async run(start, onUpdate) {
    const { job } = await start();
    return new Promise((resolve) => {
      const watcher = {
        update: (snapshot) => {
          if (watcher.done || snapshot.id !== job.id) return;
          onUpdate(snapshot);
          if (FINISHED.has(snapshot.status)) {
            watcher.done = true;
            clearInterval(watcher.timer);
            this.watchers.delete(job.id);
            resolve(snapshot);
          }
        },
        timer: setInterval(async () => {
          try {
            watcher.update((await this.api().job(job.id)).job);
          } catch {
            // The next frame or poll will tell.
          }
        }, POLL_MS),
      };
      this.watchers.set(job.id, watcher);
      watcher.update(job);
    });
  }

  /// A `job.updated` frame from the socket.
  handleFrame(job) {
    const watcher = job && this.watchers.get(job.id);
    if (watcher) watcher.update(job);
  }

  /// Cancels a job; its `run` resolves with the cancelled snapshot.
  async cancel(id) {
    const watcher = this.watchers.get(id);
    try {
      const { job } = await this.api().cancelJob(id);
      if (watcher) watcher.update(job);
    } catch {
      if (watcher) watcher.update({ id, status: 'cancelled' });
    }
  }
}

/// The words a failed job shows.
export function jobError(job) {
  return job.error || 'The model could not finish this request.';
}

/// Appends the small "by <model>" line every AI result carries to `parent`: the model that
/// produced the result (a remote fallback's name says where it runs: "m at http://host/v1").
/// Nothing without a name.
export function appendModelLabel(parent, name, className = 'model-source') {
  if (!name) return;
  const label = document.createElement('span');
  label.className = className;
  label.textContent = `by ${name}`;
  parent.append(label);
}
