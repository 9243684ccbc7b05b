// What each message view shows, built from the state for a list of messages (the channel's, or
// a thread's root and replies), reusing the previous model of a message whose inputs did not
// change, so that only changed messages are drawn again.

import { nameOf } from './channels.js';
import { offersHistory } from './messages.js';
import { unavailability } from './session.js';
import { calendarView, translationView } from './actions.js';
import { mentionsDate } from './dates.js';
import { offersReply, repliesText } from './threads.js';

/**
 * @typedef {import('./state.js').State} State
 * @typedef {import('./messages.js').MessageEntry} MessageEntry
 * @typedef {import('./message-view.js').MessageModel} MessageModel
 */

/**
 * A builder of message models that remembers the last ones it made.
 *
 * @param {boolean} inThread whether the messages are shown in the thread panel (no Reply, no
 *   replies line: the panel is the thread)
 * @returns {(entries: MessageEntry[], state: State) => MessageModel[]}
 */
export function messageModelBuilder(inThread) {
  /** @type {Map<string, MessageModel>} */
  let cache = new Map();
  return (entries, state) => {
    const { messages, channels, session, actions, jobs, threads } = state;
    const me = session.me && session.me.id;
    const unavailable = unavailability(session);
    /** @type {Map<string, MessageModel>} */
    const next = new Map();
    const items = entries.map((entry) => {
      const id = entry.message.id;
      const request = actions.translations[id];
      const translation = request ? { ...translationView(request, jobs), code: request.code } : null;
      const calendarRequest = actions.calendars[id];
      const root = inThread ? undefined : threads.roots[id];
      /** @type {MessageModel} */
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
        offersReply: !inThread && offersReply(entry),
        replies: repliesText(root),
        newReplies: Boolean(root && root.unread > 0),
        attachments: entry.message.deleted_at ? [] : entry.message.attachments || [],
      };
      const old = cache.get(id);
      const kept = old && same(old, model) ? old : model;
      next.set(id, kept);
      return kept;
    });
    cache = next;
    return items;
  };
}

/**
 * @param {MessageModel} old
 * @param {MessageModel} model
 */
function same(old, model) {
  // The same entry has the same files.
  return old.entry === model.entry && old.mine === model.mine && old.author === model.author &&
    old.unavailable === model.unavailable && old.found === model.found && sameJSON(old.translation, model.translation) &&
    sameJSON(old.calendar, model.calendar) && old.me === model.me && old.editing === model.editing && old.deleting === model.deleting &&
    old.canDelete === model.canDelete && sameJSON(old.reactions, model.reactions) &&
    old.offersHistory === model.offersHistory && old.history === model.history &&
    old.offersReply === model.offersReply && old.replies === model.replies && old.newReplies === model.newReplies;
}

/**
 * @param {unknown} a
 * @param {unknown} b
 */
function sameJSON(a, b) {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
