// What the effects share: the store, the API client of the signed-in user (replaced when the
// session is refreshed), the event stream, the clock and this browser's storage.

import { ApiError } from './api.js';

/**
 * @typedef {import('./state.js').AppStore} AppStore
 * @typedef {import('./api.js').Api} Api
 * @typedef {import('./events.js').EventStream} EventStream
 *
 * @typedef {object} AppContext
 * @property {AppStore} store
 * @property {() => Api} api the signed-in user's client (throws when signed out)
 * @property {(api: Api | null) => void} setApi
 * @property {EventStream | null} stream
 * @property {() => number} now a monotonic clock in ms (performance.now)
 * @property {() => number} nonce a number never handed out before
 * @property {Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>} local remembered in this browser
 * @property {(error: unknown) => void} fail what a failed request does: 401 signs out, else the connection line says it
 */

/**
 * @param {AppStore} store
 * @param {{ local: AppContext['local'], now?: () => number }} environment
 * @returns {AppContext}
 */
export function createContext(store, environment) {
  /** @type {Api | null} */
  let api = null;
  let counter = 0;
  return {
    store,
    api() {
      if (!api) throw new ApiError(401, 'signed_out', 'Sign in first.');
      return api;
    },
    setApi(next) {
      api = next;
    },
    stream: null,
    now: environment.now || (() => performance.now()),
    nonce: () => (counter += 1),
    local: environment.local,
    fail: () => {},
  };
}

/**
 * An error's words.
 *
 * @param {unknown} error
 */
export function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}
