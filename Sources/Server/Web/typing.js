// Who is typing in the open channel, each until a time (a `typing.stop` may never come).

/**
 * @typedef {import('./state.js').Action} Action
 * @typedef {import('./state.js').State} State
 *
 * @typedef {Record<string, number>} TypingState user id → until when (ms since 1970)
 * @typedef {{ type: 'typing/expire', at: number }} TypingAction
 */

/** How long a `typing.start` is shown without another. */
export const TYPING_SHOWN_MS = 6000;

/**
 * @param {TypingState} state
 * @param {Action} action
 * @param {State} root the state before this action (who is signed in, which channel is open)
 * @returns {TypingState}
 */
export function typing(state, action, root) {
  switch (action.type) {
    case 'channel/opened':
    case 'session/signedOut':
      return Object.keys(state).length ? {} : state;
    case 'typing/expire': {
      const left = Object.entries(state).filter(([, until]) => until > action.at);
      return left.length === Object.keys(state).length ? state : Object.fromEntries(left);
    }
    case 'server/event': {
      const event = action.event;
      const me = root.session.me && root.session.me.id;
      if (event.type === 'message.new' && event.message.cid === root.channels.current) {
        return without(state, event.message.user_id);
      }
      if ((event.type === 'typing.start' || event.type === 'typing.stop') && event.cid === root.channels.current &&
          event.user_id !== me) {
        if (event.type === 'typing.stop') return without(state, event.user_id);
        return { ...without(state, event.user_id), [event.user_id]: action.at + TYPING_SHOWN_MS };
      }
      return state;
    }
    default:
      return state;
  }
}

/**
 * @param {TypingState} state
 * @param {string} userId
 */
function without(state, userId) {
  if (!(userId in state)) return state;
  const { [userId]: _gone, ...rest } = state;
  return rest;
}

/**
 * "Bob is typing…", "Bob, Carol are typing…", or ''.
 *
 * @param {string[]} names
 */
export function typingText(names) {
  if (names.length === 0) return '';
  return names.length === 1 ? `${names[0]} is typing…` : `${names.join(', ')} are typing…`;
}
