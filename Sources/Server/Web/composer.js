// The composers' drafts: one per channel, and the assistant's. A chip, a writing tool's
// Replace or Dismiss puts text in a draft and asks the composer to take the focus with the
// caret at the end; nothing here ever sends.

/**
 * @typedef {import('./state.js').Action} Action
 *
 * @typedef {object} ComposerState
 * @property {Record<string, string>} drafts by composer key: a channel's cid, or `assistant`
 * @property {{ key: string, revision: number }} focus the composer asked to take the focus, and
 *   a count that changes each time it is asked
 *
 * @typedef {{ type: 'composer/draft', key: string, text: string }
 *   | { type: 'composer/insert', key: string, text: string }} ComposerAction
 */

/** The assistant's composer key. */
export const ASSISTANT_COMPOSER = 'assistant';

/** @type {ComposerState} */
export const initialComposer = { drafts: {}, focus: { key: '', revision: 0 } };

/**
 * @param {ComposerState} state
 * @param {Action} action
 * @returns {ComposerState}
 */
export function composer(state, action) {
  switch (action.type) {
    case 'composer/draft':
      if ((state.drafts[action.key] || '') === action.text) return state;
      return { ...state, drafts: { ...state.drafts, [action.key]: action.text } };
    case 'composer/insert':
      return {
        drafts: { ...state.drafts, [action.key]: action.text },
        focus: { key: action.key, revision: state.focus.revision + 1 },
      };
    case 'session/signedOut':
      return initialComposer;
    default:
      return state;
  }
}

/**
 * @param {ComposerState} state
 * @param {string | null} key
 */
export function draftOf(state, key) {
  return key ? state.drafts[key] || '' : '';
}

/**
 * Whether Enter in a composer sends: not with Shift (a new line), and not while an input
 * method composes (CJK: Enter confirms the composition).
 *
 * @param {{ key: string, shiftKey: boolean, isComposing: boolean, keyCode: number }} event
 * @param {boolean} composing whether a `compositionstart` has not yet been followed by its end
 */
export function entersSend(event, composing) {
  if (event.key !== 'Enter' || event.shiftKey) return false;
  return !(event.isComposing || event.keyCode === 229 || composing);
}
