// Threads: what the open channel's roots show ("3 replies · 1 new") and the one thread open in
// the side panel (its root, its replies oldest first, the reader's own while they are being sent
// or after they failed, its summary). Replies never enter the channel's list (messages.js);
// their `message.new` events land here. A thread's "new" count is the replies from others since
// the reader's position in a thread they follow: the server's `unread_replies` on a page, then
// each reply from someone else while the reader follows (they started it, replied, were
// mentioned, or opened it); the reader's own reply, marking it read, or a `thread.read` from
// another tab clears it.

import { leftChannel } from './channels.js';
import { mentions } from './mentions.js';

/**
 * @typedef {import('./types.js').Message} Message
 * @typedef {import('./types.js').ThreadPage} ThreadPage
 * @typedef {import('./messages.js').MessageEntry} MessageEntry
 * @typedef {import('./messages.js').DeliveryStatus} DeliveryStatus
 * @typedef {import('./state.js').Action} Action
 * @typedef {import('./state.js').State} State
 *
 * @typedef {object} RootInfo a thread's root in the open channel, as its line under it shows
 * @property {number} replies how many replies (deleted ones count, as the server counts them)
 * @property {string | null} lastReplyAt
 * @property {number} unread replies from others the reader has not read (0 unless following)
 * @property {boolean} following whether the reader follows the thread
 *
 * @typedef {object} ThreadSummary "Summarize thread" in the panel: a model job like the channel's
 * @property {boolean} open
 * @property {number} nonce
 * @property {string | null} jobId
 * @property {string | null} error
 *
 * @typedef {object} OpenThread the thread shown in the side panel
 * @property {string} id its root's id
 * @property {string} cid
 * @property {Message | null} parent the root (null until known)
 * @property {string[]} order reply ids, oldest first
 * @property {Record<string, MessageEntry>} byId
 * @property {boolean} hasMore older replies wait on the server
 * @property {'loading' | 'ready' | 'failed'} status
 * @property {string} error why it could not be read
 *
 * @typedef {object} ThreadsState
 * @property {string | null} cid the open channel, whose roots these are
 * @property {Record<string, RootInfo>} roots by root id: those with replies or news
 * @property {OpenThread | null} open
 * @property {ThreadSummary} summary
 *
 * @typedef {{ type: 'thread/opened', cid: string, id: string, at: number }
 *   | { type: 'thread/page', id: string, page: ThreadPage, older: boolean }
 *   | { type: 'thread/failed', id: string, error: string }
 *   | { type: 'thread/closed' }
 *   | { type: 'thread/markedRead', id: string }
 *   | { type: 'threadSummary/started', nonce: number }
 *   | { type: 'threadSummary/job', nonce: number, jobId: string }
 *   | { type: 'threadSummary/failed', nonce: number, error: string }
 *   | { type: 'threadSummary/closed' }} ThreadsAction
 */

/** @type {ThreadSummary} */
const closedSummary = { open: false, nonce: 0, jobId: null, error: null };

/** @type {ThreadsState} */
export const initialThreads = { cid: null, roots: {}, open: null, summary: closedSummary };

/**
 * @param {ThreadsState} state
 * @param {Action} action
 * @param {State} [root] the whole state before the action (who the reader is, the channel's messages)
 * @returns {ThreadsState}
 */
export function threads(state, action, root) {
  if (state.cid !== null && leftChannel(action, root) === state.cid) return initialThreads;
  const me = root && root.session.me ? root.session.me.id : null;
  switch (action.type) {
    case 'channel/opened':
      return { ...initialThreads, cid: action.cid, summary: { ...closedSummary, nonce: state.summary.nonce + 1 } };
    case 'session/signedOut':
      return initialThreads;
    case 'messages/page':
      return action.cid === state.cid ? withPage(state, action.messages, action.unreadReplies || [], me, action.older) : state;
    case 'thread/opened': {
      if (action.cid !== state.cid) return state;
      const known = root && root.messages.byId[action.id];
      const parent = known ? known.message : null;
      /** @type {OpenThread} */
      const open = { id: action.id, cid: action.cid, parent, order: [], byId: {}, hasMore: false, status: 'loading', error: '' };
      return { ...state, open, summary: { ...closedSummary, nonce: state.summary.nonce + 1 } };
    }
    case 'thread/page':
      return threadPage(state, action.id, action.page, action.older);
    case 'thread/failed':
      if (!state.open || state.open.id !== action.id) return state;
      return { ...state, open: { ...state.open, status: 'failed', error: action.error } };
    case 'thread/closed':
      return state.open ? { ...state, open: null, summary: { ...closedSummary, nonce: state.summary.nonce + 1 } } : state;
    case 'thread/markedRead':
      return read(state, action.id);
    case 'message/local':
      return action.message.parent_id ? upsertReply(state, action.message, action.status) : state;
    case 'message/changed':
      return changed(state, action.message);
    case 'server/event': {
      const event = action.event;
      if (event.type === 'message.new') return event.message.parent_id ? newReply(state, event.message, me, root) : state;
      if (event.type === 'message.updated' || event.type === 'message.deleted') return changed(state, event.message);
      if (event.type === 'thread.read') return event.user_id === me && event.cid === state.cid ? read(state, event.parent_id) : state;
      return state;
    }
    case 'threadSummary/started':
      return { ...state, summary: { open: true, nonce: action.nonce, jobId: null, error: null } };
    case 'threadSummary/job':
      return action.nonce === state.summary.nonce ? { ...state, summary: { ...state.summary, jobId: action.jobId } } : state;
    case 'threadSummary/failed':
      return action.nonce === state.summary.nonce ? { ...state, summary: { ...state.summary, error: action.error } } : state;
    case 'threadSummary/closed':
      return { ...state, summary: { ...closedSummary, nonce: state.summary.nonce + 1 } };
    default:
      return state;
  }
}

/**
 * A page of the channel: its roots' reply counts, and the threads the reader follows with
 * unread replies. The newest page says how things stand now; an older one adds its roots.
 *
 * @param {ThreadsState} state
 * @param {Message[]} messages
 * @param {Array<{ parent_id: string, count: number }>} unreadReplies
 * @param {string | null} me
 * @param {boolean} older
 * @returns {ThreadsState}
 */
function withPage(state, messages, unreadReplies, me, older) {
  /** @type {Record<string, number>} */
  const unread = {};
  for (const one of unreadReplies) unread[one.parent_id] = one.count;
  const roots = older ? { ...state.roots } : {};
  for (const message of messages) {
    const replies = message.reply_count || 0;
    const count = unread[message.id] || 0;
    if (replies === 0 && count === 0) continue;
    const known = state.roots[message.id];
    roots[message.id] = {
      replies,
      lastReplyAt: message.last_reply_at || null,
      unread: count,
      // Who started a thread follows it once someone replies; unread replies mean following.
      following: count > 0 || message.user_id === me || Boolean(known && known.following),
    };
  }
  return { ...state, roots };
}

/**
 * The open thread's page: its root and replies; the newest page also says where the reader
 * stands in it.
 *
 * @param {ThreadsState} state
 * @param {string} id
 * @param {ThreadPage} page
 * @param {boolean} older
 * @returns {ThreadsState}
 */
function threadPage(state, id, page, older) {
  const open = state.open;
  if (!open || open.id !== id) return state;
  const fresh = page.messages.filter((message) => !open.byId[message.id]);
  const byId = { ...open.byId };
  for (const message of fresh) byId[message.id] = { message, status: 'sent' };
  const ids = fresh.map((message) => message.id);
  const order = older ? [...ids, ...open.order] : [...open.order, ...ids];
  const next = { ...open, parent: page.parent, order, byId, hasMore: page.has_more, status: /** @type {'ready'} */ ('ready'), error: '' };
  if (older) return { ...state, open: next };
  const known = state.roots[page.parent.id];
  const replies = Math.max(page.parent.reply_count || 0, known ? known.replies : 0);
  /** @type {RootInfo} */
  const info = {
    replies,
    lastReplyAt: page.parent.last_reply_at || (known ? known.lastReplyAt : null),
    unread: page.unread,
    following: page.following,
  };
  return { ...state, open: next, roots: { ...state.roots, [page.parent.id]: info } };
}

/**
 * The reader has read a thread (here or in another tab): no news in it, and they follow it.
 *
 * @param {ThreadsState} state
 * @param {string} id the root
 * @returns {ThreadsState}
 */
function read(state, id) {
  const known = state.roots[id];
  if (!known) return state;
  if (known.unread === 0 && known.following) return state;
  return { ...state, roots: { ...state.roots, [id]: { ...known, unread: 0, following: true } } };
}

/**
 * A reply arrived (`message.new`): one more on its root's line, news for a follower, and in the
 * panel when its thread is open.
 *
 * @param {ThreadsState} state
 * @param {Message} message a reply
 * @param {string | null} me
 * @param {State} [root]
 * @returns {ThreadsState}
 */
function newReply(state, message, me, root) {
  if (message.cid !== state.cid || !message.parent_id) return state;
  const parentId = message.parent_id;
  const shown = state.open && state.open.id === parentId ? upsertReply(state, message, 'sent') : state;
  const known = shown.roots[parentId];
  const loaded = root && root.messages.byId[parentId];
  const parent = loaded ? loaded.message : shown.open && shown.open.id === parentId ? shown.open.parent : null;
  if (!known && !parent) return shown; // a root the page has not loaded: the server counts it
  const before = known || { replies: parent && parent.reply_count || 0, lastReplyAt: null, unread: 0, following: false };
  const mine = message.user_id === me;
  // The reader follows a thread they started, replied to, or are mentioned in.
  const following = before.following || mine || Boolean(parent && parent.user_id === me) || Boolean(me && mentions(me, message.text));
  /** @type {RootInfo} */
  const info = {
    replies: before.replies + 1,
    lastReplyAt: message.created_at,
    // Their own reply moves their position past everything before it.
    unread: mine ? 0 : following ? before.unread + 1 : 0,
    following,
  };
  return { ...shown, roots: { ...shown.roots, [parentId]: info } };
}

/**
 * A reply of the open thread, added at the end or updated where it stands (what the server
 * stored wins over the page's own copy, as in the channel).
 *
 * @param {ThreadsState} state
 * @param {Message} message
 * @param {DeliveryStatus} status
 * @returns {ThreadsState}
 */
function upsertReply(state, message, status) {
  const open = state.open;
  if (!open || message.parent_id !== open.id || message.cid !== open.cid) return state;
  const known = open.byId[message.id];
  if (known && known.status === 'sent' && status !== 'sent') return state;
  const byId = { ...open.byId, [message.id]: { message, status } };
  return { ...state, open: { ...open, byId, order: known ? open.order : [...open.order, message.id] } };
}

/**
 * A message as it now is (edited, reacted to, deleted): a reply shown in the panel, or a root
 * (whose change carries its reply count).
 *
 * @param {ThreadsState} state
 * @param {Message} message
 * @returns {ThreadsState}
 */
function changed(state, message) {
  const open = state.open;
  if (message.parent_id) {
    const known = open && open.id === message.parent_id ? open.byId[message.id] : undefined;
    if (!open || !known) return state;
    if (known.message.deleted_at && !message.deleted_at) return state; // an older copy
    return { ...state, open: { ...open, byId: { ...open.byId, [message.id]: { message, status: 'sent' } } } };
  }
  let next = state;
  if (open && open.id === message.id && !(open.parent && open.parent.deleted_at && !message.deleted_at)) {
    next = { ...next, open: { ...open, parent: message } };
  }
  const known = next.roots[message.id];
  if (known && typeof message.reply_count === 'number' && message.reply_count !== known.replies) {
    next = { ...next, roots: { ...next.roots, [message.id]: { ...known, replies: message.reply_count } } };
  }
  return next;
}

/**
 * What a root's line says: "2 replies · 1 new", or '' when it has none.
 *
 * @param {RootInfo | undefined} info
 */
export function repliesText(info) {
  if (!info || info.replies === 0) return '';
  const replies = `${info.replies} ${info.replies === 1 ? 'reply' : 'replies'}`;
  return info.unread > 0 ? `${replies} · ${info.unread} new` : replies;
}

/**
 * Whether a message is offered Reply: a top-level message that stands, once the server has it.
 *
 * @param {MessageEntry} entry
 */
export function offersReply(entry) {
  return entry.status === 'sent' && !entry.message.parent_id && !entry.message.deleted_at;
}

/**
 * The composer key of a thread's draft (a channel's is its cid).
 *
 * @param {string} id the root
 */
export function threadComposerKey(id) {
  return `thread:${id}`;
}
