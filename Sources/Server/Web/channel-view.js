// The open channel: its title and topic, People (with Remove), "Summarize thread", the
// connection line, the messages (kept in view at the bottom while the reader is there), "Load
// older messages", and who is typing.

import { button, byId, el, reconcile, setText } from './dom.js';
import { watch } from './store.js';
import { select } from './state.js';
import { canRemove, channelTitle, currentSummary, isDirect, nameOf } from './channels.js';
import { offersHistory } from './messages.js';
import { unavailability } from './session.js';
import { calendarView, translationView } from './actions.js';
import { mentionsDate } from './dates.js';
import { typingText } from './typing.js';
import { createMessage, updateMessage } from './message-view.js';

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

  const models = messageModels();
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
 * @returns {(state: State) => { cid: string | null, items: MessageModel[], hasMore: boolean, grew: boolean, lastIsMine: boolean }}
 */
function messageModels() {
  /** @type {Map<string, MessageModel>} */
  let cache = new Map();
  let lastCount = 0;
  return select(
    (state) => [state.messages, state.channels, state.session, state.actions, state.jobs],
    (messages, channels, session, actions, jobs) => {
      const me = session.me && session.me.id;
      const unavailable = unavailability(session);
      /** @type {Map<string, MessageModel>} */
      const next = new Map();
      const items = messages.order.map((id) => {
        const entry = messages.byId[id];
        const request = actions.translations[id];
        const translation = request ? { ...translationView(request, jobs), code: request.code } : null;
        const calendarRequest = actions.calendars[id];
        const model = {
          entry,
          mine: entry.message.user_id === me,
          me: me || null,
          author: nameOf(channels, entry.message.user_id),
          offersCalendar: mentionsDate(entry.message.text),
          unavailable,
          translation,
          calendar: calendarRequest ? calendarView(calendarRequest, jobs) : null,
          found: Boolean(messages.found && messages.found.id === id),
          editing: messages.editing === id,
          deleting: messages.deleting === id,
          canDelete: entry.message.user_id === me || session.admin,
          offersHistory: offersHistory(entry.message, me || null, session.admin),
          history: messages.history && messages.history.id === id ? messages.history : null,
          reactions: (entry.message.reactions || []).map((reaction) => ({
            emoji: reaction.emoji,
            count: reaction.count,
            mine: Boolean(me && reaction.users.includes(me)),
            names: reaction.users.map((user) => nameOf(channels, user)).join(', '),
          })),
        };
        const old = cache.get(id);
        const same = old && old.entry === model.entry && old.mine === model.mine && old.author === model.author &&
          old.unavailable === model.unavailable && old.found === model.found && sameJSON(old.translation, model.translation) &&
          sameJSON(old.calendar, model.calendar) && old.me === model.me && old.editing === model.editing && old.deleting === model.deleting &&
          old.canDelete === model.canDelete && sameJSON(old.reactions, model.reactions) &&
          old.offersHistory === model.offersHistory && old.history === model.history;
        const kept = same && old ? old : model;
        next.set(id, kept);
        return kept;
      });
      cache = next;
      const grew = items.length > lastCount;
      lastCount = items.length;
      const last = items[items.length - 1];
      return { cid: messages.cid, items, hasMore: messages.hasMore, grew, lastIsMine: Boolean(last && last.mine) };
    });
}

/**
 * @param {unknown} a
 * @param {unknown} b
 */
function sameJSON(a, b) {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
