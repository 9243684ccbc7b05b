import test from 'node:test';
import assert from 'node:assert/strict';
import { CID, MODEL, signedIn } from './helpers.js';
import { createStore } from '../../Sources/Server/Web/store.js';
import { initialState, reducer } from '../../Sources/Server/Web/state.js';
import { createContext } from '../../Sources/Server/Web/context.js';
import { ApiError } from '../../Sources/Server/Web/api.js';
import { draftOf } from '../../Sources/Server/Web/composer.js';
import {
  SILENCE_START, TARGET_RATE, detectSilence, dictationWAV, encodeWAV, meterFill, resample, rms, toPCM16,
} from '../../Sources/Server/Web/voice-audio.js';
import { clock, dictationError, offered, serverReason, withDictation } from '../../Sources/Server/Web/voice.js';
import { AUTO_SEND_KEY, voiceEffects } from '../../Sources/Server/Web/voice-effects.js';

/**
 * @param {number} frequency
 * @param {number} rate
 * @param {number} seconds
 * @param {number} [amplitude]
 */
function sine(frequency, rate, seconds, amplitude = 1) {
  const samples = new Float32Array(Math.round(rate * seconds));
  for (let index = 0; index < samples.length; index += 1) samples[index] = amplitude * Math.sin((2 * Math.PI * frequency * index) / rate);
  return samples;
}

/**
 * Upward zero crossings: a sine's cycles.
 *
 * @param {Float32Array} samples
 */
function cycles(samples) {
  let count = 0;
  for (let index = 1; index < samples.length; index += 1) if (samples[index - 1] < 0 && samples[index] >= 0) count += 1;
  return count;
}

// ---- Sound ------------------------------------------------------------------------------------

test('a WAV file has the RIFF header of 16-bit mono PCM and the samples little-endian', () => {
  const pcm = Int16Array.from([0, 1, -1, 32767, -32768]);
  const bytes = encodeWAV(pcm, 16000);
  const view = new DataView(bytes.buffer);
  const ascii = (/** @type {number} */ at) => String.fromCharCode(...bytes.subarray(at, at + 4));
  assert.equal(bytes.length, 44 + 10);
  assert.deepEqual([ascii(0), ascii(8), ascii(12), ascii(36)], ['RIFF', 'WAVE', 'fmt ', 'data']);
  assert.equal(view.getUint32(4, true), 36 + 10);
  assert.deepEqual([view.getUint32(16, true), view.getUint16(20, true), view.getUint16(22, true)], [16, 1, 1]);
  assert.deepEqual([view.getUint32(24, true), view.getUint32(28, true), view.getUint16(32, true), view.getUint16(34, true)], [16000, 32000, 2, 16]);
  assert.equal(view.getUint32(40, true), 10);
  assert.deepEqual(Array.from({ length: 5 }, (_, index) => view.getInt16(44 + index * 2, true)), [0, 1, -1, 32767, -32768]);
  assert.deepEqual([bytes[46], bytes[47]], [1, 0]); // little-endian
});

test('samples become 16-bit, louder than full scale clipped', () => {
  assert.deepEqual(Array.from(toPCM16(Float32Array.from([0, 1, -1, 2, -3, 0.5, -0.5]))), [0, 32767, -32768, 32767, -32768, 16384, -16384]);
});

test('resampling keeps a tone in the speech band and removes what would fold into it', () => {
  const tone = resample(sine(1000, 48000, 1), 48000, 16000);
  assert.equal(tone.length, 16000);
  assert.ok(Math.abs(cycles(tone) - 1000) <= 1, `cycles ${cycles(tone)}`);
  const middle = tone.subarray(1000, 15000);
  assert.ok(Math.abs(rms(middle) - Math.SQRT1_2) < 0.01, `rms ${rms(middle)}`);
  // 12 kHz is above 16 kHz's Nyquist: picking every third sample would make it a 4 kHz tone.
  const high = resample(sine(12000, 48000, 1), 48000, 16000);
  assert.ok(rms(high.subarray(1000, 15000)) < 0.02, `rms ${rms(high.subarray(1000, 15000))}`);
  // A constant stays that constant; other rates; the same rate is a copy.
  const flat = resample(new Float32Array(44100).fill(0.25), 44100, 16000);
  assert.equal(flat.length, 16000);
  assert.ok(flat.every((value) => Math.abs(value - 0.25) < 1e-6));
  const up = resample(sine(440, 8000, 0.5), 8000, 16000);
  assert.equal(up.length, 8000);
  assert.ok(Math.abs(cycles(up) - 220) <= 1);
  assert.ok(Math.abs(rms(up.subarray(500, 7500)) - Math.SQRT1_2) < 0.02);
  const same = Float32Array.from([0.1, 0.2]);
  assert.deepEqual(Array.from(resample(same, 16000, 16000)), Array.from(same));
  assert.throws(() => resample(same, 0, 16000), RangeError);
});

test('a recording becomes one 16 kHz WAV of its chunks in order', () => {
  const wav = dictationWAV([new Float32Array(4800).fill(0.5), new Float32Array(4800).fill(-0.5)], 48000);
  const view = new DataView(wav.buffer);
  assert.equal(view.getUint32(24, true), TARGET_RATE);
  assert.equal(view.getUint32(40, true), 3200 * 2);
  assert.equal(view.getInt16(44 + 100 * 2, true), 16384);
  assert.equal(view.getInt16(44 + 3100 * 2, true), -16384);
});

test('levels: RMS and the meter from −60 to 0 dBFS', () => {
  assert.equal(rms(new Float32Array(0)), 0);
  assert.ok(Math.abs(rms(sine(100, 8000, 1)) - Math.SQRT1_2) < 1e-3);
  assert.equal(meterFill(0), 0);
  assert.equal(meterFill(1), 1);
  assert.ok(Math.abs(meterFill(0.001) - 0) < 1e-9);
  assert.ok(Math.abs(meterFill(0.0316) - 0.5) < 0.01);
});

/**
 * The detector fed 50 ms chunks of these levels, each held for its ms.
 *
 * @param {Array<[number, number]>} script [level, ms] pairs
 */
function listen(script) {
  let state = SILENCE_START;
  /** @type {string[]} */
  const phases = [];
  for (const [level, ms] of script) {
    for (let at = 0; at < ms; at += 50) {
      state = detectSilence(state, level, 50);
      if (phases[phases.length - 1] !== state.phase) phases.push(state.phase);
    }
  }
  return { state, phases };
}

test('the pause detector: speech, then 1.2 s of silence ends it', () => {
  const { state, phases } = listen([[0, 300], [0.1, 1000], [0.0005, 1150]]);
  assert.deepEqual(phases, ['waiting', 'speaking']);
  assert.equal(state.quietMs, 1150);
  assert.equal(detectSilence(state, 0.0005, 50).phase, 'ended');
  // Words with short gaps between them are one utterance.
  assert.deepEqual(listen([[0.1, 600], [0.001, 700], [0.1, 600], [0.001, 700]]).phases, ['waiting', 'speaking']);
  assert.deepEqual(listen([[0.1, 600], [0.001, 1200]]).phases, ['waiting', 'speaking', 'ended']);
  // Ended is final.
  const ended = listen([[0.1, 600], [0, 1200]]).state;
  assert.equal(detectSilence(ended, 0.5, 50), ended);
});

test('the pause detector: a click is not speech, a steady noise is learnt, nothing at all gives up', () => {
  assert.deepEqual(listen([[0, 200], [0.3, 100], [0, 3000]]).phases, ['waiting']);
  // A fan at −30 dBFS (above the absolute threshold) is the floor; speech stands out of it and ends on it.
  const noisy = listen([[0.03, 1000], [0.3, 800], [0.03, 1200]]);
  assert.deepEqual(noisy.phases, ['waiting', 'speaking', 'ended']);
  assert.deepEqual(listen([[0.03, 5000]]).phases, ['waiting']);
  assert.deepEqual(listen([[0, 10000]]).phases, ['waiting', 'no-speech']);
});

// ---- State ------------------------------------------------------------------------------------

test('the server\'s speech state decides whether the microphone is offered', () => {
  assert.equal(serverReason(undefined), ''); // an older server: a 503 will tell
  assert.equal(serverReason({ available: true, model: 'whisper-base', message: '' }), '');
  const store = createStore(reducer, initialState());
  store.dispatch({ type: 'session/signedIn', admin: false, suggestionsWanted: true,
    me: { user: { id: 'alice', name: 'Alice' }, suggestions: true, model: MODEL, speech: { available: false, message: 'no speech model: run `sotto model pull whisper-base`' } } });
  assert.equal(offered(store.getState().voice), 'Dictation is unavailable: no speech model: run `sotto model pull whisper-base`.');
  store.dispatch({ type: 'voice/start', id: 1, key: CID });
  assert.equal(store.getState().voice.dictation, null);
});

test('a dictation goes from the microphone to listening to transcribing, one at a time', () => {
  const store = signedIn();
  store.dispatch({ type: 'voice/start', id: 1, key: CID });
  store.dispatch({ type: 'voice/start', id: 2, key: 'assistant' });
  assert.deepEqual(store.getState().voice.dictation, { id: 1, key: CID, status: 'starting', autoSend: false, level: 0, elapsedMs: 0, heard: false });
  store.dispatch({ type: 'voice/progress', id: 1, level: 0.5, elapsedMs: 100, heard: false }); // not yet listening
  assert.equal(store.getState().voice.dictation?.level, 0);
  store.dispatch({ type: 'voice/listening', id: 1 });
  store.dispatch({ type: 'voice/progress', id: 1, level: 0.5, elapsedMs: 1500, heard: true });
  store.dispatch({ type: 'voice/autoSend', on: true }); // a dictation still listening follows the toggle
  assert.deepEqual(store.getState().voice.dictation, { id: 1, key: CID, status: 'listening', autoSend: true, level: 0.5, elapsedMs: 1500, heard: true });
  store.dispatch({ type: 'voice/transcribing', id: 1 });
  store.dispatch({ type: 'voice/autoSend', on: false });
  assert.equal(store.getState().voice.dictation?.autoSend, true);
  store.dispatch({ type: 'voice/finished', id: 2, notice: 'stale' }); // another id changes nothing
  store.dispatch({ type: 'voice/finished', id: 1, notice: 'Nothing was heard.' });
  assert.equal(store.getState().voice.dictation, null);
  assert.deepEqual(store.getState().voice.notices, { [CID]: 'Nothing was heard.' });
  store.dispatch({ type: 'composer/draft', key: CID, text: 'typing puts it away' });
  assert.deepEqual(store.getState().voice.notices, {});
});

test('a refused microphone or a missing model makes the button step aside; sign-out keeps the toggle', () => {
  const store = signedIn();
  store.dispatch({ type: 'voice/autoSend', on: true });
  store.dispatch({ type: 'voice/start', id: 1, key: CID });
  const denied = dictationError({ name: 'NotAllowedError', message: 'Permission denied' });
  store.dispatch({ type: 'voice/failed', id: 1, ...denied });
  assert.equal(store.getState().voice.browser, denied.message);
  assert.equal(store.getState().voice.notices[CID], denied.message);
  assert.equal(offered(store.getState().voice), denied.message);
  store.dispatch({ type: 'session/signedOut', message: '' });
  assert.equal(store.getState().voice.autoSend, true);
  assert.equal(store.getState().voice.browser, denied.message);
});

test('dictation errors in words', () => {
  assert.equal(dictationError({ name: 'NotAllowedError' }).stepAside, 'browser');
  assert.deepEqual(dictationError({ name: 'NotFoundError' }), { message: 'No microphone was found: connect one and try again.', stepAside: null });
  assert.equal(dictationError({ name: 'NotReadableError' }).stepAside, null);
  assert.deepEqual(dictationError(new ApiError(503, 'model_unavailable', 'No speech model: run `sotto model pull whisper-base` and restart the server.')),
    { message: 'Dictation is unavailable: No speech model: run `sotto model pull whisper-base` and restart the server.', stepAside: 'server' });
  assert.match(dictationError(new ApiError(413, 'payload_too_large', 'too big')).message, /too long/);
  assert.match(dictationError(new ApiError(400, 'audio_too_long', 'longer than 30 minutes')).message, /too long/);
  assert.match(dictationError(new ApiError(429, 'queue_full', 'busy')).message, /busy/);
  assert.match(dictationError(new ApiError(0, 'network', 'x')).message, /cannot be reached/);
  assert.equal(dictationError(new ApiError(400, 'invalid_audio', 'The audio file cannot be read')).message, 'Dictation failed: The audio file cannot be read');
});

test('a transcript goes after what was typed; the clock', () => {
  assert.equal(withDictation('', ' Hello there. '), 'Hello there.');
  assert.equal(withDictation('Note:', 'buy milk'), 'Note: buy milk');
  assert.equal(withDictation('Line one\n', 'line two'), 'Line one\nline two');
  assert.equal(withDictation('kept', '  '), 'kept');
  assert.deepEqual([clock(0), clock(7900), clock(102000)], ['0:00', '0:07', '1:42']);
});

// ---- Effects ----------------------------------------------------------------------------------

/** A microphone the test plays chunks into, and an API whose transcriptions the test answers. */
function harness(options = /** @type {{ autoSend?: boolean, captureError?: unknown, refuseSend?: string }} */ ({})) {
  const store = signedIn();
  /** @type {Map<string, string>} */
  const saved = new Map();
  const storage = { getItem: (/** @type {string} */ key) => saved.get(key) ?? null, setItem: (/** @type {string} */ key, /** @type {string} */ value) => { saved.set(key, value); }, removeItem: (/** @type {string} */ key) => { saved.delete(key); } };
  const ctx = createContext(store, { local: storage });
  /** @type {Array<{ audio: Blob, answer: (text: string) => void, refuse: (error: unknown) => void }>} */
  const requests = [];
  ctx.setApi(/** @type {any} */ ({
    transcribe: (/** @type {Blob} */ audio) => new Promise((resolve, reject) => {
      requests.push({ audio, answer: (text) => resolve({ text }), refuse: reject });
    }),
  }));
  /** @type {string[]} */
  const sent = [];
  /** @type {((samples: Float32Array, rate: number) => void) | null} */
  let feed = null;
  let stopped = 0;
  const voice = voiceEffects(ctx, {
    unsupported: () => '',
    send: (key) => {
      if (options.refuseSend) return options.refuseSend;
      sent.push(`${key}: ${draftOf(store.getState().composer, key)}`);
      return '';
    },
    capture: async (onChunk) => {
      if (options.captureError) throw options.captureError;
      feed = onChunk;
      return { rate: 48000, stop: () => { stopped += 1; } };
    },
  });
  if (options.autoSend) voice.setAutoSend(true);
  /**
   * Plays `ms` of a 300 Hz tone at `amplitude` (0: silence) in 50 ms chunks.
   *
   * @param {number} amplitude
   * @param {number} ms
   */
  const play = (amplitude, ms) => {
    for (let at = 0; at < ms; at += 50) if (feed) feed(sine(300, 48000, 0.05, amplitude), 48000);
  };
  return { store, voice, requests, sent, play, saved, stoppedCount: () => stopped };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

test('dictating puts the words after what was typed, and sends nothing', async () => {
  const { store, voice, requests, sent, play, stoppedCount } = harness();
  store.dispatch({ type: 'composer/draft', key: CID, text: 'Plan:' });
  await voice.start(CID);
  assert.equal(store.getState().voice.dictation?.status, 'listening');
  play(0.2, 1000);
  play(0, 2000); // a pause does not stop it without the toggle
  assert.equal(store.getState().voice.dictation?.status, 'listening');
  assert.equal(store.getState().voice.dictation?.elapsedMs, 3000); // shown every 100 ms of audio
  const stopping = voice.stop();
  assert.equal(stoppedCount(), 1);
  assert.equal(store.getState().voice.dictation?.status, 'transcribing');
  assert.equal(requests.length, 1);
  const bytes = new Uint8Array(await requests[0].audio.arrayBuffer());
  assert.equal(requests[0].audio.type, 'audio/wav');
  assert.equal(bytes.length, 44 + 3 * 16000 * 2); // 3 s at 16 kHz, 16-bit
  store.dispatch({ type: 'composer/draft', key: CID, text: 'Plan: hike' }); // typed meanwhile
  requests[0].answer(' Saturday at nine. ');
  await stopping;
  assert.equal(draftOf(store.getState().composer, CID), 'Plan: hike Saturday at nine.');
  assert.equal(store.getState().composer.focus.key, CID);
  assert.deepEqual(sent, []);
  assert.equal(store.getState().voice.dictation, null);
  assert.deepEqual(store.getState().voice.notices, {});
});

test('with "Send when I stop talking", the pause after speech stops, transcribes and sends', async () => {
  const { store, voice, requests, sent, play, saved } = harness({ autoSend: true });
  assert.equal(saved.get(AUTO_SEND_KEY), 'on');
  await voice.start(CID);
  play(0, 500);
  play(0.2, 1500);
  assert.equal(store.getState().voice.dictation?.heard, true);
  play(0, 1100);
  assert.equal(requests.length, 0);
  play(0, 200);
  assert.equal(requests.length, 1);
  requests[0].answer('See you at the trailhead.');
  await settle();
  assert.deepEqual(sent, [`${CID}: See you at the trailhead.`]);
  play(0.2, 500); // the microphone is closed: nothing more is taken
  assert.equal(requests.length, 1);
});

test('cancel drops the recording; a refused microphone and a server without a model say so', async () => {
  const cancelled = harness();
  await cancelled.voice.start(CID);
  cancelled.play(0.2, 500);
  const stopping = cancelled.voice.stop();
  cancelled.voice.cancel();
  cancelled.requests[0].answer('never inserted');
  await stopping;
  assert.equal(draftOf(cancelled.store.getState().composer, CID), '');
  assert.equal(cancelled.store.getState().voice.dictation, null);

  const denied = harness({ captureError: Object.assign(new Error('Permission denied'), { name: 'NotAllowedError' }) });
  await denied.voice.start(CID);
  assert.match(denied.store.getState().voice.notices[CID], /blocked/);
  assert.match(offered(denied.store.getState().voice), /blocked/);

  const noModel = harness();
  noModel.store.dispatch({ type: 'composer/draft', key: CID, text: 'typed before' });
  await noModel.voice.start(CID);
  noModel.play(0.2, 500);
  const failing = noModel.voice.stop();
  noModel.requests[0].refuse(new ApiError(503, 'model_unavailable', 'No speech model: run `sotto model pull whisper-base` and restart the server.'));
  await failing;
  assert.equal(draftOf(noModel.store.getState().composer, CID), 'typed before');
  assert.match(offered(noModel.store.getState().voice), /^Dictation is unavailable: No speech model/);
});

test('with the toggle on, silence alone gives up without sending', async () => {
  const { store, voice, requests, sent, play } = harness({ autoSend: true });
  await voice.start(CID);
  play(0, 10_000);
  assert.equal(requests.length, 0);
  assert.deepEqual(sent, []);
  assert.equal(store.getState().voice.dictation, null);
  assert.equal(store.getState().voice.notices[CID], 'Nothing was heard, so nothing was sent.');
});

test('when the composer cannot send, the words stay in it and the line says why', async () => {
  const { store, voice, requests, sent, play } = harness({ autoSend: true, refuseSend: 'Not sent: the assistant is still answering.' });
  await voice.start(CID);
  play(0.2, 600);
  play(0, 1300);
  requests[0].answer('Stop there.');
  await settle();
  assert.deepEqual(sent, []);
  assert.equal(draftOf(store.getState().composer, CID), 'Stop there.');
  assert.equal(store.getState().voice.notices[CID], 'Not sent: the assistant is still answering.');
});
