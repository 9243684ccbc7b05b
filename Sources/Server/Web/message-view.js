// One message of a channel, drawn from its model and updated in place (the element stays the
// same while the message lives, so whatever holds it keeps it): author, text (or the box that
// edits it, or "message deleted"), its files (attachment-view.js), when or how its sending went
// (with Retry) and whether it was edited, its reactions, a thread's root its "2 replies · 1 new" (which opens the thread), and
// under it Reply (a top-level message), Translate, Add to calendar, React, the author's Edit and
// Delete, History (an edited message's earlier versions, for its author and administrators), and
// their results. Replies in the thread panel are drawn by the same functions.

import { button, el, modelLabel, setText } from './dom.js';
import { describeEvent } from './actions.js';
import { mentionPieces } from './mentions.js';
import { versions } from './messages.js';
import { drawAttachments } from './attachment-view.js';

/**
 * @typedef {import('./messages.js').MessageEntry} MessageEntry
 *
 * @typedef {object} MessageModel everything one message shows
 * @property {MessageEntry} entry
 * @property {boolean} mine
 * @property {string | null} me the reader's id (their mentions are marked)
 * @property {string} author
 * @property {boolean} offersCalendar the text mentions a day or a time
 * @property {string} unavailable why the model features cannot run ('' when they can)
 * @property {{ status: string, label: string, text: string, model: string | null, code: string } | null} translation
 * @property {ReturnType<typeof import('./actions.js').calendarView> | null} calendar
 * @property {boolean} found a search result being shown
 * @property {boolean} editing the reader is editing it
 * @property {boolean} deleting its deletion waits to be confirmed
 * @property {boolean} canDelete the reader's own, or the reader is an administrator
 * @property {boolean} offersHistory edited, and the reader's own (or the reader is an administrator)
 * @property {import('./messages.js').EditHistory | null} history its earlier versions, while shown
 * @property {Array<{ emoji: string, count: number, mine: boolean, names: string }>} reactions
 * @property {boolean} offersReply a top-level message that stands, in the channel's list
 * @property {string} replies a thread root's line ("2 replies · 1 new"; '' for none)
 * @property {boolean} newReplies the thread has replies the reader has not read
 * @property {import('./types.js').AttachmentInfo[]} attachments its files (none once deleted)
 *
 * @typedef {object} MessageHandlers
 * @property {(entry: MessageEntry) => void} retry
 * @property {(id: string) => void} translate
 * @property {(id: string) => void} addToCalendar
 * @property {(id: string | null) => void} startEdit null: stop editing
 * @property {(id: string, text: string) => void} saveEdit
 * @property {(id: string | null) => void} askDelete null: keep it
 * @property {(id: string) => void} remove
 * @property {(id: string, emoji: string, adding: boolean) => void} react
 * @property {(user: string) => void} openDirect a direct message with the author
 * @property {(id: string) => void} toggleHistory shows or hides the earlier versions
 * @property {(id: string) => void} openThread opens the thread of this root in the side panel
 * @property {(attachment: import('./types.js').AttachmentInfo) => Promise<string>} picture the blob: URL
 *   a picture is shown through
 */

/** The emoji the React menu offers. */
export const REACTIONS = ['👍', '❤️', '😂', '🎉', '😮', '😢'];

/**
 * @param {MessageModel} model
 * @param {MessageHandlers} handlers
 */
export function createMessage(model, handlers) {
  const item = el('li', 'message');
  item.dataset.id = model.entry.message.id;
  // Another person's name opens a direct message with them.
  const author = model.mine ? el('span', 'author') : button('', () => handlers.openDirect(model.entry.message.user_id), 'author');
  if (!model.mine) author.title = 'Message them directly';
  item.append(author, el('div', 'text'), el('span', 'meta'));
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
  const message = entry.message;
  const deleted = Boolean(message.deleted_at);
  item.classList.toggle('deleted', deleted);
  drawText(/** @type {HTMLElement} */ (item.children[1]), model, handlers);
  if (!before || before.entry !== entry) drawMeta(/** @type {HTMLElement} */ (item.children[2]), entry, handlers);
  drawFiles(item, model, handlers);
  if (entry.status !== 'sent') return;
  // A deleted root keeps its thread: its replies still stand.
  drawThreadLink(item, model, handlers);
  if (deleted) {
    for (const node of item.querySelectorAll(':scope > .message-actions, :scope > .reactions, :scope > .translation, :scope > .calendar, :scope > .history')) node.remove();
    return;
  }
  drawReactions(item, model, handlers);
  let row = /** @type {HTMLElement | null} */ (item.querySelector(':scope > .message-actions'));
  if (!row) {
    row = el('div', 'message-actions');
    if (model.offersReply) row.append(action('reply', button('Reply', () => handlers.openThread(message.id), 'link')));
    row.append(action('translate', button('Translate', () => handlers.translate(message.id), 'link')));
    if (model.offersCalendar) row.append(action('calendar', button('Add to calendar', () => handlers.addToCalendar(message.id), 'link')));
    row.append(reactMenu(message.id, handlers));
    if (model.mine) row.append(action('edit', button('Edit', () => handlers.startEdit(message.id), 'link')));
    if (model.canDelete) row.append(action('delete', button('Delete', () => handlers.askDelete(message.id), 'link')));
    item.append(row);
  }
  const translate = /** @type {HTMLButtonElement} */ (row.querySelector('[data-action="translate"]'));
  const calendar = /** @type {HTMLButtonElement | null} */ (row.querySelector('[data-action="calendar"]'));
  translate.disabled = Boolean(model.unavailable) || Boolean(model.translation && model.translation.status === 'running');
  translate.title = model.unavailable;
  if (calendar) {
    calendar.disabled = Boolean(model.unavailable) || Boolean(model.calendar && model.calendar.status === 'running');
    calendar.title = model.unavailable;
  }
  drawHistoryAction(row, model, handlers);
  drawConfirm(row, model, handlers);
  if (model.translation) drawTranslation(box(item, row, 'translation'), model.translation);
  if (model.calendar && (!before || before.calendar !== model.calendar)) drawCalendar(box(item, row, 'calendar'), model.calendar);
  if (!model.history) item.querySelector(':scope > .history')?.remove();
  else if (!before || before.history !== model.history || before.entry !== entry) drawHistory(box(item, row, 'history'), model);
}

/**
 * A thread root's "2 replies · 1 new" under its text (before the actions), which opens the
 * thread; absent while nobody replied.
 *
 * @param {HTMLElement} item
 * @param {MessageModel} model
 * @param {MessageHandlers} handlers
 */
function drawThreadLink(item, model, handlers) {
  let link = /** @type {HTMLButtonElement | null} */ (item.querySelector(':scope > .thread-link'));
  if (!model.replies) {
    if (link) link.remove();
    return;
  }
  if (!link) {
    const id = model.entry.message.id;
    link = button('', () => handlers.openThread(id), 'link thread-link');
    item.insertBefore(link, item.querySelector(':scope > .message-actions'));
  }
  setText(link, model.replies);
  link.classList.toggle('has-new', model.newReplies);
  link.setAttribute('aria-label', `${model.replies}: open the thread`);
}

/**
 * The message's files, right after its time (before its reactions); gone when it has none (a
 * deleted message's went with it).
 *
 * @param {HTMLElement} item
 * @param {MessageModel} model
 * @param {MessageHandlers} handlers
 */
function drawFiles(item, model, handlers) {
  let node = /** @type {HTMLElement | null} */ (item.querySelector(':scope > .attachments'));
  if (!model.attachments.length) {
    if (node) node.remove();
    return;
  }
  if (!node) {
    node = el('div', 'attachments');
    item.insertBefore(node, item.children[2].nextSibling);
  }
  drawAttachments(node, model.attachments, handlers.picture);
}

/**
 * History (an edited message is offered it only after it was edited, so the button comes and
 * goes), after Edit; "Hide history" while it is shown.
 *
 * @param {HTMLElement} row
 * @param {MessageModel} model
 * @param {MessageHandlers} handlers
 */
function drawHistoryAction(row, model, handlers) {
  let toggle = /** @type {HTMLButtonElement | null} */ (row.querySelector('[data-action="history"]'));
  if (!model.offersHistory) {
    if (toggle) toggle.remove();
    return;
  }
  if (!toggle) {
    const id = model.entry.message.id;
    toggle = action('history', button('History', () => handlers.toggleHistory(id), 'link'));
    row.insertBefore(toggle, row.querySelector('[data-action="delete"], :scope > .confirm'));
  }
  setText(toggle, model.history ? 'Hide history' : 'History');
  toggle.setAttribute('aria-expanded', String(Boolean(model.history)));
}

/**
 * The earlier versions, oldest first, each with when it was written and replaced, then the text
 * as it is now; all as text.
 *
 * @param {HTMLElement} node
 * @param {MessageModel} model
 */
function drawHistory(node, model) {
  const history = /** @type {import('./messages.js').EditHistory} */ (model.history);
  node.dataset.status = history.status;
  if (history.status === 'loading') {
    node.replaceChildren(el('span', 'history-status', 'Loading the earlier versions…'));
    return;
  }
  if (history.status === 'failed') {
    node.replaceChildren(el('span', 'history-status', `The history cannot be shown: ${history.error}`));
    return;
  }
  const list = el('ol', 'history-versions');
  list.setAttribute('aria-label', 'Earlier versions');
  list.append(...versions(model.entry.message, history.edits).map((version, index) => {
    const item = el('li', version.until === null ? 'version current' : 'version');
    const label = version.until === null ? 'Current' : index === 0 ? 'Original' : `Edit ${index}`;
    const when = el('span', 'version-when', `${label} · ${clock(version.from)}`);
    when.title = new Date(version.from).toLocaleString();
    item.append(when, el('div', 'version-text', version.text));
    return item;
  }));
  node.replaceChildren(el('span', 'history-status', 'Edit history'), list);
}

/**
 * A time of today as hours and minutes; another day's with its date.
 *
 * @param {string} iso
 */
function clock(iso) {
  const date = new Date(iso);
  const time = date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return date.toDateString() === new Date().toDateString() ? time : `${date.toLocaleDateString([], { month: 'short', day: 'numeric' })} ${time}`;
}

/**
 * @param {string} name
 * @param {HTMLButtonElement} node
 */
function action(name, node) {
  node.dataset.action = name;
  return node;
}

/**
 * The text, the box that edits it, or the tombstone.
 *
 * @param {HTMLElement} node
 * @param {MessageModel} model
 * @param {MessageHandlers} handlers
 */
function drawText(node, model, handlers) {
  const message = model.entry.message;
  const editor = /** @type {HTMLFormElement | null} */ (node.querySelector(':scope > form.edit'));
  if (model.editing && !message.deleted_at) {
    if (editor) return;
    const input = /** @type {HTMLTextAreaElement} */ (el('textarea'));
    input.value = message.text;
    input.maxLength = 4000;
    input.setAttribute('aria-label', 'Edit message');
    const form = /** @type {HTMLFormElement} */ (el('form', 'edit'));
    const save = el('button', '', 'Save');
    save.setAttribute('type', 'submit');
    form.append(input, save, button('Cancel', () => handlers.startEdit(null), 'link'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const text = input.value.trim();
      if (text) handlers.saveEdit(message.id, text);
    });
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') handlers.startEdit(null);
      else if (event.key === 'Enter' && !event.shiftKey) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
    node.replaceChildren(form);
    input.focus();
    return;
  }
  drawMentions(node, message.deleted_at ? 'message deleted' : message.text, model.me);
}

/**
 * The text, each `@id` in a span of its own (`.mention`, and `.you` for the reader), all as text:
 * nothing in a message is ever read as HTML.
 *
 * @param {HTMLElement} node
 * @param {string} text
 * @param {string | null} me
 */
function drawMentions(node, text, me) {
  const key = `${me}\u0000${text}`;
  if (node.dataset.drawn === key && !node.querySelector(':scope > form')) return;
  node.dataset.drawn = key;
  const mine = me ? me.toLowerCase() : null;
  node.replaceChildren(...mentionPieces(text).map((piece) => {
    if (piece.mention === null) return document.createTextNode(piece.text);
    const span = el('span', piece.mention.toLowerCase() === mine ? 'mention you' : 'mention', piece.text);
    return span;
  }));
}

/**
 * The React menu: a few emoji behind one button (a <details>, so it opens without state).
 *
 * @param {string} id
 * @param {MessageHandlers} handlers
 */
function reactMenu(id, handlers) {
  const menu = /** @type {HTMLDetailsElement} */ (el('details', 'react'));
  const summary = el('summary', 'link', 'React');
  menu.append(summary);
  for (const emoji of REACTIONS) {
    const choice = button(emoji, () => {
      menu.open = false;
      handlers.react(id, emoji, true);
    }, 'emoji');
    choice.setAttribute('aria-label', `React with ${emoji}`);
    menu.append(choice);
  }
  return menu;
}

/**
 * The reactions under the text: each emoji with its count, pressed when the reader gave it;
 * clicking gives or takes it back.
 *
 * @param {HTMLElement} item
 * @param {MessageModel} model
 * @param {MessageHandlers} handlers
 */
function drawReactions(item, model, handlers) {
  let node = /** @type {HTMLElement | null} */ (item.querySelector(':scope > .reactions'));
  if (!model.reactions.length) {
    if (node) node.remove();
    return;
  }
  if (!node) {
    node = el('div', 'reactions');
    const files = item.querySelector(':scope > .attachments');
    item.insertBefore(node, (files || item.children[2]).nextSibling);
  }
  const id = model.entry.message.id;
  node.replaceChildren(...model.reactions.map((reaction) => {
    const chip = button(`${reaction.emoji} ${reaction.count}`, () => handlers.react(id, reaction.emoji, !reaction.mine), 'reaction');
    chip.setAttribute('aria-pressed', String(reaction.mine));
    chip.title = reaction.names;
    return chip;
  }));
}

/**
 * "Delete this message?" with Delete and Cancel, while a deletion waits to be confirmed.
 *
 * @param {HTMLElement} row
 * @param {MessageModel} model
 * @param {MessageHandlers} handlers
 */
function drawConfirm(row, model, handlers) {
  const shown = row.querySelector(':scope > .confirm');
  if (!model.deleting) {
    if (shown) shown.remove();
    return;
  }
  if (shown) return;
  const id = model.entry.message.id;
  const confirm = el('span', 'confirm', 'Delete this message? ');
  confirm.append(button('Yes, delete', () => handlers.remove(id), 'link danger'), ' ', button('Keep it', () => handlers.askDelete(null), 'link'));
  row.append(confirm);
}

/**
 * @param {HTMLElement} meta
 * @param {MessageEntry} entry
 * @param {MessageHandlers} handlers
 */
function drawMeta(meta, entry, handlers) {
  if (entry.status === 'sending') meta.replaceChildren('Sending…');
  else if (entry.status === 'failed') meta.replaceChildren('Not sent. ', button('Retry', () => handlers.retry(entry), 'link'));
  else {
    const time = new Date(entry.message.created_at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    meta.replaceChildren(entry.message.edited_at && !entry.message.deleted_at ? `${time} · edited` : time);
  }
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
