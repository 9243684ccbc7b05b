// Who is signed in, the model the AI features use, the language translations go into, which
// view is open (channels or the assistant), and what the connection line says.

/**
 * @typedef {import('./types.js').User} User
 * @typedef {import('./types.js').Me} Me
 * @typedef {import('./types.js').ModelState} ModelState
 * @typedef {import('./types.js').Language} Language
 * @typedef {import('./state.js').Action} Action
 *
 * @typedef {object} SessionState
 * @property {'starting' | 'signed-out' | 'signed-in'} status starting: the session cookie is being tried
 * @property {string} error what the sign-in form says
 * @property {JoinLink | null} join the one-time link this page was opened with, while it is used
 * @property {User | null} me
 * @property {boolean} admin whether the user may invite people and reset passwords
 * @property {AccountPanel} account what the account panel shows
 * @property {boolean} suggestionsAvailable whether the server can suggest replies at all
 * @property {boolean} suggestionsWanted the "Suggest replies" toggle (remembered in this browser)
 * @property {ModelState | null} model
 * @property {string | null} language the translation language's code (the user's preference)
 * @property {'channels' | 'assistant'} view
 * @property {string} connection what the connection line says ('' when online)
 *
 *
 * @typedef {object} JoinLink a setup, invitation or reset link (the server's AccountLink)
 * @property {string} secret
 * @property {string} user
 * @property {string} name
 * @property {'setup' | 'invite' | 'reset'} kind
 *
 * @typedef {object} AccountPanel
 * @property {string} link the last invitation or reset link made ('' for none)
 * @property {string} note what the last account action did, or why it failed
 *
 * @typedef {{ type: 'session/signedIn', me: Me, admin: boolean, suggestionsWanted: boolean }
 *   | { type: 'session/signedOut', message: string }
 *   | { type: 'session/join', join: JoinLink | null, message?: string }
 *   | { type: 'account/link', link: string }
 *   | { type: 'account/note', text: string }
 *   | { type: 'session/model', model: ModelState }
 *   | { type: 'session/language', code: string }
 *   | { type: 'session/suggestionsWanted', wanted: boolean }
 *   | { type: 'session/view', view: 'channels' | 'assistant' }
 *   | { type: 'connection/status', status: 'online' | 'reconnecting' | 'offline' | 'unauthorized' }
 *   | { type: 'connection/notice', text: string }} SessionAction
 */

/** @type {SessionState} */
export const initialSession = {
  status: 'signed-out',
  error: '',
  join: null,
  me: null,
  admin: false,
  account: { link: '', note: '' },
  suggestionsAvailable: false,
  suggestionsWanted: true,
  model: null,
  language: null,
  view: 'channels',
  connection: '',
};

const CONNECTION_TEXT = { online: '', reconnecting: 'Reconnecting…', offline: 'Offline', unauthorized: '' };

/**
 * @param {SessionState} state
 * @param {Action} action
 * @returns {SessionState}
 */
export function session(state, action) {
  switch (action.type) {
    case 'session/signedIn':
      return {
        ...state,
        status: 'signed-in',
        error: '',
        join: null,
        me: action.me.user,
        admin: action.admin,
        account: { link: '', note: '' },
        suggestionsAvailable: action.me.suggestions,
        suggestionsWanted: action.suggestionsWanted,
        model: action.me.model,
        connection: '',
      };
    case 'session/signedOut':
      return { ...initialSession, view: state.view, error: action.message };
    case 'session/join':
      return { ...state, status: 'signed-out', join: action.join, error: action.message || '' };
    case 'account/link':
      return { ...state, account: { link: action.link, note: '' } };
    case 'account/note':
      return { ...state, account: { ...state.account, note: action.text } };
    case 'session/model':
      return { ...state, model: action.model };
    case 'session/language':
      return { ...state, language: action.code };
    case 'session/suggestionsWanted':
      return { ...state, suggestionsWanted: action.wanted };
    case 'session/view':
      return state.view === action.view ? state : { ...state, view: action.view };
    case 'connection/status':
      return { ...state, connection: CONNECTION_TEXT[action.status] };
    case 'connection/notice':
      return { ...state, connection: action.text };
    default:
      return state;
  }
}

/** Whether reply suggestions are on: the server offers them and the toggle is on. */
export function suggestionsOn(/** @type {SessionState} */ state) {
  return state.suggestionsAvailable && state.suggestionsWanted;
}

/**
 * The language translations go into: the preference when the model offers it, else English.
 *
 * @param {SessionState} state
 * @returns {Language}
 */
export function translationLanguage(state) {
  const languages = state.model ? state.model.languages : [];
  const code = state.language;
  const chosen = code ? languages.find((language) => language.code === code) : languages[0];
  return chosen || { code: 'en', name: 'English' };
}

/**
 * Why the model features cannot run, in words ('' when they can).
 *
 * @param {SessionState} state
 */
export function unavailability(state) {
  return state.model && !state.model.available ? state.model.message : '';
}

/**
 * The line under the sidebar about the model: why it is unavailable, that a fallback
 * elsewhere stands in for it, or that a pool of servers shares the work.
 *
 * @param {ModelState | null} model
 */
export function modelStatusText(model) {
  if (!model) return '';
  if (!model.available) return `The local model is unavailable. ${model.message}`;
  if (model.pool) {
    return `The AI features run on ${model.name}, wherever there is room: what they read may be sent to those servers.`;
  }
  if (model.fallback) {
    return `The local model is unavailable, so the AI features use the fallback ${model.name}: what they read is sent there. ${model.message}`;
  }
  return '';
}
