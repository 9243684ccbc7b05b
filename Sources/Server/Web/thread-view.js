// The thread panel, at the right of the open channel (over it on a narrow screen): its title and
// channel, "Summarize thread" and its result, Close, the root, "Load older replies", the
// replies (drawn by message-view.js, so editing, deleting, reacting and mentions work as in the
// channel), kept in view at the bottom while the reader is there. Its composer, chips and
// mention choices are mounted beside it by app.js.

import { byId, find, modelLabel, reconcile, setText } from './dom.js';
import { watch } from './store.js';
import { select } from './state.js';
import { channelTitle, currentSummary } from './channels.js';
import { unavailability } from './session.js';
import { summaryView } from './summary.js';
import { repliesText } from './threads.js';
import { createMessage, updateMessage } from './message-view.js';
import { messageModelBuilder } from './message-models.js';

/**
 * @typedef {import('./state.js').AppStore} AppStore
 * @typedef {import('./message-view.js').MessageHandlers} MessageHandlers
 */

/** How close to the bottom counts as "at the bottom". */
const NEAR_BOTTOM_PX = 100;

/**
 * @param {AppStore} store
 * @param {MessageHandlers & { close: () => void, loadOlder: () => void, summarize: () => void, closeSummary: () => void }} handlers
 */
export function mountThreadView(store, handlers) {
  const chat = byId('chat');
  const panel = byId('thread-panel');
  const where = byId('thread-channel');
  const summarize = byId('thread-summarize', HTMLButtonElement);
  const summaryPanel = byId('thread-summary-panel');
  const summaryText = find(summaryPanel, '.summary-text');
  const summaryStatus = find(summaryPanel, '.summary-status');
  const note = byId('thread-note');
  const scroller = byId('thread-scroller');
  const rootList = byId('thread-root');
  const count = byId('thread-count');
  const older = byId('thread-older', HTMLButtonElement);
  const replies = byId('thread-replies');
  const composer = byId('thread-composer', HTMLFormElement);

  byId('thread-close').addEventListener('click', () => handlers.close());
  summarize.addEventListener('click', () => handlers.summarize());
  find(summaryPanel, '.summary-close').addEventListener('click', () => handlers.closeSummary());
  older.addEventListener('click', () => handlers.loadOlder());
  panel.addEventListener('keydown', (event) => {
    // Not from a text box: there Escape closes an edit or the mention choices.
    if (event.key === 'Escape' && !(event.target instanceof HTMLTextAreaElement || event.target instanceof HTMLInputElement)) handlers.close();
  });

  const nearBottom = () => scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < NEAR_BOTTOM_PX;
  const scrollToBottom = () => { scroller.scrollTop = scroller.scrollHeight; };

  watch(store, select((state) => [state.threads.open !== null, state.session.view], (open, view) => ({ open, view })), ({ open, view }) => {
    const shown = open && view === 'channels';
    panel.hidden = !shown;
    chat.classList.toggle('thread-open', shown);
  });

  watch(store, select((state) => [state.threads.open, state.threads.roots, state.channels, state.session],
    (open, roots, channels, session) => ({ open, roots, channels, session })), ({ open, roots, channels, session }) => {
    if (!open) return;
    const summary = currentSummary(channels);
    setText(where, summary ? `in ${channelTitle(summary, session.me ? session.me.id : null)}` : '');
    const reason = unavailability(session);
    summarize.disabled = Boolean(reason) || open.status !== 'ready';
    summarize.title = reason;
    // A thread whose first message was deleted keeps its replies and takes no new ones (the
    // server refuses them).
    const closed = Boolean(open.parent && open.parent.deleted_at);
    composer.hidden = closed;
    setText(note, open.status === 'loading' ? 'Loading the thread…' : open.status === 'failed' ? `The thread cannot be shown: ${open.error}`
      : closed ? 'Its first message was deleted: this thread takes no new replies.' : '');
    const replies = repliesText(roots[open.id] ? { ...roots[open.id], unread: 0 } : undefined);
    setText(count, open.status === 'ready' ? replies || 'No replies yet' : '');
    older.hidden = !open.hasMore;
  });

  watch(store, select((state) => [state.threads.summary, state.jobs], (summary, jobs) => ({ summary, jobs })), ({ summary, jobs }) => {
    summaryPanel.hidden = !summary.open;
    if (!summary.open) {
      setText(summaryText, '');
      setText(summaryStatus, '');
      return;
    }
    const shown = summaryView(summary, jobs);
    summaryPanel.dataset.status = shown.status;
    setText(summaryText, shown.text);
    if (summaryStatus.textContent !== `${shown.note}${shown.model ? `by ${shown.model}` : ''}`) {
      summaryStatus.replaceChildren(shown.note, ...modelLabel(shown.model));
    }
  });

  const buildRoot = messageModelBuilder(true);
  const buildReplies = messageModelBuilder(true);
  let lastId = '';
  /** @type {import('./messages.js').MessageEntry | null} */
  let rootEntry = null;
  let lastCount = 0;
  const inputs = select((state) => [state.threads.open, state.messages, state.channels, state.session, state.actions, state.jobs],
    // The others are read from the state: listed so that a change of theirs draws again.
    (open, _messages, _channels, _session, _actions, _jobs) => ({ open }));
  watch(store, inputs, ({ open }) => {
    if (!open) {
      lastId = '';
      rootList.replaceChildren();
      replies.replaceChildren();
      return;
    }
    const state = store.getState();
    const fresh = open.id !== lastId;
    const follow = nearBottom();
    const firstBefore = replies.firstElementChild;
    const fromBottom = scroller.scrollHeight - scroller.scrollTop;
    // The same entry while the root is the same message, so that it is not drawn again.
    if (open.parent && (!rootEntry || rootEntry.message !== open.parent)) rootEntry = { message: open.parent, status: 'sent' };
    const rootModels = open.parent && rootEntry ? buildRoot([rootEntry], state) : [];
    reconcile(rootList, rootModels, (model) => model.entry.message.id,
      (model) => createMessage(model, handlers), (node, model) => updateMessage(node, model, handlers));
    const items = buildReplies(open.order.map((/** @type {string} */ id) => open.byId[id]), state);
    reconcile(replies, items, (model) => model.entry.message.id,
      (model) => createMessage(model, handlers), (node, model) => updateMessage(node, model, handlers));
    const grew = items.length > lastCount;
    const last = items[items.length - 1];
    const prepended = firstBefore && firstBefore.isConnected && replies.firstElementChild !== firstBefore;
    if (prepended) scroller.scrollTop = scroller.scrollHeight - fromBottom;
    else if (fresh || (grew && (follow || (last && last.mine)))) scrollToBottom();
    lastId = open.id;
    lastCount = items.length;
  });
}
