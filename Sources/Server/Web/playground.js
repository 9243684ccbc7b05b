// Image Playground in the assistant's composer: an image made from a description by the image
// server the administrator configured (an OpenAI-compatible /v1/images/generations endpoint; off
// by default, and with none there is no button). The server stores the image as one waiting to
// be sent, exactly like an attached file. Here: whether it is offered (and by which model), the
// prompt row (open, its description and size), and the one request at a time, idle →
// generating → done or failed. A failure keeps the description; its words go where the
// composer's attach errors go (the assistant's notice).

/**
 * @typedef {import('./state.js').Action} Action
 * @typedef {import('./types.js').ImagesState} ImagesState
 *
 * @typedef {'idle' | 'generating' | 'done' | 'failed'} PlaygroundStatus
 *
 * @typedef {object} PlaygroundState
 * @property {string | null} model the image server's model (null: images are not offered)
 * @property {boolean} open whether the prompt row shows
 * @property {string} prompt the description in the prompt row
 * @property {string[]} sizes the sizes the server takes (`512x512`, …)
 * @property {string} size the one chosen
 * @property {PlaygroundStatus} status the last request's
 * @property {number} requestId the last request's (0: none yet)
 * @property {string | null} conversationId the conversation the last request's image goes to
 * @property {string} error why the last request failed ('' unless it did)
 *
 * @typedef {{ type: 'playground/open', prompt: string }
 *   | { type: 'playground/close' }
 *   | { type: 'playground/prompt', text: string }
 *   | { type: 'playground/size', size: string }
 *   | { type: 'playground/started', id: number, conversationId: string }
 *   | { type: 'playground/done', id: number }
 *   | { type: 'playground/failed', id: number, message: string, off: boolean }} PlaygroundAction
 */

/** The sizes a server that does not list them takes, smallest first. */
export const IMAGE_SIZES = ['256x256', '512x512', '1024x1024'];
/** The size the prompt row starts with (when the server takes it). */
export const DEFAULT_IMAGE_SIZE = '512x512';
/** The longest description the server takes, in characters. */
export const MAX_PROMPT_CHARACTERS = 1000;

/** @type {PlaygroundState} */
export const initialPlayground = {
  model: null, open: false, prompt: '', sizes: IMAGE_SIZES, size: DEFAULT_IMAGE_SIZE, status: 'idle', requestId: 0, conversationId: null, error: '',
};

/**
 * @param {PlaygroundState} state
 * @param {Action} action
 * @returns {PlaygroundState}
 */
export function playground(state, action) {
  switch (action.type) {
    case 'session/signedIn': {
      const sizes = imageSizes(action.me.images);
      return { ...initialPlayground, model: imagesModel(action.me.images), sizes, size: sizes.includes(DEFAULT_IMAGE_SIZE) ? DEFAULT_IMAGE_SIZE : sizes[0] };
    }
    case 'session/signedOut':
      return initialPlayground;
    case 'playground/open':
      if (!state.model) return state;
      // The composer's text, when there is some, is the description; else the last one stays.
      return { ...state, open: true, prompt: action.prompt.trim() ? action.prompt : state.prompt };
    case 'playground/close':
      // Closing while an image is being made would hide where it stands.
      return state.open && state.status !== 'generating' ? { ...state, open: false } : state;
    case 'playground/prompt':
      return state.prompt === action.text ? state : { ...state, prompt: action.text };
    case 'playground/size':
      return state.size === action.size || !state.sizes.includes(action.size) ? state : { ...state, size: action.size };
    case 'playground/started':
      if (!state.model || state.status === 'generating') return state;
      return { ...state, status: 'generating', requestId: action.id, conversationId: action.conversationId, error: '' };
    case 'playground/done':
      if (state.status !== 'generating' || state.requestId !== action.id) return state;
      // The image waits in the composer; the row closes, and the description stays for next time.
      return { ...state, status: 'done', open: false };
    case 'playground/failed':
      if (state.status !== 'generating' || state.requestId !== action.id) return state;
      // The row stays open with the description, to try again; a server that no longer makes
      // images loses the button.
      return action.off
        ? { ...state, status: 'failed', error: action.message, model: null, open: false }
        : { ...state, status: 'failed', error: action.message };
    default:
      return state;
  }
}

/**
 * The image server's model from `GET /api/me`'s `images` (null: images are not offered, also
 * by a server older than Image Playground).
 *
 * @param {ImagesState | undefined} images
 */
export function imagesModel(images) {
  return images && images.available && images.model ? images.model : null;
}

/**
 * The sizes the server takes, as `GET /api/me`'s `images` lists them (else the usual three).
 *
 * @param {ImagesState | undefined} images
 */
export function imageSizes(images) {
  const listed = images && images.sizes ? images.sizes.filter((size) => /^\d+x\d+$/.test(size)) : [];
  return listed.length ? listed : IMAGE_SIZES;
}

/**
 * What is wrong with a description, in words ('' when the server will take it): empty, or
 * longer than it takes (counted as a reader counts characters: an emoji is one).
 *
 * @param {string} prompt
 */
export function promptProblem(prompt) {
  const text = prompt.trim();
  if (!text) return 'Describe the image to make.';
  const length = characterCount(text);
  if (length > MAX_PROMPT_CHARACTERS) {
    return `The description is ${length} characters long; the image server takes at most ${MAX_PROMPT_CHARACTERS}.`;
  }
  return '';
}

/**
 * Characters as a reader counts them (grapheme clusters), as the server counts them.
 *
 * @param {string} text
 */
export function characterCount(text) {
  return Array.from(new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(text)).length;
}

/**
 * The image button's title: what it does and where the description goes.
 *
 * @param {string} model
 */
export function buttonTitle(model) {
  return `Make an image with ${model} (sent to the configured image server)`;
}

/**
 * What the prompt row says while an image is being made.
 *
 * @param {string} model
 */
export function progressText(model) {
  return `Making an image with ${model}…`;
}

/**
 * The label under a made image, in the composer and in the conversation.
 *
 * @param {string} model
 */
export function madeByLabel(model) {
  return `Made by ${model}`;
}

/**
 * A size as the menu shows it: `512 × 512`.
 *
 * @param {string} size
 */
export function sizeLabel(size) {
  return size.replace('x', ' × ');
}

/**
 * A failed request in words, and whether the server no longer makes images (the button goes).
 * The server's messages are safe to show (they never carry the image server's address); a 502's
 * already says that no image came and why ("No image: the image server answered 500: …").
 *
 * @param {{ status?: number, code?: string, message?: string }} error an `ApiError`
 * @returns {{ message: string, off: boolean }}
 */
export function imageError(error) {
  const said = error.message || 'unknown error';
  if (error.code === 'images_off') return { message: 'Making images is turned off on this server.', off: true };
  if (error.status === 429) return { message: 'An image is already being made: wait for it, then try again.', off: false };
  if (error.status === 0) return { message: 'The server cannot be reached: no image was made.', off: false };
  if (error.status === 413) return { message: 'No image was made: the image server sent an image larger than this server takes.', off: false };
  if (error.status === 502) return { message: said, off: false };
  return { message: `No image was made: ${said}`, off: false };
}
