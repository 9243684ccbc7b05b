// The open channel: its title and topic, People (with Remove), "Summarize channel", the
// connection line, the messages (kept in view at the bottom while the reader is there), "Load
// older messages", and who is typing.

import { button, byId, el, reconcile, setText } from './dom.js';
import { watch } from './store.js';
import { select } from './state.js';
import { canRemove, channelTitle, currentSummary, isDirect, nameOf } from './channels.js';
import { unavailability } from './session.js';
import { typingText } from './typing.js';
import { createMessage, updateMessage } from './message-view.js';
import { messageModelBuilder } from './message-models.js';

/**
 * @typedef {import('./state.js').AppStore} AppStore
 * @typedef {import('./state.js').State} State
 * @typedef {import('./message-view.js').MessageModel} MessageModel
 * @typedef {import('./message-view.js').MessageHandlers} MessageHandlers
 */

/** How close to the bottom counts as "at the bottom". */
const NEAR_BOTTOM_PX = 100;

/**
 * @param {AppStore} store
 * @param {MessageHandlers & { loadOlder: () => void, summarize: () => void, addPerson: (cid: string, user: string) => Promise<boolean>,
 *   removeMember: (cid: string, user: string) => void }} handlers
 */
export function mountChannelView(store, handlers) {
  const view = byId('channel-view');
  const title = byId('channel-title');
  const topic = byId('channel-topic');
  const summarize = byId('summarize-thread', HTMLButtonElement);
  const status = byId('connection-status');
  const scroller = byId('message-scroller');
  const list = byId('message-list');
  const older = byId('load-older', HTMLButtonElement);
  const typing = byId('typing-indicator');
  const composer = byId('composer');
  const people = byId('channel-people', HTMLDetailsElement);
  const peopleList = byId('people-list');
  const addForm = byId('add-person-form', HTMLFormElement);
  const addInput = byId('add-person', HTMLInputElement);
  addForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const cid = store.getState().channels.current;
    if (cid && await handlers.addPerson(cid, addInput.value.trim())) addForm.reset();
  });

  older.addEventListener('click', () => handlers.loadOlder());
  summarize.addEventListener('click', () => handlers.summarize());

  const nearBottom = () => scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < NEAR_BOTTOM_PX;
  const scrollToBottom = () => { scroller.scrollTop = scroller.scrollHeight; };
  // Keep the newest message in view when the suggestions row or the window changes the
  // message area's size, as long as the reader was at the bottom.
  let stickToBottom = true;
  scroller.addEventListener('scroll', () => { stickToBottom = nearBottom(); });
  new ResizeObserver(() => { if (stickToBottom) scrollToBottom(); }).observe(scroller);

  watch(store, (state) => state.session.view, (shown) => { view.hidden = shown !== 'channels'; });
  // The thread panel opening or closing narrows or widens the list: the reader at the bottom
  // stays there (the browser's scroll anchoring would otherwise keep an older message in view).
  watch(store, (state) => state.threads.open !== null, (_open, before) => {
    if (before === undefined || !nearBottom()) return;
    stickToBottom = true;
    requestAnimationFrame(scrollToBottom);
  });
  watch(store, (state) => state.session.connection, (text) => setText(status, text));

  watch(store, select((state) => [state.channels, state.session.model, state.session.admin], (channels, model, admin) => ({ channels, model, admin })), ({ channels, admin }) => {
    const summary = currentSummary(channels);
    const me = store.getState().session.me;
    const myId = me ? me.id : null;
    setText(title, channels.current ? (summary ? channelTitle(summary, myId) : channels.current) : 'Pick a channel');
    setText(topic, summary && summary.channel.topic ? summary.channel.topic : '');
    // Who is in it, each with Remove where the reader may take them out; a direct message's
    // members are fixed, so it takes no one more.
    people.hidden = !summary;
    const members = summary ? summary.members.map((member) => ({ ...member, removable: canRemove(summary, member.id, myId, admin) })) : [];
    const key = JSON.stringify([summary && summary.channel.cid, members]);
    if (peopleList.dataset.key !== key) {
      peopleList.dataset.key = key;
      const cid = summary ? summary.channel.cid : '';
      peopleList.replaceChildren(...members.map((member) => {
        const item = el('li', 'person');
        item.dataset.user = member.id;
        item.append(el('span', 'person-name', member.name));
        if (member.removable) {
          const remove = button('Remove', () => handlers.removeMember(cid, member.id), 'link danger remove-person');
          remove.setAttribute('aria-label', `Remove ${member.name}`);
          item.append(remove);
        }
        return item;
      }));
    }
    addForm.hidden = !summary || isDirect(summary.channel.cid);
    composer.hidden = !channels.current;
    summarize.hidden = !channels.current;
    const reason = unavailability(store.getState().session);
    summarize.disabled = Boolean(reason);
    summarize.title = reason;
  });

  watch(store, select((state) => [state.typing, state.channels], (until, channels) => ({ until, channels })), ({ until, channels }) => {
    setText(typing, typingText(Object.keys(until).map((id) => nameOf(channels, id))));
  });

  const models = messageModels(store);
  watch(store, models, (shown, before) => {
    const fresh = !before || before.cid !== shown.cid || before.items.length === 0;
    const follow = nearBottom() || shown.lastIsMine;
    const firstBefore = list.firstElementChild;
    const fromBottom = scroller.scrollHeight - scroller.scrollTop;
    reconcile(list, shown.items, (model) => model.entry.message.id,
      (model) => createMessage(model, handlers), (node, model) => updateMessage(node, model, handlers));
    older.hidden = !shown.hasMore;
    const prepended = firstBefore && firstBefore.isConnected && list.firstElementChild !== firstBefore;
    if (prepended) scroller.scrollTop = scroller.scrollHeight - fromBottom; // the reader stays where they were
    else if (fresh || (follow && shown.grew)) scrollToBottom();
  });
}

/**
 * The message models of the open channel, rebuilt only when what they show changed.
 *
 * @param {AppStore} store
 * @returns {(state: State) => { cid: string | null, items: MessageModel[], hasMore: boolean, grew: boolean, lastIsMine: boolean }}
 */
function messageModels(store) {
  const build = messageModelBuilder(false);
  let lastCount = 0;
  return select(
    (state) => [state.messages, state.channels, state.session, state.actions, state.jobs, state.threads.roots],
    // The others are read from the state: listed so that a change of theirs draws again.
    (messages, _channels, _session, _actions, _jobs, _roots) => {
      const items = build(messages.order.map((id) => messages.byId[id]), store.getState());
      const grew = items.length > lastCount;
      lastCount = items.length;
      const last = items[items.length - 1];
      return { cid: messages.cid, items, hasMore: messages.hasMore, grew, lastIsMine: Boolean(last && last.mine) };
    });
}
