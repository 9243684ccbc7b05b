// The microphone, opened for one dictation: getUserMedia, an AudioContext at the device's
// rate, and the AudioWorklet tap (voice-worklet.js) that hands over its samples a chunk at a
// time. Everything else (levels, the pause detector, resampling, WAV) is voice-audio.js's.

/**
 * @typedef {object} Capture
 * @property {number} rate the chunks' sample rate
 * @property {() => void} stop closes the microphone (its light goes off) and the audio graph
 *
 * @typedef {(onChunk: (samples: Float32Array, rate: number) => void) => Promise<Capture>} StartCapture
 */

/**
 * Why this browser cannot record here ('' when it can): the APIs exist only on a secure page
 * (https, or localhost).
 */
export function captureUnsupported() {
  if (typeof window === 'undefined') return 'Dictation needs a browser.';
  if (!window.isSecureContext) return 'Dictation needs a secure page: open Sotto over https or on localhost.';
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia || typeof AudioWorkletNode === 'undefined') {
    return 'This browser cannot record audio for dictation.';
  }
  return '';
}

/** @type {StartCapture} */
export async function startCapture(onChunk) {
  const stream = await navigator.mediaDevices.getUserMedia({
    // The voice as the microphone hears it, levelled: the browser's noise suppression takes
    // sounds out of words that Whisper, trained on noisy speech, would have read.
    audio: { channelCount: 1, echoCancellation: false, noiseSuppression: false, autoGainControl: true },
  });
  const context = new AudioContext();
  const close = () => {
    for (const track of stream.getTracks()) track.stop();
    context.close().catch(() => {});
  };
  try {
    await context.audioWorklet.addModule(new URL('voice-worklet.js', import.meta.url));
    const source = context.createMediaStreamSource(stream);
    const tap = new AudioWorkletNode(context, 'sotto-voice-tap');
    // A node is run only while it leads to the output: through a gain of 0, nothing is heard.
    const mute = context.createGain();
    mute.gain.value = 0;
    tap.port.onmessage = (event) => onChunk(/** @type {Float32Array} */ (event.data), context.sampleRate);
    source.connect(tap);
    tap.connect(mute);
    mute.connect(context.destination);
    await context.resume();
    return {
      rate: context.sampleRate,
      stop() {
        tap.port.onmessage = null;
        source.disconnect();
        close();
      },
    };
  } catch (error) {
    close();
    throw error;
  }
}
