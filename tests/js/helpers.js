// What the tests share: a store of the app's state, signed in as Alice with a channel open.

import { createStore } from '../../Sources/Server/Web/store.js';
import { initialState, reducer } from '../../Sources/Server/Web/state.js';

/**
 * @typedef {import('../../Sources/Server/Web/state.js').Action} Action
 * @typedef {import('../../Sources/Server/Web/state.js').State} State
 * @typedef {import('../../Sources/Server/Web/types.js').Message} Message
 */

export const CID = 'messaging:weekend-hike';

/** @type {import('../../Sources/Server/Web/types.js').ModelState} */
export const MODEL = {
  available: true, name: 'qwen2.5-coder-0.5b', fallback: false, reason: null, message: '',
  tools: [{ id: 'proofread', title: 'Proofread' }], languages: [{ code: 'en', name: 'English' }, { code: 'fr', name: 'French' }],
};

/**
 * A store signed in as Alice (reply suggestions on), with the channel list loaded.
 *
 * @param {{ suggestions?: boolean, open?: boolean, images?: import('../../Sources/Server/Web/types.js').ImagesState }} [options]
 *   open: the channel is opened at t=0; images: what /api/me says of Image Playground
 */
export function signedIn(options = {}) {
  const store = createStore(reducer, initialState());
  store.dispatch({
    type: 'session/signedIn', admin: false, suggestionsWanted: true,
    me: { user: { id: 'alice', name: 'Alice' }, suggestions: options.suggestions !== false, model: MODEL, images: options.images },
  });
  store.dispatch({
    type: 'channels/loaded',
    channels: [{
      channel: { cid: CID, name: 'Weekend Hike' }, unread_count: 1,
      members: [{ id: 'alice', name: 'Alice' }, { id: 'bob', name: 'Bob' }],
    }],
  });
  if (options.open !== false) store.dispatch({ type: 'channel/opened', cid: CID, at: 0 });
  return store;
}

/**
 * A message of the open channel.
 *
 * @param {string} id
 * @param {string} user
 * @param {string} [text]
 * @returns {Message}
 */
export function message(id, user, text = `text of ${id}`) {
  return { id, cid: CID, user_id: user, text, created_at: '2025-12-03T10:00:00Z' };
}

/**
 * A frame from the server, as the event stream hands it over.
 *
 * @param {import('../../Sources/Server/Web/types.js').ServerEvent} event
 * @param {number} [at]
 * @returns {Action}
 */
export function server(event, at = 0) {
  return { type: 'server/event', event, at };
}
