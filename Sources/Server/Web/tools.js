// Writing tools for a composer: a "Writing tools" toolbar (Proofread, Rewrite, Make friendly,
// Make professional, Make concise, Summarize, Key points) and a preview under the composer
// that the result streams into, with Replace, Try again and Dismiss. Nothing is ever sent: the
// composer is read-only while the preview is open (Enter does nothing), Replace puts the result
// in the composer, Dismiss puts back exactly what the user wrote. Usable on any composer.

import { appendModelLabel, jobError } from './jobs.js';

export class WritingTools {
  /// `composer`: the form; `textarea`: its text; `after`: the element the toolbar and preview
  /// go after; `start(tool, text, attempt)` starts a job; `jobs`: the Jobs follower;
  /// `letsThrough()`: whether a submit goes through while a preview is open (the assistant's
  /// Stop button).
  constructor({ composer, textarea, after, start, jobs, letsThrough = () => false }) {
    this.composer = composer;
    this.textarea = textarea;
    this.start = start;
    this.jobs = jobs;
    this.tools = [];
    this.unavailable = ''; // why the model cannot be used, in words
    this.paused = ''; // why the tools wait (an answer being written), in words
    this.session = null; // { tool, original, attempt, jobId, result, done }

    this.toolbar = element('div', 'writing-tools');
    this.toolbar.setAttribute('role', 'toolbar');
    this.toolbar.setAttribute('aria-label', 'Writing tools');
    this.note = element('span', 'tools-note');
    this.preview = element('section', 'writing-preview');
    this.preview.setAttribute('aria-label', 'Writing tools preview');
    this.preview.hidden = true;
    this.title = element('strong', 'preview-title');
    this.status = element('span', 'preview-status');
    this.status.setAttribute('role', 'status');
    this.text = element('div', 'preview-text');
    this.text.setAttribute('aria-live', 'polite');
    const head = element('header', 'preview-head');
    head.append(this.title, this.status);
    this.replaceButton = button('Replace', () => this.replace());
    this.retryButton = button('Try again', () => this.retry());
    this.dismissButton = button('Dismiss', () => this.dismiss());
    const actions = element('div', 'preview-actions');
    actions.append(this.replaceButton, this.retryButton, this.dismissButton);
    this.preview.append(head, this.text, actions);
    after.after(this.toolbar, this.preview);

    textarea.addEventListener('input', () => this.refresh());
    // While a preview is open the draft stays as it was: nothing is sent, nothing is lost.
    composer.addEventListener('submit', (event) => {
      if (this.session && !letsThrough()) {
        event.preventDefault();
        event.stopImmediatePropagation();
      }
    }, true);
  }

  /// The tools the server offers ([{id, title}]) and why they cannot run ('' when they can).
  configure(tools, unavailable) {
    this.tools = tools;
    this.unavailable = unavailable || '';
    const buttons = tools.map((tool) => {
      const control = button(tool.title, () => this.run(tool));
      control.dataset.tool = tool.id;
      return control;
    });
    this.toolbar.replaceChildren(...buttons, this.note);
    this.refresh();
  }

  /// Holds the tools back for a while (`reason`), or lets them run again ('').
  pause(reason) {
    this.paused = reason || '';
    this.refresh();
  }

  /// Enables the tools when there is a draft and a model; says why not otherwise.
  refresh() {
    const empty = !this.textarea.value.trim();
    const busy = Boolean(this.session);
    for (const control of this.toolbar.querySelectorAll('button')) {
      control.disabled = Boolean(this.unavailable || this.paused) || empty || busy;
      control.title = this.unavailable || this.paused || (empty ? 'Write something first' : '');
    }
    this.note.textContent = this.unavailable ? `Writing tools are off: ${this.unavailable}` : '';
  }

  async run(tool, attempt = 0, original = this.textarea.value) {
    if (!original.trim() || this.unavailable) return;
    const session = { tool, original, attempt, jobId: null, result: '', done: false };
    this.session = session;
    this.textarea.readOnly = true;
    this.setSendable(false);
    this.preview.hidden = false;
    this.preview.dataset.tool = tool.id;
    this.preview.dataset.status = 'running';
    this.title.textContent = tool.title;
    this.status.textContent = 'Writing…';
    this.text.textContent = '';
    this.replaceButton.disabled = true;
    this.refresh();
    let job;
    try {
      job = await this.jobs.run(
        async () => {
          const started = await this.start(tool.id, original, attempt);
          session.jobId = started.job.id;
          return started;
        },
        (snapshot) => {
          if (this.session !== session) return;
          const text = snapshot.result && snapshot.result.text;
          if (typeof text === 'string') {
            session.result = text;
            this.text.textContent = text;
          }
        });
    } catch (error) {
      job = { status: 'failed', error: error.message };
    }
    if (this.session !== session) return;
    session.done = true;
    this.preview.dataset.status = job.status;
    if (job.status === 'done') {
      this.status.textContent = '';
      appendModelLabel(this.status, job.result && job.result.model);
      this.replaceButton.disabled = !session.result.trim();
    } else if (job.status === 'failed') {
      this.status.textContent = jobError(job);
    }
  }

  replace() {
    const session = this.session;
    if (!session || !session.done || !session.result.trim()) return;
    this.close();
    this.textarea.value = session.result;
    this.textarea.focus();
    this.textarea.setSelectionRange(session.result.length, session.result.length);
    this.refresh();
  }

  retry() {
    const session = this.session;
    if (!session) return;
    if (!session.done && session.jobId) this.jobs.cancel(session.jobId);
    this.run(session.tool, session.attempt + 1, session.original);
  }

  dismiss() {
    const session = this.session;
    if (!session) return;
    if (!session.done && session.jobId) this.jobs.cancel(session.jobId);
    this.close();
    this.textarea.value = session.original; // exactly what the user wrote
    this.textarea.focus();
    this.refresh();
  }

  /// Closes the preview (also when switching channels: the draft is put back first).
  close() {
    this.session = null;
    this.textarea.readOnly = false;
    this.setSendable(true);
    this.preview.hidden = true;
    this.text.textContent = '';
    this.refresh();
  }

  /// The composer's Send button, off while a preview is open so that it does not look as if
  /// it would send the preview (the submit listener above refuses it anyway).
  setSendable(sendable) {
    for (const control of this.composer.querySelectorAll('button[type="submit"]')) control.disabled = !sendable;
  }

  /// Leaves the preview without touching the draft's original text (channel switch).
  reset() {
    if (this.session) this.dismiss();
  }
}

function element(tag, className) {
  const node = document.createElement(tag);
  node.className = className;
  return node;
}

function button(label, onClick) {
  const node = document.createElement('button');
  node.type = 'button';
  node.textContent = label;
  node.addEventListener('click', onClick);
  return node;
}
