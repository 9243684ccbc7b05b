// The open channel's top-level messages, oldest first: those from the server, and the reader's
// own while they are being sent or after they failed (kept with their id, so a retry is stored
// once); and the one edited message whose earlier versions are shown. Replies live in their
// threads (threads.js), never in this list; editing, deleting and history apply to them too.

import { leftChannel } from './channels.js';

/**
 * @typedef {import('./types.js').Message} Message
 * @typedef {import('./types.js').MessageEdit} MessageEdit
 * @typedef {import('./state.js').Action} Action
 * @typedef {import('./state.js').State} State
 *
 * @typedef {'sending' | 'sent' | 'failed'} DeliveryStatus
 * @typedef {{ message: Message, status: DeliveryStatus }} MessageEntry
 * @typedef {object} MessagesState
 * @property {string | null} cid the channel these are of
 * @property {string[]} order message ids, oldest first
 * @property {Record<string, MessageEntry>} byId
 * @property {boolean} hasMore older messages wait on the server
 * @property {{ id: string, nonce: number } | null} found a search result being shown
 * @property {string | null} editing the reader's message being edited
 * @property {string | null} deleting the reader's message whose deletion waits to be confirmed
 * @property {EditHistory | null} history the message whose edit history is shown
 *
 * @typedef {object} EditHistory GET /api/messages/{id}/edits, for its author and administrators
 * @property {string} id the message
 * @property {'loading' | 'done' | 'failed'} status
 * @property {MessageEdit[]} edits the texts before each edit, oldest first
 * @property {string} error why it could not be read
 *
 * @typedef {object} Version one text a message had, and when
 * @property {string} text
 * @property {string} from when it was written (the message's creation, or the edit that made it)
 * @property {string | null} until when an edit replaced it (null: the text it has now)
 *
 * @typedef {{ type: 'messages/page', cid: string, messages: Message[], hasMore: boolean, older: boolean, unreadReplies?: import('./types.js').ThreadUnread[] }
 *   | { type: 'message/local', message: Message, status: DeliveryStatus }
 *   | { type: 'messages/found', id: string, nonce: number }
 *   | { type: 'messages/foundCleared', nonce: number }
 *   | { type: 'message/editing', id: string | null }
 *   | { type: 'message/deleting', id: string | null }
 *   | { type: 'message/changed', message: Message }
 *   | { type: 'history/requested', id: string }
 *   | { type: 'history/loaded', id: string, edits: MessageEdit[] }
 *   | { type: 'history/failed', id: string, error: string }
 *   | { type: 'history/closed' }} MessagesAction
 */

/** @type {MessagesState} */
export const initialMessages = { cid: null, order: [], byId: {}, hasMore: false, found: null, editing: null, deleting: null, history: null };

/**
 * @param {MessagesState} state
 * @param {Action} action
 * @param {State} [root] the whole state before the action (who the reader is)
 * @returns {MessagesState}
 */
export function messages(state, action, root) {
  // The open channel, left (or the reader removed from it): nothing of it stays shown.
  if (state.cid !== null && leftChannel(action, root) === state.cid) return initialMessages;
  switch (action.type) {
    case 'channel/opened':
      return { ...initialMessages, cid: action.cid };
    case 'session/signedOut':
      return initialMessages;
    case 'messages/page': {
      if (action.cid !== state.cid) return state;
      const fresh = action.messages.filter((message) => !state.byId[message.id]);
      const byId = { ...state.byId };
      for (const message of fresh) byId[message.id] = { message, status: 'sent' };
      const ids = fresh.map((message) => message.id);
      const order = action.older ? [...ids, ...state.order] : [...state.order, ...ids];
      return { ...state, order, byId, hasMore: action.hasMore };
    }
    case 'message/local':
      return upsert(state, action.message, action.status);
    case 'server/event':
      if (action.event.type === 'message.new') return upsert(state, action.event.message, 'sent');
      if (action.event.type === 'message.updated' || action.event.type === 'message.deleted') return replace(state, action.event.message);
      return state;
    case 'message/changed':
      return replace(state, action.message);
    case 'message/editing':
      return { ...state, editing: action.id, deleting: null };
    case 'message/deleting':
      return { ...state, deleting: action.id, editing: null };
    case 'messages/found':
      return { ...state, found: { id: action.id, nonce: action.nonce } };
    case 'messages/foundCleared':
      return state.found && state.found.nonce === action.nonce ? { ...state, found: null } : state;
    case 'history/requested':
      return state.byId[action.id] || openReply(root, action.id) ? { ...state, history: { id: action.id, status: 'loading', edits: [], error: '' } } : state;
    case 'history/loaded':
      if (!state.history || state.history.id !== action.id) return state;
      return { ...state, history: { id: action.id, status: 'done', edits: action.edits, error: '' } };
    case 'history/failed':
      if (!state.history || state.history.id !== action.id) return state;
      return { ...state, history: { id: action.id, status: 'failed', edits: [], error: action.error } };
    case 'history/closed':
      return state.history ? { ...state, history: null } : state;
    default:
      return state;
  }
}

/**
 * Adds a message of the open channel at the end, or updates it where it stands.
 *
 * @param {MessagesState} state
 * @param {Message} message
 * @param {DeliveryStatus} status
 * @returns {MessagesState}
 */
function upsert(state, message, status) {
  if (message.cid !== state.cid || message.parent_id) return state;
  const known = state.byId[message.id];
  // What the server stored wins over the page's own copy, and a late "sending" never hides it.
  if (known && known.status === 'sent' && status !== 'sent') return state;
  const byId = { ...state.byId, [message.id]: { message, status } };
  return { ...state, byId, order: known ? state.order : [...state.order, message.id] };
}

/**
 * Whether `id` is a reply shown in the open thread (its history is shown as a message's is).
 *
 * @param {State | undefined} root
 * @param {string} id
 */
function openReply(root, id) {
  const open = root && root.threads.open;
  return Boolean(open && open.byId[id]);
}

/**
 * A message shown already, as it now is (edited, reacted to, deleted); one not shown stays
 * unshown (it is in the history the page has not loaded).
 *
 * @param {MessagesState} state
 * @param {Message} message
 * @returns {MessagesState}
 */
function replace(state, message) {
  const known = state.byId[message.id];
  if (message.cid !== state.cid) return state;
  // A reply (shown in its thread) is not in the list, but its edit box or history may be open.
  if (!known) return message.deleted_at ? forget(state, message.id) : state;
  // Events and answers may arrive in either order: an older copy never replaces a newer one.
  if (known.message.deleted_at && !message.deleted_at) return state;
  const gone = Boolean(message.deleted_at);
  return {
    ...forget(state, gone ? message.id : ''),
    byId: { ...state.byId, [message.id]: { message, status: 'sent' } },
  };
}

/**
 * Without the edit box, the deletion question or the history of a message that is gone.
 *
 * @param {MessagesState} state
 * @param {string} id
 * @returns {MessagesState}
 */
function forget(state, id) {
  const history = state.history && state.history.id === id ? null : state.history;
  if (state.editing !== id && state.deleting !== id && history === state.history) return state;
  return {
    ...state,
    editing: state.editing === id ? null : state.editing,
    deleting: state.deleting === id ? null : state.deleting,
    // A deletion takes the edits with it.
    history,
  };
}

/**
 * Every text a message had, oldest first, each with when it was written and replaced: the
 * edits' texts (each the text before that edit), then the text it has now.
 *
 * @param {Message} message
 * @param {MessageEdit[]} edits oldest first, as the server answers
 * @returns {Version[]}
 */
export function versions(message, edits) {
  /** @type {Version[]} */
  const shown = [];
  let from = message.created_at;
  for (const edit of edits) {
    shown.push({ text: edit.text, from, until: edit.edited_at });
    from = edit.edited_at;
  }
  shown.push({ text: message.text, from, until: null });
  return shown;
}

/**
 * Whether the reader is offered a message's edit history: an edited message that still stands,
 * and theirs (an administrator: anyone's), as the server allows.
 *
 * @param {Message} message
 * @param {string | null} me
 * @param {boolean} admin
 */
export function offersHistory(message, me, admin) {
  return Boolean(message.edited_at && !message.deleted_at && (admin || (me !== null && message.user_id === me)));
}
