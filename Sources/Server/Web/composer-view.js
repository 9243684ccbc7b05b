// A composer (the channel's or the assistant's): its text is the draft in the store, Enter
// sends (never Shift+Enter, never while an input method composes), and while a writing tool's
// preview is open it is read-only and Send sends nothing.

import { sendOnEnter } from './dom.js';
import { watch } from './store.js';
import { select } from './state.js';
import { entersSend } from './composer.js';

/**
 * @typedef {import('./state.js').State} State
 *
 * @typedef {object} ComposerBinding
 * @property {HTMLFormElement} form
 * @property {HTMLTextAreaElement} textarea
 * @property {(state: State) => string | null} key the draft it edits (null: none)
 * @property {import('./tools.js').ToolComposer} tools the writing tools' session it shares
 * @property {(text: string) => void} submit sends (called only when the preview is closed)
 * @property {() => boolean} [letsThrough] whether a submit goes through while a preview is open
 *   (the assistant's Stop)
 * @property {() => void} [typed] after each change by the user
 * @property {boolean} [ownsSubmit] whether this view turns Send off while a preview is open
 *   (default true; the assistant's view draws its Send/Stop button itself)
 */

/**
 * @param {import('./state.js').AppStore} store
 * @param {ComposerBinding} binding
 */
export function mountComposer(store, binding) {
  const { form, textarea } = binding;
  const letsThrough = binding.letsThrough || (() => false);
  textarea.addEventListener('input', () => {
    const key = binding.key(store.getState());
    if (key) store.dispatch({ type: 'composer/draft', key, text: textarea.value });
    if (binding.typed) binding.typed();
  });
  sendOnEnter(textarea, () => form.requestSubmit(), entersSend);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    // While a preview is open the draft stays as it was: nothing is sent, nothing is lost.
    if (store.getState().tools[binding.tools] && !letsThrough()) return;
    binding.submit(textarea.value);
  });

  const picked = select((state) => [binding.key(state), state.composer, state.tools[binding.tools]],
    (key, composer, session) => ({ key, composer, session }));
  /** @type {number} */
  let focused = store.getState().composer.focus.revision;
  // The text is written from the store only when the store's draft changed (a chip, a channel
  // switch, a send), never from a stale draft over what the user is typing.
  /** @type {string | null} */
  let shownKey = null;
  let shownDraft = '';
  watch(store, picked, ({ key, composer, session }) => {
    const draft = key ? composer.drafts[key] || '' : '';
    if ((key !== shownKey || draft !== shownDraft) && textarea.value !== draft) textarea.value = draft;
    shownKey = key;
    shownDraft = draft;
    textarea.readOnly = Boolean(session);
    if (binding.ownsSubmit !== false) {
      // Off while a preview is open, so that it does not look as if it would send the preview.
      for (const control of form.querySelectorAll('button[type="submit"]')) /** @type {HTMLButtonElement} */ (control).disabled = Boolean(session);
    }
    if (key && composer.focus.key === key && composer.focus.revision !== focused) {
      focused = composer.focus.revision;
      textarea.focus();
      textarea.setSelectionRange(draft.length, draft.length);
    }
  });
}
