// Dictation's sound as pure functions: the microphone's samples resampled to the 16 kHz the
// speech model reads, made 16-bit and wrapped in a WAV file (its RIFF header written here: the
// server reads WAV at any rate, and this needs no codec on either side), their level, and the
// detector that hears the pause ending an utterance ("Send when I stop talking").

/** The rate the server's Whisper reads (any other is resampled there too, at more bytes sent). */
export const TARGET_RATE = 16000;

/** Half the taps of the resampling filter, counted at the lower of the two rates. */
const HALF_TAPS = 16;

/**
 * `samples` at `from` Hz as samples at `to` Hz: each output sample is the input low-pass
 * filtered at 45 % of the lower rate (a Hann-windowed sinc, weights normalized so a constant
 * stays that constant) and read at the output sample's instant. Downsampling without the filter
 * would fold the 8–24 kHz a 48 kHz microphone hears into the speech band.
 *
 * @param {Float32Array} samples
 * @param {number} from
 * @param {number} to
 * @returns {Float32Array}
 */
export function resample(samples, from, to) {
  if (!(from > 0 && to > 0)) throw new RangeError(`cannot resample from ${from} Hz to ${to} Hz`);
  if (from === to) return Float32Array.from(samples);
  const step = from / to; // input samples per output sample
  const length = Math.round(samples.length / step);
  const out = new Float32Array(length);
  // The cutoff in cycles per input sample, and the filter's reach in input samples.
  const cutoff = (0.45 * Math.min(from, to)) / from;
  const reach = HALF_TAPS * Math.max(1, step);
  for (let index = 0; index < length; index += 1) {
    const at = index * step;
    const first = Math.max(0, Math.ceil(at - reach));
    const last = Math.min(samples.length - 1, Math.floor(at + reach));
    let sum = 0;
    let weights = 0;
    for (let k = first; k <= last; k += 1) {
      const distance = k - at;
      const x = 2 * cutoff * distance;
      const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
      const window = 0.5 + 0.5 * Math.cos((Math.PI * distance) / reach);
      const weight = sinc * window;
      sum += samples[k] * weight;
      weights += weight;
    }
    out[index] = weights > 0 ? sum / weights : 0;
  }
  return out;
}

/**
 * Float samples (−1…1, louder clipped) as 16-bit integers.
 *
 * @param {Float32Array} samples
 * @returns {Int16Array}
 */
export function toPCM16(samples) {
  const out = new Int16Array(samples.length);
  for (let index = 0; index < samples.length; index += 1) {
    const value = Math.max(-1, Math.min(1, samples[index]));
    out[index] = Math.round(value < 0 ? value * 32768 : value * 32767);
  }
  return out;
}

/**
 * A mono 16-bit PCM WAV file: the 44-byte RIFF header (`RIFF` size `WAVE`, a 16-byte `fmt `
 * chunk of format 1, `data` size), then the samples, little-endian.
 *
 * @param {Int16Array} pcm
 * @param {number} rate
 * @returns {Uint8Array}
 */
export function encodeWAV(pcm, rate) {
  const dataBytes = pcm.length * 2;
  const bytes = new Uint8Array(44 + dataBytes);
  const view = new DataView(bytes.buffer);
  const ascii = (/** @type {number} */ offset, /** @type {string} */ text) => {
    for (let index = 0; index < text.length; index += 1) bytes[offset + index] = text.charCodeAt(index);
  };
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true); // the fmt chunk's size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, rate, true);
  view.setUint32(28, rate * 2, true); // bytes per second
  view.setUint16(32, 2, true); // bytes per frame
  view.setUint16(34, 16, true); // bits per sample
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
  for (let index = 0; index < pcm.length; index += 1) view.setInt16(44 + index * 2, pcm[index], true);
  return bytes;
}

/**
 * The recording as the WAV file the server is sent: the chunks in order, at 16 kHz.
 *
 * @param {Float32Array[]} chunks
 * @param {number} rate the chunks' rate
 * @returns {Uint8Array}
 */
export function dictationWAV(chunks, rate) {
  const total = chunks.reduce((count, chunk) => count + chunk.length, 0);
  const joined = new Float32Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.length;
  }
  return encodeWAV(toPCM16(resample(joined, rate, TARGET_RATE)), TARGET_RATE);
}

/**
 * The root mean square of `samples` (0 for none): 1 is a full-scale square wave.
 *
 * @param {Float32Array} samples
 */
export function rms(samples) {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (let index = 0; index < samples.length; index += 1) sum += samples[index] * samples[index];
  return Math.sqrt(sum / samples.length);
}

/**
 * A level meter's fill (0…1) for an RMS level: −60 dBFS and below empty, 0 dBFS full.
 *
 * @param {number} level
 */
export function meterFill(level) {
  if (!(level > 0)) return 0;
  const decibels = 20 * Math.log10(level);
  return Math.max(0, Math.min(1, (decibels + 60) / 60));
}

/**
 * @typedef {object} SilenceOptions
 * @property {number} speechLevel the RMS level below which nothing is speech (−44 dBFS)
 * @property {number} aboveFloor how many times the room's noise floor speech is
 * @property {number} loudLevel the RMS level that is speech whatever the floor (−26 dBFS: a voice
 *   near the microphone; the floor is learnt from the first moments, which may be speech already)
 * @property {number} speechMs voiced time before an utterance counts (a click is not one)
 * @property {number} silenceMs the pause that ends an utterance
 * @property {number} noSpeechMs how long to wait for speech at all
 *
 * @typedef {object} SilenceState
 * @property {'waiting' | 'speaking' | 'ended' | 'no-speech'} phase `ended`: an utterance and
 *   then a pause of `silenceMs`; `no-speech`: nothing for `noSpeechMs`
 * @property {number} elapsedMs audio heard so far
 * @property {number} voicedMs voiced time while waiting
 * @property {number} quietMs the pause so far while speaking
 * @property {number} floor the noise floor (RMS): follows quieter moments at once, louder ones slowly
 */

/** @type {SilenceOptions} */
export const SILENCE_DEFAULTS = { speechLevel: 0.006, aboveFloor: 4, loudLevel: 0.05, speechMs: 250, silenceMs: 1200, noSpeechMs: 10000 };

/** @type {SilenceState} */
export const SILENCE_START = { phase: 'waiting', elapsedMs: 0, voicedMs: 0, quietMs: 0, floor: -1 };

/**
 * The detector after `ms` more audio at RMS `level`: a pure state machine, fed a chunk at a
 * time. Speech is a level above `loudLevel`, or above both `speechLevel` and `aboveFloor` times
 * the noise floor; an
 * utterance ends at the first pause of `silenceMs` after `speechMs` of speech. `ended` and
 * `no-speech` are final.
 *
 * @param {SilenceState} state
 * @param {number} level
 * @param {number} ms
 * @param {SilenceOptions} [options]
 * @returns {SilenceState}
 */
export function detectSilence(state, level, ms, options = SILENCE_DEFAULTS) {
  if (state.phase === 'ended' || state.phase === 'no-speech') return state;
  const elapsedMs = state.elapsedMs + ms;
  // The floor drops to any quieter moment and rises by at most 2 % per 100 ms, so that a
  // steady noise is learnt and speech (with its dips between words) is not.
  const grown = state.floor < 0 ? level : state.floor * Math.pow(1.02, ms / 100);
  const voiced = level > options.loudLevel || level > Math.max(options.speechLevel, options.aboveFloor * grown);
  const floor = Math.min(level, grown);
  if (state.phase === 'waiting') {
    const voicedMs = voiced ? state.voicedMs + ms : state.voicedMs;
    if (voicedMs >= options.speechMs) return { phase: 'speaking', elapsedMs, voicedMs, quietMs: 0, floor };
    if (elapsedMs >= options.noSpeechMs) return { phase: 'no-speech', elapsedMs, voicedMs, quietMs: 0, floor };
    return { phase: 'waiting', elapsedMs, voicedMs, quietMs: 0, floor };
  }
  const quietMs = voiced ? 0 : state.quietMs + ms;
  return { phase: quietMs >= options.silenceMs ? 'ended' : 'speaking', elapsedMs, voicedMs: state.voicedMs, quietMs, floor };
}
