// The channel list (with unread counts) and which channel is open.

/**
 * @typedef {import('./types.js').ChannelSummary} ChannelSummary
 * @typedef {import('./state.js').Action} Action
 *
 * @typedef {{ list: ChannelSummary[], current: string | null }} ChannelsState
 *
 * @typedef {{ type: 'channels/loaded', channels: ChannelSummary[] }
 *   | { type: 'channel/opened', cid: string, at: number }} ChannelsAction
 */

/** @type {ChannelsState} */
export const initialChannels = { list: [], current: null };

/**
 * @param {ChannelsState} state
 * @param {Action} action
 * @returns {ChannelsState}
 */
export function channels(state, action) {
  switch (action.type) {
    case 'channels/loaded':
      return { ...state, list: action.channels };
    case 'channel/opened':
      return { ...state, current: action.cid };
    case 'session/signedOut':
      return initialChannels;
    default:
      return state;
  }
}

/**
 * The open channel's summary, if it is in the list.
 *
 * @param {ChannelsState} state
 */
export function currentSummary(state) {
  return state.list.find((summary) => summary.channel.cid === state.current) || null;
}

/**
 * A member's name in the open channel (their id when they are not in the list).
 *
 * @param {ChannelsState} state
 * @param {string} userId
 */
export function nameOf(state, userId) {
  const summary = currentSummary(state);
  const member = summary && summary.members.find((user) => user.id === userId);
  return member ? member.name : userId;
}
