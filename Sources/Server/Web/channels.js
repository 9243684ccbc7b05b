// The channel list (with unread counts) and which channel is open; what its events change at
// once (a new name or topic, a member gone, the reader gone: the channel closes), before the
// list is loaded again; and who may do what to a channel.

/**
 * @typedef {import('./types.js').ChannelSummary} ChannelSummary
 * @typedef {import('./types.js').Channel} Channel
 * @typedef {import('./state.js').Action} Action
 * @typedef {import('./state.js').State} State
 *
 * @typedef {import('./types.js').ChannelListing} ChannelListing
 *
 * @typedef {{ list: ChannelSummary[], current: string | null, directory: ChannelListing[] | null }} ChannelsState
 *   directory: the public channels, once asked for
 *
 * @typedef {{ type: 'channels/loaded', channels: ChannelSummary[] }
 *   | { type: 'directory/loaded', channels: ChannelListing[] }
 *   | { type: 'channel/opened', cid: string, at: number }
 *   | { type: 'channel/changed', channel: Channel }
 *   | { type: 'channel/left', cid: string }} ChannelsAction
 *   changed: the answer to a rename or a new topic; left: the reader left it (or was removed)
 */

/** @type {ChannelsState} */
export const initialChannels = { list: [], current: null, directory: null };

/**
 * @param {ChannelsState} state
 * @param {Action} action
 * @param {State} [root] the whole state before the action (who the reader is)
 * @returns {ChannelsState}
 */
export function channels(state, action, root) {
  const left = leftChannel(action, root);
  if (left) {
    const list = state.list.filter((summary) => summary.channel.cid !== left);
    if (list.length === state.list.length && state.current !== left) return state;
    return { ...state, list, current: state.current === left ? null : state.current };
  }
  switch (action.type) {
    case 'channel/changed':
      return withChannel(state, action.channel);
    case 'server/event': {
      const event = action.event;
      if (event.type === 'channel.updated') return withChannel(state, event.channel);
      if (event.type === 'member.left') return withoutMember(state, event.cid, event.user_id);
      return state;
    }
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
  if (!isDirect(summary.channel.cid)) return summary.channel.name;
  const others = summary.members.filter((member) => member.id !== me).map((member) => member.name);
  return others.length ? others.join(', ') : summary.channel.name;
}

/**
 * The channel the reader is no longer in after `action`: their own leaving, or a `member.left`
 * event naming them (they left in another window, or were removed).
 *
 * @param {Action} action
 * @param {State} [root]
 * @returns {string | null}
 */
export function leftChannel(action, root) {
  if (action.type === 'channel/left') return action.cid;
  if (action.type !== 'server/event' || action.event.type !== 'member.left') return null;
  const me = root && root.session.me;
  return me && action.event.user_id === me.id ? action.event.cid : null;
}

/**
 * The list with a channel's new name or topic (a channel not in it: unchanged).
 *
 * @param {ChannelsState} state
 * @param {Channel} channel
 * @returns {ChannelsState}
 */
function withChannel(state, channel) {
  const index = state.list.findIndex((summary) => summary.channel.cid === channel.cid);
  if (index < 0) return state;
  const list = [...state.list];
  list[index] = { ...list[index], channel: { ...list[index].channel, ...channel } };
  return { ...state, list };
}

/**
 * @param {ChannelsState} state
 * @param {string} cid
 * @param {string} userId someone else, gone from the channel
 * @returns {ChannelsState}
 */
function withoutMember(state, cid, userId) {
  const index = state.list.findIndex((summary) => summary.channel.cid === cid);
  if (index < 0 || !state.list[index].members.some((member) => member.id === userId)) return state;
  const list = [...state.list];
  list[index] = { ...list[index], members: list[index].members.filter((member) => member.id !== userId) };
  return { ...state, list };
}

/**
 * Whether a channel is a direct message (its id made by the server from its members, `type:!…`):
 * its members are fixed, and it has no settings.
 *
 * @param {string} cid
 */
export function isDirect(cid) {
  return cid.includes(':!');
}

/**
 * Whether the reader may take `userId` out of the channel, as the server decides: not from a
 * direct message; the channel's creator or an administrator may; oneself is leaving, not this.
 *
 * @param {ChannelSummary} summary
 * @param {string} userId
 * @param {string | null} me
 * @param {boolean} admin
 */
export function canRemove(summary, userId, me, admin) {
  if (isDirect(summary.channel.cid) || userId === me) return false;
  return admin || (me !== null && summary.channel.created_by === me);
}
