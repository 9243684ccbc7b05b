// The open channel's messages, oldest first: those from the server, and the reader's own while
// they are being sent or after they failed (kept with their id, so a retry is stored once).

/**
 * @typedef {import('./types.js').Message} Message
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
 *
 * @typedef {{ type: 'messages/page', cid: string, messages: Message[], hasMore: boolean, older: boolean }
 *   | { type: 'message/local', message: Message, status: DeliveryStatus }
 *   | { type: 'messages/found', id: string, nonce: number }
 *   | { type: 'messages/foundCleared', nonce: number }
 *   | { type: 'message/editing', id: string | null }
 *   | { type: 'message/deleting', id: string | null }
 *   | { type: 'message/changed', message: Message }} MessagesAction
 */

/** @type {MessagesState} */
export const initialMessages = { cid: null, order: [], byId: {}, hasMore: false, found: null, editing: null, deleting: null };

/**
 * @param {MessagesState} state
 * @param {Action} action
 * @returns {MessagesState}
 */
export function messages(state, action) {
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
  if (message.cid !== state.cid) return state;
  const known = state.byId[message.id];
  // What the server stored wins over the page's own copy, and a late "sending" never hides it.
  if (known && known.status === 'sent' && status !== 'sent') return state;
  const byId = { ...state.byId, [message.id]: { message, status } };
  return { ...state, byId, order: known ? state.order : [...state.order, message.id] };
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
  if (message.cid !== state.cid || !known) return state;
  // Events and answers may arrive in either order: an older copy never replaces a newer one.
  if (known.message.deleted_at && !message.deleted_at) return state;
  const gone = Boolean(message.deleted_at);
  return {
    ...state,
    byId: { ...state.byId, [message.id]: { message, status: 'sent' } },
    editing: gone && state.editing === message.id ? null : state.editing,
    deleting: gone && state.deleting === message.id ? null : state.deleting,
  };
}
