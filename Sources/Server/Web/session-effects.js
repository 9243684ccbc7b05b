// Signing in and out, the token's refresh, the event stream's start, and the settings this
// browser or the server remembers (translation language, reply suggestions, tone).

import { ApiError, createApi } from './api.js';
import { EventStream } from './events.js';
import { refreshDelay } from './token.js';
import { messageOf } from './context.js';

/**
 * @typedef {import('./context.js').AppContext} AppContext
 * @typedef {import('./suggestions.js').Tone} Tone
 */

export const TOKEN_KEY = 'sotto.token';
export const SUGGESTIONS_KEY = 'sotto.suggestions';
export const TONE_KEY = 'sotto.tone';
export const VIEW_KEY = 'sotto.view';

/**
 * @param {AppContext} ctx
 * @param {{ loadChannels: () => Promise<void>, loadSuggestions: (cid: string) => Promise<void>, offerDownload: () => void, showAssistant: () => Promise<void> }} after
 *   what follows a sign-in
 */
export function sessionEffects(ctx, after) {
  const { store } = ctx;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let refreshTimer;

  /**
   * @param {string} token
   * @param {{ quiet?: boolean }} [options] quiet: a saved token that no longer works says nothing
   */
  async function signIn(token, options = {}) {
    const quiet = Boolean(options.quiet);
    const api = createApi(token);
    let me;
    try {
      me = await api.me();
    } catch (error) {
      ctx.tab.removeItem(TOKEN_KEY);
      store.dispatch({ type: 'session/signedOut', message: quiet ? '' : signInMessage(error) });
      return;
    }
    ctx.tab.setItem(TOKEN_KEY, token);
    ctx.setApi(api);
    store.dispatch({ type: 'session/signedIn', token, me, suggestionsWanted: ctx.local.getItem(SUGGESTIONS_KEY) !== 'off' });
    if (me.model.reason === 'not_downloaded') after.offerDownload();
    loadPreferences();
    const stream = new EventStream({
      token,
      suggestions: store.getState().session.suggestionsAvailable && store.getState().session.suggestionsWanted,
      url: (query) => `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/connect${query}`,
      onEvent: (event) => store.dispatch({ type: 'server/event', event, at: ctx.now() }),
      onResync: () => store.dispatch({ type: 'server/resync' }),
      onStatus: (status) => {
        store.dispatch({ type: 'connection/status', status });
        if (status === 'unauthorized') signOut('Your session ended. Sign in again.');
      },
      online: () => navigator.onLine,
    });
    ctx.stream = stream;
    stream.connect();
    scheduleRefresh(token);
    await after.loadChannels();
    if (store.getState().session.view === 'assistant') await after.showAssistant();
  }

  /** @param {string} [message] */
  function signOut(message = '') {
    clearTimeout(refreshTimer);
    if (ctx.stream) ctx.stream.close();
    ctx.stream = null;
    ctx.tab.removeItem(TOKEN_KEY);
    ctx.setApi(null);
    store.dispatch({ type: 'session/signedOut', message });
  }

  /** @param {string} token */
  function scheduleRefresh(token) {
    clearTimeout(refreshTimer);
    const delay = refreshDelay(token, Date.now());
    if (delay !== null) refreshTimer = setTimeout(refreshToken, delay);
  }

  async function refreshToken() {
    if (store.getState().session.status !== 'signed-in') return;
    let result;
    try {
      result = await ctx.api().refreshToken();
    } catch (error) {
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return; // sign in again later
      refreshTimer = setTimeout(refreshToken, 5000);
      return;
    }
    ctx.tab.setItem(TOKEN_KEY, result.token);
    ctx.setApi(createApi(result.token));
    if (ctx.stream) ctx.stream.setToken(result.token);
    store.dispatch({ type: 'session/token', token: result.token });
    scheduleRefresh(result.token);
  }

  async function loadPreferences() {
    try {
      const preferences = await ctx.api().preferences();
      if (preferences.translation_language) store.dispatch({ type: 'session/language', code: preferences.translation_language });
    } catch {
      // The first language stays selected.
    }
  }

  /** @param {string} code */
  async function setLanguage(code) {
    store.dispatch({ type: 'session/language', code });
    try {
      await ctx.api().setPreferences({ translation_language: code });
    } catch (error) {
      ctx.fail(error);
    }
  }

  /** @param {boolean} wanted the "Suggest replies" toggle */
  function setSuggestionsWanted(wanted) {
    ctx.local.setItem(SUGGESTIONS_KEY, wanted ? 'on' : 'off');
    store.dispatch({ type: 'session/suggestionsWanted', wanted });
    const state = store.getState();
    // Reconnect (resuming from the last seq) so the server knows whether to draft for us.
    if (ctx.stream) ctx.stream.setSuggestions(state.session.suggestionsAvailable && wanted);
    const cid = state.channels.current;
    if (wanted && cid) {
      store.dispatch({ type: 'suggestions/reopen', at: ctx.now() });
      after.loadSuggestions(cid);
    }
  }

  /** @param {Tone} tone casual or formal: remembered in this browser, and asked of the server at once */
  function setTone(tone) {
    ctx.local.setItem(TONE_KEY, tone);
    store.dispatch({ type: 'suggestions/tone', tone, at: ctx.now() });
    const cid = store.getState().channels.current;
    if (cid) after.loadSuggestions(cid);
  }

  /** @param {'channels' | 'assistant'} view */
  function setView(view) {
    ctx.local.setItem(VIEW_KEY, view);
    store.dispatch({ type: 'session/view', view });
  }

  ctx.fail = (error) => {
    if (error instanceof ApiError && error.status === 401) signOut('Your session ended. Sign in again.');
    else store.dispatch({ type: 'connection/notice', text: messageOf(error) });
  };

  return { signIn, signOut, setLanguage, setSuggestionsWanted, setTone, setView };
}

/** @param {unknown} error */
function signInMessage(error) {
  if (error instanceof ApiError && error.status === 401) return `That token was not accepted: ${error.message}`;
  return messageOf(error) || 'Sign-in failed.';
}
