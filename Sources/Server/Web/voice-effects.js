// Dictation's effects: the microphone opened and closed, its chunks metered and (with "Send
// when I stop talking") fed to the pause detector, the recording sent to the server's
// transcription route as a 16 kHz WAV, and the text put into the composer's draft as it is then
// (what was typed meanwhile stays). It sends only when the toggle was on, through the
// composer's own send.

import { ApiError } from './api.js';
import { SILENCE_START, detectSilence, dictationWAV, meterFill, rms } from './voice-audio.js';
import { MAX_DICTATION_MS, dictationError, withDictation } from './voice.js';
import { captureUnsupported, startCapture } from './voice-capture.js';

/**
 * @typedef {import('./context.js').AppContext} AppContext
 * @typedef {import('./voice-capture.js').Capture} Capture
 * @typedef {import('./voice-capture.js').StartCapture} StartCapture
 *
 * @typedef {object} VoiceHooks
 * @property {(key: string) => string} send sends the composer's draft; returns why it did not
 *   ('' when it did)
 * @property {StartCapture} [capture] the microphone (a stand-in in the tests)
 * @property {() => string} [unsupported] why this browser cannot record ('' when it can)
 *
 * @typedef {object} Recording the dictation under way
 * @property {number} id
 * @property {'opening' | 'listening' | 'transcribing'} phase
 * @property {Capture | null} capture its microphone (null while it opens, and once stopped)
 * @property {Float32Array[]} chunks what it recorded
 * @property {number} frames
 * @property {number} rate the chunks' sample rate
 * @property {import('./voice-audio.js').SilenceState} silence the pause detector
 * @property {number} shownMs the time last shown
 */

/** Where "Send when I stop talking" is remembered. */
export const AUTO_SEND_KEY = 'sotto.voiceAutoSend';
/** How often the meter and the time are redrawn, in ms of audio. */
const PROGRESS_MS = 100;

/**
 * @param {AppContext} ctx
 * @param {VoiceHooks} hooks
 */
export function voiceEffects(ctx, hooks) {
  const { store } = ctx;
  const capture = hooks.capture || startCapture;
  const unsupported = (hooks.unsupported || captureUnsupported)();
  if (unsupported) store.dispatch({ type: 'voice/unsupported', message: unsupported });

  /** @type {Recording | null} */
  let current = null;

  store.listen((action) => {
    if (action.type === 'session/signedOut' && current) cancel();
  });

  /** @param {string} key the composer */
  async function start(key) {
    if (current) return;
    const id = ctx.nonce();
    store.dispatch({ type: 'voice/start', id, key });
    const dictation = store.getState().voice.dictation;
    if (!dictation || dictation.id !== id) return; // not offered
    /** @type {Recording} */
    const run = { id, phase: 'opening', capture: null, chunks: [], frames: 0, rate: 0, silence: SILENCE_START, shownMs: 0 };
    current = run;
    let opened;
    try {
      opened = await capture((samples, rate) => heard(run, samples, rate));
    } catch (error) {
      if (current === run) {
        current = null;
        fail(id, error);
      }
      return;
    }
    if (current !== run) {
      opened.stop(); // cancelled while the microphone was opening
      return;
    }
    run.capture = opened;
    run.phase = 'listening';
    store.dispatch({ type: 'voice/listening', id });
  }

  /**
   * A chunk from the microphone: kept, metered, and listened to for the pause.
   *
   * @param {Recording} run
   * @param {Float32Array} samples
   * @param {number} rate
   */
  function heard(run, samples, rate) {
    // A chunk already on its way when the microphone closed is not taken.
    if (current !== run || run.phase === 'transcribing' || (run.rate && run.rate !== rate)) return;
    run.rate = rate;
    run.chunks.push(samples);
    run.frames += samples.length;
    const level = rms(samples);
    run.silence = detectSilence(run.silence, level, (samples.length / rate) * 1000);
    const elapsedMs = (run.frames / rate) * 1000;
    const dictation = store.getState().voice.dictation;
    const autoSend = Boolean(dictation && dictation.autoSend);
    if (elapsedMs - run.shownMs >= PROGRESS_MS) {
      run.shownMs = elapsedMs;
      store.dispatch({ type: 'voice/progress', id: run.id, level: meterFill(level), elapsedMs, heard: run.silence.phase !== 'waiting' });
    }
    if (elapsedMs >= MAX_DICTATION_MS) {
      stop(`Stopped at ${MAX_DICTATION_MS / 60000} minutes, the longest dictation.`);
    } else if (autoSend && run.silence.phase === 'ended') {
      stop();
    } else if (autoSend && run.silence.phase === 'no-speech') {
      cancel('Nothing was heard, so nothing was sent.');
    }
  }

  /**
   * Stops listening and transcribes what was recorded into the composer.
   *
   * @param {string} [note] what the composer says afterwards, beside any error
   */
  async function stop(note = '') {
    const run = current;
    const dictation = store.getState().voice.dictation;
    if (!run || !dictation || dictation.id !== run.id || run.phase === 'transcribing') return;
    if (!run.capture) {
      cancel(); // the microphone is not open yet: there is nothing to transcribe
      return;
    }
    run.capture.stop();
    const rate = run.rate;
    run.capture = null;
    run.phase = 'transcribing';
    store.dispatch({ type: 'voice/transcribing', id: run.id });
    let text;
    try {
      if (run.frames === 0) throw new ApiError(400, 'no_audio', 'the microphone gave no sound');
      const wav = dictationWAV(run.chunks, rate);
      run.chunks = [];
      const result = await ctx.api().transcribe(new Blob([wav], { type: 'audio/wav' }));
      text = typeof result.text === 'string' ? result.text.trim() : '';
    } catch (error) {
      if (current === run) {
        current = null;
        if (error instanceof ApiError && error.status === 401) ctx.fail(error);
        fail(run.id, error);
      }
      return;
    }
    if (current !== run) return; // cancelled while it was being transcribed
    current = null;
    if (!text) {
      store.dispatch({ type: 'voice/finished', id: run.id, notice: note || 'Nothing was heard.' });
      return;
    }
    const key = dictation.key;
    store.dispatch({ type: 'composer/insert', key, text: withDictation(store.getState().composer.drafts[key] || '', text) });
    const unsent = dictation.autoSend ? hooks.send(key) : '';
    store.dispatch({ type: 'voice/finished', id: run.id, notice: [note, unsent].filter(Boolean).join(' ') });
  }

  /**
   * Drops the dictation: the microphone closes, nothing is transcribed or inserted.
   *
   * @param {string} [notice]
   */
  function cancel(notice = '') {
    const run = current;
    current = null;
    if (run && run.capture) run.capture.stop();
    const dictation = store.getState().voice.dictation;
    if (!dictation) return;
    if (notice) store.dispatch({ type: 'voice/finished', id: dictation.id, notice });
    else store.dispatch({ type: 'voice/cancelled', id: dictation.id });
  }

  /**
   * @param {number} id
   * @param {unknown} error
   */
  function fail(id, error) {
    const described = dictationError(/** @type {{ name?: string, status?: number, code?: string, message?: string }} */ (error || {}));
    store.dispatch({ type: 'voice/failed', id, message: described.message, stepAside: described.stepAside });
  }

  /** @param {boolean} on */
  function setAutoSend(on) {
    ctx.local.setItem(AUTO_SEND_KEY, on ? 'on' : 'off');
    store.dispatch({ type: 'voice/autoSend', on });
  }

  return { start, stop: () => stop(), cancel: () => cancel(), setAutoSend };
}
