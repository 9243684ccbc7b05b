// The sidebar: who is signed in, the channel list with unread counts (and a marker for threads
// the reader follows with unread replies), the Assistant button,
// the "Suggest replies" toggle, "Translate to", and the line about the model.

import { button, byId, el, option, reconcile, setText } from './dom.js';
import { watch } from './store.js';
import { select } from './state.js';
import { modelStatusText, translationLanguage } from './session.js';
import { channelTitle } from './channels.js';

/**
 * @typedef {import('./types.js').ChannelSummary} ChannelSummary
 */

/**
 * @param {import('./state.js').AppStore} store
 * @param {{ signOut: () => void, openChannel: (cid: string) => void, showAssistant: () => void,
 *   setSuggestionsWanted: (wanted: boolean) => void, setLanguage: (code: string) => void }} handlers
 */
export function mountSidebar(store, handlers) {
  const name = byId('me-name');
  const channels = byId('channel-list');
  const assistant = byId('assistant-nav', HTMLButtonElement);
  const toggleLabel = byId('suggestions-toggle-label');
  const toggle = byId('suggestions-toggle', HTMLInputElement);
  const language = byId('translation-language', HTMLSelectElement);
  const modelStatus = byId('model-status');

  byId('signout').addEventListener('click', () => handlers.signOut());
  assistant.addEventListener('click', () => handlers.showAssistant());
  toggle.addEventListener('change', () => handlers.setSuggestionsWanted(toggle.checked));
  language.addEventListener('change', () => handlers.setLanguage(language.value));

  watch(store, (state) => state.session.me, (me) => setText(name, me ? me.name : ''));
  watch(store, (state) => state.session.view, (view) => {
    if (view === 'assistant') assistant.setAttribute('aria-current', 'true');
    else assistant.removeAttribute('aria-current');
  });
  watch(store, select((state) => [state.session.suggestionsAvailable, state.session.suggestionsWanted],
    (available, wanted) => ({ available, wanted })), ({ available, wanted }) => {
    toggleLabel.hidden = !available;
    toggle.checked = wanted;
  });
  watch(store, (state) => state.session.model, (model) => {
    setText(modelStatus, modelStatusText(model));
    const languages = model ? model.languages : [];
    language.replaceChildren(...languages.map((one) => option(one.code, one.name)));
    language.disabled = !model || !model.available;
    language.value = translationLanguage(store.getState().session).code;
  });
  watch(store, (state) => state.session.language, () => {
    const chosen = store.getState().session.language;
    language.value = chosen || translationLanguage(store.getState().session).code;
  });

  watch(store, (state) => state.channels, ({ list, current }) => {
    const me = store.getState().session.me;
    const myID = me ? me.id : null;
    reconcile(channels, list, (summary) => summary.channel.cid, (summary) => {
      const item = channelItem(summary, handlers);
      drawChannel(item, summary, current, myID);
      return item;
    }, (item, summary) => drawChannel(item, summary, current, myID));
  });
}

/**
 * @param {ChannelSummary} summary
 * @param {{ openChannel: (cid: string) => void }} handlers
 */
function channelItem(summary, handlers) {
  const item = el('li');
  const open = button('', () => handlers.openChannel(summary.channel.cid));
  open.dataset.cid = summary.channel.cid;
  open.append(el('span', 'channel-name'));
  item.append(open);
  return item;
}

/**
 * @param {HTMLElement} item
 * @param {ChannelSummary} summary
 * @param {string | null} current
 * @param {string | null} me
 */
function drawChannel(item, summary, current, me) {
  const open = /** @type {HTMLElement} */ (item.firstElementChild);
  const isCurrent = summary.channel.cid === current;
  if (isCurrent) open.setAttribute('aria-current', 'true');
  else open.removeAttribute('aria-current');
  const title = channelTitle(summary, me);
  setText(/** @type {Element} */ (open.firstElementChild), title);
  open.title = title; // the whole name, where the list cuts it short
  const unread = isCurrent ? 0 : summary.unread_count;
  let badge = open.querySelector('.unread');
  if (unread > 0) {
    if (!badge) {
      badge = el('span', 'unread');
      open.append(badge);
    }
    setText(badge, String(unread));
    badge.setAttribute('aria-label', `${unread} unread`);
  } else if (badge) badge.remove();
  // Unread messages that mention the reader, before the unread count.
  const mentions = isCurrent ? 0 : summary.unread_mentions || 0;
  let mark = open.querySelector('.mentions');
  if (mentions > 0) {
    if (!mark) {
      mark = el('span', 'mentions');
      open.insertBefore(mark, open.querySelector('.unread'));
    }
    setText(mark, `@${mentions}`);
    mark.setAttribute('aria-label', `${mentions} unread ${mentions === 1 ? 'mention' : 'mentions'}`);
  } else if (mark) mark.remove();
  // Followed threads with unread replies, before the rest: shown in the open channel too, since
  // opening a channel reads its messages, not its threads.
  const threads = summary.unread_threads || 0;
  let marker = open.querySelector('.threads-badge');
  if (threads > 0) {
    if (!marker) {
      marker = el('span', 'threads-badge');
      open.insertBefore(marker, open.querySelector('.mentions, .unread'));
    }
    const words = `${threads} ${threads === 1 ? 'thread' : 'threads'}`;
    setText(marker, words);
    marker.setAttribute('aria-label', `${words} with unread replies`);
    marker.setAttribute('title', `${words} with unread replies`);
  } else if (marker) marker.remove();
}
