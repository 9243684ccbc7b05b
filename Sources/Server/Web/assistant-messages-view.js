// The open assistant conversation's messages: the user's text (and images), answers as the
// server's sanitized HTML (code blocks get their language and Copy), dividers, the answer being
// written, a failed one, smart-reply chips, and Translate under each answer. The list follows
// the bottom while the reader is there.

import { button, el, modelLabel, reconcile, setText } from './dom.js';
import { watch } from './store.js';
import { select } from './state.js';
import { translationView } from './actions.js';
import { drawTranslation } from './message-view.js';
import { madeByLabel } from './playground.js';

/**
 * @typedef {import('./types.js').AssistantMessage} AssistantMessage
 * @typedef {import('./types.js').Turn} Turn
 * @typedef {import('./state.js').State} State
 * @typedef {import('./images.js').ImageCache} ImageCache
 * @typedef {{ kind: 'message', message: AssistantMessage } | { kind: 'turn', turn: Turn } | { kind: 'failed', turn: Turn }} Row
 * @typedef {{ regenerate: () => void, translate: (id: string) => void, insert: (text: string) => void }} Handlers
 */

const numberFormat = new Intl.NumberFormat('en-US');
/** How close to the bottom counts as "at the bottom". */
const NEAR_BOTTOM_PX = 48;

/**
 * @param {import('./state.js').AppStore} store
 * @param {(name: string) => HTMLElement} part
 * @param {ImageCache} images
 * @param {Handlers} handlers
 */
export function mountAssistantMessages(store, part, images, handlers) {
  const list = part('messages');
  const scroller = part('scroller');
  const replies = part('replies');
  const atBottom = () => scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < NEAR_BOTTOM_PX;

  const picked = select((state) => [state.assistant, state.actions.translations, state.jobs],
    (assistant, translations, jobs) => ({ assistant, translations, jobs }));
  let scrolled = store.getState().assistant.scroll.nonce;
  watch(store, picked, ({ assistant, translations, jobs }) => {
    const follow = atBottom();
    const settings = assistant.info ? assistant.info.settings : null;
    const showTokens = Boolean(settings && settings.show_token_counts);
    const available = Boolean(assistant.info && assistant.info.model.available);
    const reason = assistant.info ? assistant.info.model.message : '';
    const last = assistant.messages[assistant.messages.length - 1];
    /** @type {Row[]} */
    const rows = assistant.messages.map((message) => ({ kind: 'message', message }));
    if (assistant.failed) rows.push({ kind: 'failed', turn: assistant.failed });
    if (assistant.turn && assistant.turn.id) rows.push({ kind: 'turn', turn: assistant.turn });
    /** @param {AssistantMessage} message */
    const context = (message) => ({
      showTokens, available, reason, regenerate: message === last && !assistant.turn,
      translation: translations[message.id] ? { ...translationView(translations[message.id], jobs), code: translations[message.id].code } : null,
    });
    reconcile(list, rows, rowKey, (row) => {
      const node = create(row, images, handlers);
      if (row.kind === 'message') updateMessage(node, row.message, context(row.message), handlers);
      else updateTurn(node, row.turn, showTokens);
      return node;
    }, (node, row) => {
      if (row.kind === 'message') updateMessage(node, row.message, context(row.message), handlers);
      else updateTurn(node, row.turn, showTokens);
    });
    replies.replaceChildren(...assistant.replies.map((text) => button(text, () => handlers.insert(text), 'reply-chip')));
    replies.hidden = assistant.replies.length === 0;
    if (assistant.scroll.nonce !== scrolled) {
      scrolled = assistant.scroll.nonce;
      const target = assistant.scroll.to ? list.querySelector(`[data-id="${CSS.escape(assistant.scroll.to)}"]`) : null;
      if (target) {
        target.classList.add('found');
        target.scrollIntoView({ block: 'center' });
      } else scroller.scrollTop = scroller.scrollHeight;
    } else if (follow) scroller.scrollTop = scroller.scrollHeight;
  });
}

/** @param {Row} row */
function rowKey(row) {
  return row.kind === 'message' ? row.message.id : `${row.kind}:${row.turn.id}`;
}

/**
 * @param {Row} row
 * @param {ImageCache} images
 * @param {Handlers} handlers
 */
function create(row, images, handlers) {
  if (row.kind !== 'message') {
    const node = el('li', `assistant-message role-assistant ${row.kind === 'turn' ? 'streaming' : 'failed'}`);
    node.dataset.turn = row.turn.id || '';
    node.append(el('span', 'author', row.turn.kind === 'continuation' ? 'Summary for the new session' : 'Assistant'),
      el('div', 'markdown'), el('div', 'message-footer'));
    return node;
  }
  const message = row.message;
  if (message.role === 'divider') {
    const node = el('li', 'divider');
    node.dataset.id = message.id;
    node.setAttribute('role', 'separator');
    node.append(el('span', 'divider-label', message.summary ? 'New session: the model continues from a summary of the conversation.' : message.text));
    if (message.summary) {
      const details = el('details', 'divider-summary');
      const body = el('div', 'markdown');
      body.innerHTML = message.html || ''; // the server's sanitized HTML
      details.append(el('summary', null, 'Summary'), body);
      node.append(details);
    }
    return node;
  }
  const node = el('li', `assistant-message role-${message.role}`);
  node.dataset.id = message.id;
  node.dataset.role = message.role;
  node.append(el('span', 'author', message.role === 'user' ? 'You' : 'Assistant'));
  if (message.role === 'user') {
    if (message.images && message.images.length) {
      const shown = el('div', 'message-images');
      for (const image of message.images) {
        const made = image.generated_by || null;
        shown.append(labelledThumbnail(images, image.id, made ? `Image made by ${made}` : 'Attached image', made));
      }
      node.append(shown);
    }
    node.append(el('div', 'text', message.text));
    return node;
  }
  const body = el('div', 'markdown');
  body.innerHTML = message.html || ''; // the server's sanitized HTML
  decorateCode(body);
  const actions = el('div', 'message-actions');
  actions.append(button('Translate', () => handlers.translate(message.id), 'link'));
  node.append(body, el('div', 'message-footer'), actions);
  return node;
}

/**
 * An answer's footer (Stopped, tokens, model, Regenerate on the last) and its translation.
 *
 * @param {HTMLElement} node
 * @param {AssistantMessage} message
 * @param {{ showTokens: boolean, available: boolean, reason: string, regenerate: boolean, translation: Parameters<typeof drawTranslation>[1] | null }} context
 * @param {Handlers} handlers
 */
function updateMessage(node, message, context, handlers) {
  if (message.role !== 'assistant') return;
  const footer = /** @type {HTMLElement} */ (node.querySelector(':scope > .message-footer'));
  const key = JSON.stringify([context.showTokens, context.regenerate, message.stopped, message.output_tokens, message.model]);
  if (footer.dataset.drawn !== key) {
    footer.dataset.drawn = key;
    footer.replaceChildren(
      ...(message.stopped ? [el('span', 'stopped', 'Stopped')] : []),
      ...(context.showTokens && message.output_tokens != null ? [el('span', 'tokens', `${numberFormat.format(message.output_tokens)} tokens`)] : []),
      ...modelLabel(message.model),
      ...(context.regenerate ? [button('Regenerate', () => handlers.regenerate(), 'link')] : []));
  }
  const row = /** @type {HTMLElement} */ (node.querySelector(':scope > .message-actions'));
  const translate = /** @type {HTMLButtonElement} */ (row.firstElementChild);
  translate.title = context.available ? '' : context.reason;
  translate.disabled = !context.available || Boolean(context.translation && context.translation.status === 'running');
  if (!context.translation) return;
  let box = /** @type {HTMLElement | null} */ (node.querySelector(':scope > .translation'));
  if (!box) {
    box = el('div', 'translation');
    row.before(box);
  }
  drawTranslation(box, context.translation);
}

/** The HTML each streaming answer's body shows (set again only when it changed). */
const drawnHTML = new WeakMap();

/**
 * The answer being written, or one that failed.
 *
 * @param {HTMLElement} node
 * @param {Turn} turn
 * @param {boolean} showTokens
 */
function updateTurn(node, turn, showTokens) {
  const body = /** @type {HTMLElement} */ (node.querySelector('.markdown'));
  const footer = /** @type {HTMLElement} */ (node.querySelector('.message-footer'));
  if (drawnHTML.get(body) !== turn.html) {
    drawnHTML.set(body, turn.html || '');
    body.innerHTML = turn.html || ''; // the server's sanitized HTML
    decorateCode(body);
  }
  if (turn.status === 'failed') {
    if (!footer.querySelector('.error')) {
      const error = el('p', 'error', turn.error || '');
      error.setAttribute('role', 'alert');
      footer.replaceChildren(error);
    }
    return;
  }
  setText(footer, showTokens && turn.output_tokens !== undefined ? `${numberFormat.format(turn.output_tokens)} tokens` : '');
}

/**
 * An <img> of one of the conversation's images, filled once its bytes are there.
 *
 * @param {ImageCache} images
 * @param {string} id
 * @param {string} alt
 */
export function thumbnail(images, id, alt) {
  const image = el('img', 'thumbnail');
  image.alt = alt;
  image.dataset.imageId = id;
  images.url(id).then((url) => { image.src = url; }, () => {
    image.alt = `${alt} (it cannot be shown)`;
    image.classList.add('missing');
  });
  return image;
}

/**
 * A thumbnail, with "Made by <model>" under it when the image server made the image.
 *
 * @param {ImageCache} images
 * @param {string} id
 * @param {string} alt
 * @param {string | null | undefined} generatedBy
 * @returns {HTMLElement}
 */
export function labelledThumbnail(images, id, alt, generatedBy) {
  const image = thumbnail(images, id, alt);
  if (!generatedBy) return image;
  const figure = el('figure', 'generated-image');
  figure.append(image, el('figcaption', 'made-by', madeByLabel(generatedBy)));
  return figure;
}

/**
 * Code blocks get their language as a label and a Copy button.
 *
 * @param {HTMLElement} container
 */
function decorateCode(container) {
  for (const code of Array.from(container.querySelectorAll('pre > code'))) {
    const pre = /** @type {HTMLElement} */ (code.parentElement);
    if (pre.parentElement && pre.parentElement.classList.contains('code-block')) continue;
    const wrapper = el('div', 'code-block');
    const bar = el('div', 'code-bar');
    const match = /(?:^|\s)language-([\w+#.-]+)/.exec(code.className);
    bar.append(el('span', 'code-language', match ? match[1] : 'code'));
    const copy = button('Copy', async () => {
      try {
        await navigator.clipboard.writeText(code.textContent || '');
        copy.textContent = 'Copied';
      } catch {
        copy.textContent = 'Copy failed';
      }
      setTimeout(() => { copy.textContent = 'Copy'; }, 1500);
    }, 'copy');
    bar.append(copy);
    pre.replaceWith(wrapper);
    wrapper.append(bar, pre);
  }
}
