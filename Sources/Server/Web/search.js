// "Search messages" over the user's channels, and "Suggest searches": four terms from the
// local model for the topic in the search field, each a click away from running. The button is
// disabled while the field is empty or the model is unavailable, and the page says why.

import { appendModelLabel, jobError } from './jobs.js';

export class Search {
  constructor({ form, input, suggestButton, note, suggested, results, api, jobs, open }) {
    Object.assign(this, { form, input, suggestButton, note, suggested, results, api, jobs, open });
    this.unavailable = '';
    this.suggesting = null; // the job id while terms are being written
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.run(input.value);
    });
    input.addEventListener('input', () => this.refresh());
    suggestButton.addEventListener('click', () => this.suggest());
    this.refresh();
  }

  setUnavailable(reason) {
    this.unavailable = reason || '';
    this.refresh();
  }

  refresh() {
    const empty = !this.input.value.trim();
    this.suggestButton.disabled = Boolean(this.unavailable) || empty || Boolean(this.suggesting);
    if (this.unavailable) this.note.textContent = `Suggest searches is off: ${this.unavailable}`;
    else if (empty) this.note.textContent = 'Type a topic to search, or to get suggested searches.';
    else this.note.textContent = '';
  }

  async run(query) {
    const text = query.trim();
    if (!text) return;
    this.input.value = text;
    this.refresh();
    this.results.hidden = false;
    this.results.dataset.status = 'searching';
    let found;
    try {
      found = await this.api().search(text);
    } catch (error) {
      this.results.dataset.status = 'failed';
      this.results.replaceChildren(emptyItem(error.message));
      return;
    }
    this.results.dataset.status = 'done';
    this.results.dataset.query = text;
    if (found.results.length === 0) {
      this.results.replaceChildren(emptyItem(`No messages match “${text}”.`));
      return;
    }
    this.results.replaceChildren(...found.results.map((hit) => this.render(hit)));
  }

  render(hit) {
    const item = document.createElement('li');
    const open = document.createElement('button');
    open.type = 'button';
    open.className = 'search-hit';
    open.dataset.messageId = hit.message.id;
    const where = line('search-where', hit.channel_name);
    const text = document.createElement('span');
    text.className = 'search-text';
    text.append(...highlighted(hit.message.text, hit.highlights));
    open.append(where, text);
    open.addEventListener('click', () => this.open(hit.message));
    item.append(open);
    return item;
  }

  async suggest() {
    const topic = this.input.value.trim();
    if (!topic || this.unavailable || this.suggesting) return;
    const list = document.createElement('ul');
    this.suggested.replaceChildren(this.suggested.querySelector('h3'), list);
    this.suggested.hidden = false;
    this.suggested.dataset.status = 'running';
    const status = line('suggest-status', 'Suggesting searches…');
    status.setAttribute('role', 'status');
    this.suggested.append(status);
    this.suggesting = 'starting';
    this.refresh();
    let job;
    try {
      job = await this.jobs.run(
        () => this.api().suggestSearches(topic),
        (snapshot) => {
          this.suggesting = snapshot.id;
          const terms = (snapshot.result && snapshot.result.terms) || [];
          const done = snapshot.status === 'done';
          list.replaceChildren(...terms.map((term) => this.suggestion(term, done)));
        });
    } catch (error) {
      job = { status: 'failed', error: error.message };
    }
    this.suggesting = null;
    this.suggested.dataset.status = job.status;
    status.textContent = job.status === 'failed' ? jobError(job) : '';
    if (job.status === 'done') appendModelLabel(status, job.result && job.result.model);
    this.refresh();
  }

  suggestion(term, ready) {
    const item = document.createElement('li');
    const control = document.createElement('button');
    control.type = 'button';
    control.className = 'suggested-search';
    control.textContent = term;
    control.disabled = !ready; // still being written
    control.addEventListener('click', () => this.run(term));
    item.append(control);
    return item;
  }
}

function emptyItem(text) {
  const item = document.createElement('li');
  item.className = 'search-empty';
  item.textContent = text;
  return item;
}

function line(className, text) {
  const node = document.createElement('span');
  node.className = className;
  node.textContent = text;
  return node;
}

/// `text` as text nodes, with the ranges ([start, end) in UTF-16 units) in <mark>.
function highlighted(text, ranges) {
  const nodes = [];
  let at = 0;
  for (const [start, end] of ranges || []) {
    if (start < at || end > text.length || start >= end) continue;
    if (start > at) nodes.push(document.createTextNode(text.slice(at, start)));
    const mark = document.createElement('mark');
    mark.textContent = text.slice(start, end);
    nodes.push(mark);
    at = end;
  }
  if (at < text.length) nodes.push(document.createTextNode(text.slice(at)));
  return nodes;
}
