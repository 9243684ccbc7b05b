// Signing in and out (a password, a token, or a one-time link; the session is an HttpOnly
// cookie this page cannot read, and the CSRF token it keeps in memory), the session's refresh,
// the account's actions, the event stream's start, and the settings this browser or the server
// remembers (translation language, reply suggestions, tone).

import { ApiError, createApi, sessions } from './api.js';
import { EventStream } from './events.js';
import { refreshDelay } from './token.js';
import { messageOf } from './context.js';

/**
 * @typedef {import('./context.js').AppContext} AppContext
 * @typedef {import('./suggestions.js').Tone} Tone
 * @typedef {import('./types.js').Session} Session
 * @typedef {{ user: string, password: string } | { token: string }} Credentials
 */

export const SUGGESTIONS_KEY = 'sotto.suggestions';
export const TONE_KEY = 'sotto.tone';
export const VIEW_KEY = 'sotto.view';

/**
 * The secret of a one-time link in the page's address (`#join=<secret>`), or null.
 *
 * @param {string} hash location.hash
 */
export function joinSecret(hash) {
  const match = /^#join=([A-Za-z0-9_-]{43})$/.exec(hash);
  return match ? match[1] : null;
}

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
   * Signs in with a password or a token.
   *
   * @param {Credentials} credentials
   */
  async function signIn(credentials) {
    let session;
    try {
      session = 'token' in credentials
        ? await sessions.withToken(credentials.token)
        : await sessions.withPassword(credentials.user, credentials.password);
    } catch (error) {
      store.dispatch({ type: 'session/signedOut', message: signInMessage(error, 'token' in credentials) });
      return;
    }
    await start(session);
  }

  /** The session this browser's cookie already holds, if any: nothing is said when there is none. */
  async function resume() {
    let session;
    try {
      session = await sessions.current();
    } catch {
      store.dispatch({ type: 'session/signedOut', message: '' });
      return;
    }
    await start(session);
  }

  /**
   * Shows the one-time link the page was opened with (who it is for), or why it does not work.
   *
   * @param {string} secret
   */
  async function openLink(secret) {
    try {
      const link = await sessions.link(secret);
      store.dispatch({ type: 'session/join', join: { secret, user: link.user, name: link.name, kind: link.kind } });
    } catch (error) {
      forgetLink();
      store.dispatch({ type: 'session/join', join: null, message: linkMessage(error) });
    }
  }

  /**
   * Uses the open link: sets the password (and name) and signs in.
   *
   * @param {string} password
   * @param {string} name
   */
  async function join(password, name) {
    const link = store.getState().session.join;
    if (!link) return;
    let session;
    try {
      session = await sessions.useLink(link.secret, password, name && name !== link.name ? name : undefined);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) forgetLink();
      store.dispatch({ type: 'session/join', join: error instanceof ApiError && error.status === 404 ? null : link, message: linkMessage(error) });
      return;
    }
    forgetLink();
    await start(session);
  }

  /** The secret leaves the address bar (and the history) once it is used or refused. */
  function forgetLink() {
    if (joinSecret(location.hash)) history.replaceState(null, '', location.pathname + location.search);
  }

  /** @param {Session} session */
  async function start(session) {
    const api = createApi(session.csrf_token);
    let me;
    try {
      me = await api.me();
    } catch (error) {
      store.dispatch({ type: 'session/signedOut', message: signInMessage(error, false) });
      return;
    }
    ctx.setApi(api);
    store.dispatch({ type: 'session/signedIn', me, admin: session.admin, suggestionsWanted: ctx.local.getItem(SUGGESTIONS_KEY) !== 'off' });
    if (me.model.reason === 'not_downloaded') after.offerDownload();
    loadPreferences();
    openStream(null);
    scheduleRefresh(session.expires_at);
    await after.loadChannels();
    if (store.getState().session.view === 'assistant') await after.showAssistant();
  }

  /** @param {number | null} since where a replaced stream left off */
  function openStream(since) {
    const me = store.getState().session.me;
    const stream = new EventStream({
      token: null, // the session cookie
      user: me ? me.id : undefined,
      suggestions: store.getState().session.suggestionsAvailable && store.getState().session.suggestionsWanted,
      url: (query) => `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/connect${query}`,
      onEvent: (event) => store.dispatch({ type: 'server/event', event, at: ctx.now() }),
      onResync: () => store.dispatch({ type: 'server/resync' }),
      onStatus: (status) => {
        store.dispatch({ type: 'connection/status', status });
        if (status === 'unauthorized') recover();
      },
      online: () => navigator.onLine,
    });
    stream.lastSeq = since;
    ctx.stream = stream;
    stream.connect();
  }

  /** @param {string} [message] */
  function signOut(message = '') {
    endSession(message);
    sessions.signOut().catch(() => {}); // the cookie goes; nothing else to do if it cannot
  }

  let recovering = false;

  /**
   * The server refused this page's session: it expired or was revoked, or another window of
   * this browser signed in and replaced the cookie. The page takes up whatever session the
   * cookie now holds, or asks to sign in.
   */
  async function recover() {
    if (recovering) return;
    recovering = true;
    endSession('');
    try {
      await start(await sessions.current());
    } catch {
      store.dispatch({ type: 'session/signedOut', message: 'Your session ended. Sign in again.' });
    } finally {
      recovering = false;
    }
  }

  /** @param {string} message */
  function endSession(message) {
    clearTimeout(refreshTimer);
    if (ctx.stream) ctx.stream.close();
    ctx.stream = null;
    ctx.setApi(null);
    store.dispatch({ type: 'session/signedOut', message });
  }

  /** Every session and token of this user ends, this one too. */
  async function signOutEverywhere() {
    try {
      await ctx.api().signOutEverywhere();
    } catch (error) {
      store.dispatch({ type: 'account/note', text: messageOf(error) });
      return;
    }
    endSession('You are signed out everywhere.');
  }

  /**
   * Changes the password: the server ends every other session and gives this page a new one.
   *
   * @param {string} current
   * @param {string} next
   */
  async function changePassword(current, next) {
    // The server closes this socket as it ends the old sessions: let it go first, and resume
    // from where it was on the new session.
    const since = ctx.stream ? ctx.stream.lastSeq : null;
    if (ctx.stream) ctx.stream.close();
    ctx.stream = null;
    let session;
    try {
      session = await ctx.api().changePassword(current, next);
    } catch (error) {
      store.dispatch({ type: 'account/note', text: messageOf(error) });
      openStream(since);
      return;
    }
    ctx.setApi(createApi(session.csrf_token));
    openStream(since);
    scheduleRefresh(session.expires_at);
    store.dispatch({ type: 'account/note', text: 'Password changed. Your other sessions are signed out.' });
  }

  /**
   * Administrators: a one-time link for someone to set their password.
   *
   * @param {string} user
   * @param {string} name
   * @param {'invite' | 'reset'} kind
   */
  async function invite(user, name, kind) {
    try {
      const made = await ctx.api().invite(user, name, kind);
      store.dispatch({ type: 'account/link', link: `${location.origin}${made.path}` });
    } catch (error) {
      store.dispatch({ type: 'account/note', text: messageOf(error) });
    }
  }

  /** @param {number | null} expiresAt */
  function scheduleRefresh(expiresAt) {
    clearTimeout(refreshTimer);
    const delay = refreshDelay(expiresAt, Date.now());
    if (delay !== null) refreshTimer = setTimeout(refreshSession, delay);
  }

  async function refreshSession() {
    if (store.getState().session.status !== 'signed-in') return;
    let session;
    try {
      session = await ctx.api().refreshSession();
    } catch (error) {
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return; // sign in again later
      refreshTimer = setTimeout(refreshSession, 5000);
      return;
    }
    ctx.setApi(createApi(session.csrf_token));
    if (ctx.stream) ctx.stream.setToken(null); // a newer cookie: an expired socket reconnects with it
    scheduleRefresh(session.expires_at);
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
    if (error instanceof ApiError && (error.status === 401 || error.code === 'csrf_rejected')) recover();
    else store.dispatch({ type: 'connection/notice', text: messageOf(error) });
  };

  return { signIn, resume, openLink, join, signOut, signOutEverywhere, changePassword, invite, setLanguage, setSuggestionsWanted, setTone, setView };
}

/**
 * @param {unknown} error
 * @param {boolean} token whether a token was tried
 */
function signInMessage(error, token) {
  if (error instanceof ApiError && error.status === 401) {
    return token ? `That token was not accepted: ${error.message}` : 'Wrong user name or password.';
  }
  return messageOf(error) || 'Sign-in failed.';
}

/** @param {unknown} error */
function linkMessage(error) {
  if (error instanceof ApiError && error.status === 404) {
    return 'This link does not work: it was used already or has expired. Ask for a new one.';
  }
  return messageOf(error);
}
