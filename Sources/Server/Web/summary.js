// "Summarize thread": a panel under the channel's header that a short summary streams into,
// of the part that was unread when the channel was opened, or of the last N messages, naming
// who said what.

import { appendModelLabel, jobError } from './jobs.js';

export class ThreadSummary {
  constructor({ button, panel, api, jobs }) {
    Object.assign(this, { button, panel, api, jobs });
    this.cid = null;
    this.unread = null; // { after: message id, count } when the channel had unread messages
    this.jobId = null;
    this.unavailable = '';
    this.choice = panel.querySelector('select');
    this.text = panel.querySelector('.summary-text');
    this.status = panel.querySelector('.summary-status');
    button.addEventListener('click', () => this.summarize());
    panel.querySelector('.summary-run').addEventListener('click', () => this.summarize());
    panel.querySelector('.summary-close').addEventListener('click', () => this.close());
  }

  setUnavailable(reason) {
    this.unavailable = reason || '';
    this.button.disabled = Boolean(this.unavailable);
    this.button.title = this.unavailable;
  }

  /// A channel was opened; `unread` says what was unread before it was marked read.
  open(cid, unread) {
    this.close();
    this.cid = cid;
    this.unread = unread && unread.count > 0 ? unread : null;
    const options = [];
    if (this.unread) options.push(option('unread', `Unread messages (${this.unread.count})`));
    options.push(option('20', 'Last 20 messages'), option('50', 'Last 50 messages'));
    this.choice.replaceChildren(...options);
  }

  async summarize() {
    if (!this.cid || this.unavailable) return;
    if (this.jobId) this.jobs.cancel(this.jobId);
    const cid = this.cid;
    const choice = this.choice.value;
    let body = { last: Number(choice) };
    if (choice === 'unread' && this.unread) {
      body = this.unread.after ? { after: this.unread.after } : { last: Math.min(this.unread.count, 50) };
    }
    this.panel.hidden = false;
    this.panel.dataset.status = 'running';
    this.text.textContent = '';
    this.status.textContent = 'Summarizing…';
    let job;
    try {
      job = await this.jobs.run(
        async () => {
          const started = await this.api().summarize(cid, body);
          this.jobId = started.job.id;
          return started;
        },
        (snapshot) => {
          if (this.cid !== cid || snapshot.id !== this.jobId) return;
          if (snapshot.result && typeof snapshot.result.text === 'string') this.text.textContent = snapshot.result.text;
        });
    } catch (error) {
      job = { status: 'failed', error: error.message };
    }
    if (this.cid !== cid || (job.id && job.id !== this.jobId)) return;
    this.jobId = null;
    this.panel.dataset.status = job.status;
    this.status.textContent = job.status === 'failed' ? jobError(job) : '';
    if (job.status === 'done') appendModelLabel(this.status, job.result && job.result.model);
  }

  close() {
    if (this.jobId) this.jobs.cancel(this.jobId);
    this.jobId = null;
    this.panel.hidden = true;
    this.text.textContent = '';
    this.status.textContent = '';
  }
}

function option(value, label) {
  const node = document.createElement('option');
  node.value = value;
  node.textContent = label;
  return node;
}
