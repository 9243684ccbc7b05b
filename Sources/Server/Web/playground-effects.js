// Image Playground's request: the description checked as the server checks it, sent for the open
// conversation, and the image the server keeps added to the composer's waiting images (labelled
// with the model that made it). A failure's words go where attach errors go; the description
// stays in the row.

import { ApiError } from './api.js';
import { messageOf } from './context.js';
import { MAX_IMAGES } from './assistant.js';
import { imageError, promptProblem } from './playground.js';

/** @typedef {import('./context.js').AppContext} AppContext */

/** @param {AppContext} ctx */
export function playgroundEffects(ctx) {
  const { store } = ctx;

  /** @param {string} message */
  function notice(message) {
    store.dispatch({ type: 'assistant/notice', notice: message ? { kind: 'error', message } : null });
  }

  /**
   * Makes an image of the row's description at its size, for the open conversation.
   *
   * @returns {Promise<void>}
   */
  async function make() {
    const state = store.getState();
    const { playground, assistant } = state;
    const current = assistant.current;
    if (!current || !playground.model || playground.status === 'generating') return;
    const problem = promptProblem(playground.prompt);
    if (problem) {
      notice(problem);
      return;
    }
    if (assistant.pending.length >= MAX_IMAGES) {
      notice(`A message takes at most ${MAX_IMAGES} images: remove one first.`);
      return;
    }
    notice('');
    const id = ctx.nonce();
    const prompt = playground.prompt.trim();
    store.dispatch({ type: 'playground/started', id, conversationId: current.id });
    let image;
    try {
      image = await ctx.api().generateAssistantImage(current.id, prompt, playground.size);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) ctx.fail(error);
      const described = error instanceof ApiError ? imageError(error) : { message: `No image was made: ${messageOf(error)}`, off: false };
      store.dispatch({ type: 'playground/failed', id, message: described.message, off: described.off });
      if (isOpen(current.id)) notice(described.message);
      return;
    }
    store.dispatch({ type: 'playground/done', id });
    // Made for a conversation no longer open, it waits there on the server and shows when that
    // conversation opens again.
    if (!isOpen(current.id)) return;
    const generatedBy = image.generated_by || playground.model;
    store.dispatch({ type: 'assistant/pendingAdded', image: { id: image.id, name: prompt, generatedBy } });
  }

  /** @param {string} conversationId */
  function isOpen(conversationId) {
    const now = store.getState().assistant.current;
    return Boolean(now && now.id === conversationId);
  }

  return { make };
}
