// One message of a channel, drawn from its model and updated in place (the element stays the
// same while the message lives, so whatever holds it keeps it): author, text, when or how its
// sending went (with Retry), and under it Translate, Add to calendar, and their results.

import { button, el, modelLabel, setText } from './dom.js';
import { describeEvent } from './actions.js';

/**
 * @typedef {import('./messages.js').MessageEntry} MessageEntry
 *
 * @typedef {object} MessageModel everything one message shows
 * @property {MessageEntry} entry
 * @property {boolean} mine
 * @property {string} author
 * @property {boolean} offersCalendar the text mentions a day or a time
 * @property {string} unavailable why the model features cannot run ('' when they can)
 * @property {{ status: string, label: string, text: string, model: string | null, code: string } | null} translation
 * @property {ReturnType<typeof import('./actions.js').calendarView> | null} calendar
 * @property {boolean} found a search result being shown
 *
 * @typedef {object} MessageHandlers
 * @property {(entry: MessageEntry) => void} retry
 * @property {(id: string) => void} translate
 * @property {(id: string) => void} addToCalendar
 */

/**
 * @param {MessageModel} model
 * @param {MessageHandlers} handlers
 */
export function createMessage(model, handlers) {
  const item = el('li', 'message');
  item.dataset.id = model.entry.message.id;
  item.append(el('span', 'author'), el('div', 'text'), el('span', 'meta'));
  updateMessage(item, model, handlers);
  return item;
}

/** @type {WeakMap<HTMLElement, MessageModel>} */
const drawn = new WeakMap();

/**
 * @param {HTMLElement} item
 * @param {MessageModel} model
 * @param {MessageHandlers} handlers
 */
export function updateMessage(item, model, handlers) {
  const before = drawn.get(item);
  drawn.set(item, model);
  const { entry } = model;
  item.classList.toggle('mine', model.mine);
  item.classList.toggle('failed', entry.status === 'failed');
  item.classList.toggle('found', model.found);
  if (model.found && !(before && before.found)) item.scrollIntoView({ block: 'center' });
  setText(/** @type {Element} */ (item.children[0]), model.author);
  setText(/** @type {Element} */ (item.children[1]), entry.message.text);
  if (!before || before.entry !== entry) drawMeta(/** @type {HTMLElement} */ (item.children[2]), entry, handlers);
  if (entry.status !== 'sent') return;
  let row = /** @type {HTMLElement | null} */ (item.querySelector(':scope > .message-actions'));
  if (!row) {
    row = el('div', 'message-actions');
    row.append(button('Translate', () => handlers.translate(entry.message.id), 'link'));
    if (model.offersCalendar) row.append(button('Add to calendar', () => handlers.addToCalendar(entry.message.id), 'link'));
    item.append(row);
  }
  const [translate, calendar] = /** @type {HTMLButtonElement[]} */ (Array.from(row.children));
  translate.disabled = Boolean(model.unavailable) || Boolean(model.translation && model.translation.status === 'running');
  translate.title = model.unavailable;
  if (calendar) {
    calendar.disabled = Boolean(model.unavailable) || Boolean(model.calendar && model.calendar.status === 'running');
    calendar.title = model.unavailable;
  }
  if (model.translation) drawTranslation(box(item, row, 'translation'), model.translation);
  if (model.calendar && (!before || before.calendar !== model.calendar)) drawCalendar(box(item, row, 'calendar'), model.calendar);
}

/**
 * @param {HTMLElement} meta
 * @param {MessageEntry} entry
 * @param {MessageHandlers} handlers
 */
function drawMeta(meta, entry, handlers) {
  if (entry.status === 'sending') meta.replaceChildren('Sending…');
  else if (entry.status === 'failed') meta.replaceChildren('Not sent. ', button('Retry', () => handlers.retry(entry), 'link'));
  else meta.replaceChildren(new Date(entry.message.created_at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }));
}

/**
 * The result box of one action, before the action row (made the first time).
 *
 * @param {HTMLElement} item
 * @param {HTMLElement} row
 * @param {string} className
 */
function box(item, row, className) {
  let node = /** @type {HTMLElement | null} */ (item.querySelector(`:scope > .${className}`));
  if (!node) {
    node = el('div', className);
    const calendar = className === 'translation' ? item.querySelector(':scope > .calendar') : null;
    item.insertBefore(node, calendar || row);
  }
  return node;
}

/**
 * A translation box: its label, the text as it streams, and who wrote it once done (in place,
 * so the text does not flicker).
 *
 * @param {HTMLElement} node
 * @param {NonNullable<MessageModel['translation']>} translation
 */
export function drawTranslation(node, translation) {
  if (!node.firstChild) node.append(el('span', 'translation-label'), el('div', 'translation-text'));
  node.dataset.language = translation.code;
  node.dataset.status = translation.status;
  setText(/** @type {Element} */ (node.children[0]), translation.label);
  const text = /** @type {HTMLElement} */ (node.children[1]);
  text.lang = translation.code;
  setText(text, translation.text);
  const label = node.querySelector(':scope > .model-source');
  const wanted = translation.status === 'done' ? translation.model : null;
  if (label && label.textContent !== `by ${wanted}`) label.remove();
  if (wanted && !node.querySelector(':scope > .model-source')) node.append(...modelLabel(wanted));
}

/** Blob URLs of the .ics files, made once per job. */
const icsURLs = new Map();

/**
 * @param {HTMLElement} node
 * @param {NonNullable<MessageModel['calendar']>} calendar
 */
function drawCalendar(node, calendar) {
  node.dataset.status = calendar.status;
  if (calendar.status !== 'done' || !calendar.event) {
    node.replaceChildren(el('span', 'calendar-status', calendar.note));
    return;
  }
  const event = calendar.event;
  const when = describeEvent(event, Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  const summary = el('span', 'calendar-event', event.location ? `${event.title} · ${when} · ${event.location}` : `${event.title} · ${when}`);
  const link = el('a', 'calendar-download', 'Download .ics');
  link.download = calendar.filename;
  if (!icsURLs.has(calendar.jobId)) icsURLs.set(calendar.jobId, URL.createObjectURL(new Blob([calendar.ics], { type: 'text/calendar' })));
  link.href = icsURLs.get(calendar.jobId);
  node.replaceChildren(summary, link, ...modelLabel(calendar.model));
}
