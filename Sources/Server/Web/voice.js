// Dictation: the microphone of each composer. One dictation at a time (its composer, whether it
// is waiting for the microphone, listening or being transcribed, its level and time), whether
// it is offered at all (the server has a speech model, the browser can record, the microphone
// was not refused), the "Send when I stop talking" toggle (remembered in this browser), and the
// last word for each composer (an error, or that nothing was heard). The transcript goes into
// the composer's draft through `composer/insert`: what was typed stays, and nothing is sent
// unless the toggle is on.

/**
 * @typedef {import('./state.js').Action} Action
 * @typedef {import('./types.js').SpeechState} SpeechState
 *
 * @typedef {object} Dictation
 * @property {number} id
 * @property {string} key the composer (a channel's cid, or `assistant`)
 * @property {'starting' | 'listening' | 'transcribing'} status starting: waiting for the
 *   microphone (and the person's permission)
 * @property {boolean} autoSend whether it sends when the person stops talking (the toggle, until
 *   it is being transcribed)
 * @property {number} level the meter's fill, 0…1
 * @property {number} elapsedMs audio recorded so far
 * @property {boolean} heard whether speech was heard (auto-send waits for its end)
 *
 * @typedef {object} VoiceState
 * @property {string} server why the server cannot transcribe ('' when it can, or cannot say)
 * @property {string} browser why this browser cannot record ('' when it can)
 * @property {boolean} autoSend "Send when I stop talking"
 * @property {Dictation | null} dictation
 * @property {Record<string, string>} notices by composer key: what the last dictation there says
 *
 * @typedef {{ type: 'voice/unsupported', message: string }
 *   | { type: 'voice/autoSend', on: boolean }
 *   | { type: 'voice/start', id: number, key: string }
 *   | { type: 'voice/listening', id: number }
 *   | { type: 'voice/progress', id: number, level: number, elapsedMs: number, heard: boolean }
 *   | { type: 'voice/transcribing', id: number }
 *   | { type: 'voice/finished', id: number, notice: string }
 *   | { type: 'voice/cancelled', id: number }
 *   | { type: 'voice/failed', id: number, message: string, stepAside: 'server' | 'browser' | null }} VoiceAction
 */

/** The longest dictation: recording stops there and what was said is transcribed. */
export const MAX_DICTATION_MS = 120_000;

/**
 * @param {boolean} [autoSend] the remembered toggle
 * @returns {VoiceState}
 */
export function initialVoice(autoSend = false) {
  return { server: '', browser: '', autoSend, dictation: null, notices: {} };
}

/**
 * @param {VoiceState} state
 * @param {Action} action
 * @returns {VoiceState}
 */
export function voice(state, action) {
  switch (action.type) {
    case 'session/signedIn':
      return { ...state, server: serverReason(action.me.speech), dictation: null, notices: {} };
    case 'session/signedOut':
      return { ...initialVoice(state.autoSend), browser: state.browser };
    case 'voice/unsupported':
      return { ...state, browser: action.message };
    case 'voice/autoSend': {
      if (state.autoSend === action.on) return state;
      // A dictation still listening follows the toggle; one being transcribed is past it.
      const dictation = state.dictation && state.dictation.status !== 'transcribing' ? { ...state.dictation, autoSend: action.on } : state.dictation;
      return { ...state, autoSend: action.on, dictation };
    }
    case 'voice/start':
      if (state.dictation || offered(state) !== '') return state;
      return {
        ...state,
        dictation: { id: action.id, key: action.key, status: 'starting', autoSend: state.autoSend, level: 0, elapsedMs: 0, heard: false },
        notices: without(state.notices, action.key),
      };
    case 'voice/listening':
      return updated(state, action.id, (dictation) => dictation.status === 'starting' ? { ...dictation, status: 'listening' } : dictation);
    case 'voice/progress':
      return updated(state, action.id, (dictation) => dictation.status !== 'listening' ? dictation
        : { ...dictation, level: action.level, elapsedMs: action.elapsedMs, heard: action.heard });
    case 'voice/transcribing':
      return updated(state, action.id, (dictation) => ({ ...dictation, status: 'transcribing', level: 0 }));
    case 'voice/finished':
    case 'voice/cancelled':
    case 'voice/failed': {
      const dictation = state.dictation;
      if (!dictation || dictation.id !== action.id) return state;
      const notice = action.type === 'voice/finished' ? action.notice : action.type === 'voice/failed' ? action.message : '';
      const next = { ...state, dictation: null, notices: notice ? { ...state.notices, [dictation.key]: notice } : without(state.notices, dictation.key) };
      if (action.type === 'voice/failed' && action.stepAside) next[action.stepAside] = action.message;
      return next;
    }
    case 'composer/draft':
      // Typing in the composer puts its last word away.
      return state.notices[action.key] ? { ...state, notices: without(state.notices, action.key) } : state;
    default:
      return state;
  }
}

/**
 * Why the microphone is not offered ('' when it is): this browser cannot record, the microphone
 * was refused, or the server has no speech model.
 *
 * @param {VoiceState} state
 */
export function offered(state) {
  return state.browser || state.server;
}

/**
 * What the server's `speech` says, as the reason the microphone is not offered ('' when it
 * is; a server that does not say is given the benefit of the doubt: a 503 will tell).
 *
 * @param {SpeechState | undefined} speech
 */
export function serverReason(speech) {
  if (!speech || speech.available) return '';
  return `Dictation is unavailable: ${speech.message || 'the server has no speech model'}.`;
}

/**
 * The draft with a transcript added at its end, a space between them unless the draft ends in
 * one (or is empty): what was typed is kept as it was.
 *
 * @param {string} draft
 * @param {string} transcript
 */
export function withDictation(draft, transcript) {
  const text = transcript.trim();
  if (!text) return draft;
  if (!draft || /\s$/.test(draft)) return draft + text;
  return `${draft} ${text}`;
}

/**
 * A recording's time as the composer shows it: `0:07`, `1:42`.
 *
 * @param {number} ms
 */
export function clock(ms) {
  const seconds = Math.floor(Math.max(0, ms) / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/**
 * A failed dictation in words, and whether the microphone then steps aside (`browser`: it
 * cannot record here; `server`: there is no speech model) or may be tried again (null).
 *
 * @param {{ name?: string, status?: number, code?: string, message?: string }} error a
 *   `DOMException` from `getUserMedia`, or an `ApiError` from the transcription request
 * @returns {{ message: string, stepAside: 'server' | 'browser' | null }}
 */
export function dictationError(error) {
  switch (error.name) {
    case 'NotAllowedError':
    case 'SecurityError':
      return { message: 'The microphone is blocked for this page: allow it in the browser’s site settings, then reload.', stepAside: 'browser' };
    case 'NotFoundError':
    case 'OverconstrainedError':
      return { message: 'No microphone was found: connect one and try again.', stepAside: null };
    case 'NotReadableError':
    case 'AbortError':
      return { message: 'The microphone cannot be opened: another application may be using it.', stepAside: null };
    case 'NotSupportedError':
      return { message: error.message || 'This browser cannot record here.', stepAside: 'browser' };
    default:
      break;
  }
  if (error.status === 503) {
    return { message: `Dictation is unavailable: ${error.message || 'the server has no speech model'}`, stepAside: 'server' };
  }
  if (error.status === 413 || error.code === 'audio_too_long') {
    return { message: 'The recording is too long for the server: dictate a shorter part.', stepAside: null };
  }
  if (error.status === 429) return { message: 'The server is busy transcribing: try again in a moment.', stepAside: null };
  if (error.status === 0) return { message: 'The server cannot be reached: nothing was transcribed.', stepAside: null };
  return { message: `Dictation failed: ${error.message || 'unknown error'}`, stepAside: null };
}

/**
 * @param {VoiceState} state
 * @param {number} id
 * @param {(dictation: Dictation) => Dictation} change
 * @returns {VoiceState}
 */
function updated(state, id, change) {
  const dictation = state.dictation;
  if (!dictation || dictation.id !== id) return state;
  const next = change(dictation);
  return next === dictation ? state : { ...state, dictation: next };
}

/**
 * @param {Record<string, string>} notices
 * @param {string} key
 */
function without(notices, key) {
  if (!(key in notices)) return notices;
  const { [key]: _removed, ...rest } = notices;
  return rest;
}
