// The channel list (with unread counts) and which channel is open.

/**
 * @typedef {import('./types.js').ChannelSummary} ChannelSummary
 * @typedef {import('./state.js').Action} Action
 *
 * @typedef {import('./types.js').ChannelListing} ChannelListing
 *
 * @typedef {{ list: ChannelSummary[], current: string | null, directory: ChannelListing[] | null }} ChannelsState
 *   directory: the public channels, once asked for
 *
 * @typedef {{ type: 'channels/loaded', channels: ChannelSummary[] }
 *   | { type: 'directory/loaded', channels: ChannelListing[] }
 *   | { type: 'channel/opened', cid: string, at: number }} ChannelsAction
 */

/** @type {ChannelsState} */
export const initialChannels = { list: [], current: null, directory: null };

/**
 * @param {ChannelsState} state
 * @param {Action} action
 * @returns {ChannelsState}
 */
export function channels(state, action) {
  switch (action.type) {
    case 'channels/loaded':
      return { ...state, list: action.channels };
    case 'directory/loaded':
      return { ...state, directory: action.channels };
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

/**
 * What a channel is called in the list and its header: its name, or for a direct message (its
 * id made by the server from its members, `type:!…`) the other members' names.
 *
 * @param {ChannelSummary} summary
 * @param {string | null} me
 */
export function channelTitle(summary, me) {
  if (!summary.channel.cid.includes(':!')) return summary.channel.name;
  const others = summary.members.filter((member) => member.id !== me).map((member) => member.name);
  return others.length ? others.join(', ') : summary.channel.name;
}
