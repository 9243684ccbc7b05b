// "Download model" for a server whose default model is not downloaded: a button, a progress bar
// while the server fetches it (as `sotto model pull` would), and once it is in place the page
// waits for the server to start again with the model and reloads. Offered only when the server
// says so (GET /api/model/download answers 404 otherwise).

export class ModelDownloadView {
  /// `api()`: the signed-in API client.
  constructor(api) {
    this.api = api;
    this.node = document.createElement('div');
    this.node.className = 'model-download';
    this.node.hidden = true;
    this.button = document.createElement('button');
    this.button.type = 'button';
    this.button.addEventListener('click', () => this.start());
    this.bar = document.createElement('progress');
    this.bar.max = 1;
    this.bar.hidden = true;
    this.bar.setAttribute('aria-label', 'Model download');
    this.status = document.createElement('span');
    this.status.className = 'download-status';
    this.status.setAttribute('role', 'status');
    this.node.append(this.button, this.bar, this.status);
  }

  /// Looks for a download on offer (when the model is not downloaded) and shows it.
  async offer() {
    try {
      this.show(await this.api().modelDownload());
    } catch {
      this.node.hidden = true; // none offered: the page shows the command instead
    }
  }

  async start() {
    this.button.disabled = true;
    try {
      this.show(await this.api().startModelDownload());
    } catch (error) {
      this.status.textContent = error.message;
      this.button.disabled = false;
    }
  }

  show(progress) {
    this.node.hidden = false;
    const running = progress.status === 'downloading' || progress.status === 'assembling';
    const megabytes = Math.round(progress.bytes / 1048576);
    this.button.textContent = progress.status === 'failed' ? 'Try the download again' : `Download ${progress.model} (${megabytes} MB)`;
    this.button.hidden = running || progress.status === 'installed';
    this.button.disabled = false;
    this.bar.hidden = !(running || progress.status === 'installed');
    if (progress.fraction === null || progress.fraction === undefined) this.bar.removeAttribute('value');
    else this.bar.value = progress.fraction;
    this.node.dataset.status = progress.status;
    this.status.textContent = progress.status === 'idle' ? '' : progress.message;
    clearTimeout(this.timer);
    if (running) this.timer = setTimeout(() => this.follow(), 500);
    else if (progress.status === 'installed') this.timer = setTimeout(() => this.waitForModel(), 500);
  }

  async follow() {
    try {
      this.show(await this.api().modelDownload());
    } catch {
      // The server is starting again with the model (the download ended between two looks).
      this.waitForModel();
    }
  }

  /// The server starts again to load the model: once it answers with the model, reload.
  async waitForModel() {
    this.node.dataset.status = 'restarting';
    this.button.hidden = true;
    this.bar.hidden = false;
    this.bar.removeAttribute('value');
    this.status.textContent = 'Downloaded. The server is starting again with the model…';
    try {
      const model = await this.api().model();
      if (model.available) {
        location.reload();
        return;
      }
    } catch {
      // Not back yet.
    }
    this.timer = setTimeout(() => this.waitForModel(), 500);
  }
}
