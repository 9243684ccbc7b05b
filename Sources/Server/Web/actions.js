// Actions on a message: "Translate" (into the language picked in "Translate to", shown under
// the original, which stays) and, when the message mentions a day or time, "Add to calendar"
// (the model reads the event; the page shows what it read and offers the .ics file).

import { appendModelLabel, jobError } from './jobs.js';
import { mentionsDate } from './dates.js';

export class MessageActions {
  constructor({ api, jobs, language, timeZone }) {
    Object.assign(this, { api, jobs, language, timeZone });
    this.unavailable = '';
  }

  /// The action row and result area for one message element.
  attach(item, message) {
    const row = document.createElement('div');
    row.className = 'message-actions';
    const translate = action('Translate', () => this.translate(item, message, translate));
    row.append(translate);
    if (mentionsDate(message.text)) {
      const calendar = action('Add to calendar', () => this.addToCalendar(item, message, calendar));
      row.append(calendar);
    }
    for (const control of row.querySelectorAll('button')) {
      control.disabled = Boolean(this.unavailable);
      control.title = this.unavailable;
    }
    item.append(row);
  }

  async translate(item, message, control) {
    const language = this.language();
    const box = slot(item, 'translation');
    box.dataset.language = language.code;
    box.dataset.status = 'running';
    const label = document.createElement('span');
    label.className = 'translation-label';
    label.textContent = `Translating to ${language.name}…`;
    const text = document.createElement('div');
    text.className = 'translation-text';
    text.lang = language.code;
    box.replaceChildren(label, text);
    control.disabled = true;
    let job;
    try {
      job = await this.jobs.run(
        () => this.api().translate(message.id, language.code),
        (snapshot) => {
          if (snapshot.result && typeof snapshot.result.text === 'string') text.textContent = snapshot.result.text;
        });
    } catch (error) {
      job = { status: 'failed', error: error.message };
    }
    control.disabled = false;
    box.dataset.status = job.status;
    label.textContent = job.status === 'done' ? `Translated to ${language.name}` : jobError(job);
    if (job.status === 'done') appendModelLabel(box, job.result && job.result.model);
  }

  async addToCalendar(item, message, control) {
    const box = slot(item, 'calendar');
    box.dataset.status = 'running';
    box.replaceChildren(text('calendar-status', 'Reading the date…'));
    control.disabled = true;
    const zone = this.timeZone();
    let job;
    try {
      job = await this.jobs.run(() => this.api().event(message.id, zone), () => {});
    } catch (error) {
      job = { status: 'failed', error: error.message };
    }
    control.disabled = false;
    box.dataset.status = job.status;
    if (job.status !== 'done') {
      box.replaceChildren(text('calendar-status', jobError(job)));
      return;
    }
    const { event, ics, filename } = job.result;
    const when = describe(event, zone);
    const summary = text('calendar-event', event.location ? `${event.title} · ${when} · ${event.location}` : `${event.title} · ${when}`);
    const link = document.createElement('a');
    link.className = 'calendar-download';
    link.textContent = 'Download .ics';
    link.download = filename;
    link.href = URL.createObjectURL(new Blob([ics], { type: 'text/calendar' }));
    box.replaceChildren(summary, link);
    appendModelLabel(box, job.result.model);
  }
}

/// "Saturday 5 December, 08:00–10:00" (or the day alone for an all-day event), in `zone`.
function describe(event, zone) {
  const start = new Date(event.start);
  const end = new Date(event.end);
  const day = start.toLocaleDateString([], { weekday: 'long', day: 'numeric', month: 'long', timeZone: event.all_day ? event.time_zone : zone });
  if (event.all_day) return `${day}, all day`;
  const time = (date) => date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hour12: false, timeZone: zone });
  return `${day}, ${time(start)}–${time(end)}`;
}

function slot(item, className) {
  let box = item.querySelector(`.${className}`);
  if (!box) {
    box = document.createElement('div');
    box.className = className;
    item.querySelector('.message-actions').before(box);
  }
  return box;
}

function action(label, onClick) {
  const node = document.createElement('button');
  node.type = 'button';
  node.className = 'link';
  node.textContent = label;
  node.addEventListener('click', onClick);
  return node;
}

function text(className, value) {
  const node = document.createElement('span');
  node.className = className;
  node.textContent = value;
  return node;
}
