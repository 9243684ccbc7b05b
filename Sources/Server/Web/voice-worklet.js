// The microphone's tap: an AudioWorklet processor, run on the browser's audio thread, that
// posts the first input channel to the page in chunks of 2048 frames (43 ms at 48 kHz) and
// outputs nothing. The page (voice-capture.js) resamples, meters and encodes them.
//
// It runs in the AudioWorkletGlobalScope, whose `AudioWorkletProcessor` and `registerProcessor`
// the page's types (lib "dom") do not describe: they are read from the global object.

const scope = /** @type {any} */ (globalThis);
const CHUNK_FRAMES = 2048;

class VoiceTap extends scope.AudioWorkletProcessor {
  constructor() {
    super();
    this.chunk = new Float32Array(CHUNK_FRAMES);
    this.filled = 0;
  }

  /**
   * @param {Float32Array[][]} inputs
   * @returns {boolean} true: keep running while the node lives
   */
  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (!channel) return true;
    let offset = 0;
    while (offset < channel.length) {
      const count = Math.min(channel.length - offset, CHUNK_FRAMES - this.filled);
      this.chunk.set(channel.subarray(offset, offset + count), this.filled);
      this.filled += count;
      offset += count;
      if (this.filled === CHUNK_FRAMES) {
        this.port.postMessage(this.chunk, [this.chunk.buffer]);
        this.chunk = new Float32Array(CHUNK_FRAMES);
        this.filled = 0;
      }
    }
    return true;
  }
}

scope.registerProcessor('sotto-voice-tap', VoiceTap);
