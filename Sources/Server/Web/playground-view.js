// Image Playground's parts of the assistant's composer: the image button beside "Attach image"
// (a picture, "Make image" to screen readers; there only when the server makes images; its
// title names the model and says where the description goes), and the prompt row it opens above the composer: the description (the
// composer's text, if any), the size, Make and Cancel, and while an image is being made, which
// model is making it.

import { button, el, icon, option, setText } from './dom.js';
import { watch } from './store.js';
import { select } from './state.js';
import { MAX_IMAGES } from './assistant.js';
import { ASSISTANT_COMPOSER } from './composer.js';
import { buttonTitle, progressText, sizeLabel } from './playground.js';

/**
 * @typedef {object} PlaygroundBinding
 * @property {HTMLFormElement} form the assistant's composer (the row goes before it)
 * @property {HTMLElement} after the element the button goes after ("Attach image")
 * @property {{ make: () => void }} handlers
 */

/** A picture (a sun over hills, in a frame) with a spark: an image to be made. */
function imageIcon() {
  const line = { fill: 'none', stroke: 'currentColor', 'stroke-width': '2', 'stroke-linecap': 'round', 'stroke-linejoin': 'round' };
  return icon([
    ['path', { d: 'M15 5H5a2 2 0 0 0-2 2v11a2 2 0 0 0 2 2h13a2 2 0 0 0 2-2v-7', ...line }],
    ['path', { d: 'M3 17l5-5 4 4 2-2 6 5', ...line }],
    ['circle', { cx: '9', cy: '9', r: '1.6', fill: 'currentColor' }],
    ['path', { d: 'M19 1.5v5M16.5 4h5', ...line }],
  ]);
}

/**
 * @param {import('./state.js').AppStore} store
 * @param {PlaygroundBinding} binding
 */
export function mountPlayground(store, binding) {
  const open = button('', () => {
    const state = store.getState();
    if (state.playground.open) store.dispatch({ type: 'playground/close' });
    else store.dispatch({ type: 'playground/open', prompt: state.composer.drafts[ASSISTANT_COMPOSER] || '' });
  }, 'make-image');
  open.append(imageIcon());
  open.setAttribute('aria-label', 'Make image');
  open.setAttribute('aria-expanded', 'false');
  binding.after.after(open);

  const row = el('div', 'playground');
  row.setAttribute('role', 'group');
  row.setAttribute('aria-label', 'Make an image');
  const describe = el('label', null, 'Describe the image');
  describe.htmlFor = 'playground-prompt';
  const prompt = el('input', 'playground-prompt');
  prompt.id = 'playground-prompt';
  prompt.type = 'text';
  prompt.autocomplete = 'off';
  prompt.addEventListener('input', () => store.dispatch({ type: 'playground/prompt', text: prompt.value }));
  // Enter makes the image (not while an input method composes); Escape closes the row.
  prompt.addEventListener('keydown', (event) => {
    if (event.isComposing || (event.key !== 'Enter' && event.key !== 'Escape')) return;
    event.preventDefault();
    if (event.key === 'Enter') binding.handlers.make();
    else store.dispatch({ type: 'playground/close' });
  });
  const size = el('select', 'playground-size');
  size.setAttribute('aria-label', 'Size');
  size.addEventListener('change', () => store.dispatch({ type: 'playground/size', size: size.value }));
  const make = button('Make', () => binding.handlers.make(), 'playground-make');
  const cancel = button('Cancel', () => store.dispatch({ type: 'playground/close' }), 'link playground-cancel');
  const status = el('span', 'playground-status');
  status.setAttribute('role', 'status');
  row.append(describe, prompt, size, make, cancel, status);
  row.hidden = true;
  binding.form.before(row);

  const picked = select((state) => [state.playground, state.assistant.current, state.assistant.info, state.assistant.pending],
    (playground, current, info, pending) => ({ playground, current, info, pending }));
  let wasOpen = false;
  watch(store, picked, ({ playground, current, info, pending }) => {
    const model = playground.model;
    const generating = playground.status === 'generating';
    const opened = playground.open && !wasOpen;
    const closed = !playground.open && wasOpen;
    wasOpen = playground.open;
    // Closed with the focus in it (made, Cancel, Escape), or nowhere (Make, pressed, was
    // disabled while the image was made): the focus goes back to the message.
    const focus = document.activeElement;
    if (closed && (!focus || focus === document.body || row.contains(focus))) {
      const textarea = binding.form.querySelector('textarea');
      if (textarea) textarea.focus();
    }
    open.hidden = !model;
    row.hidden = !model || !current || !playground.open;
    if (!model) return;
    const unavailable = !info || !info.model.available;
    open.disabled = !current || unavailable || generating || pending.length >= MAX_IMAGES;
    open.title = generating ? progressText(model) : buttonTitle(model);
    open.setAttribute('aria-expanded', String(playground.open));
    open.classList.toggle('active', playground.open);

    // The text is written from the store when the row opens (the composer's text, or the last
    // description), never over what is being typed.
    if (opened) {
      prompt.value = playground.prompt;
      prompt.focus();
      prompt.setSelectionRange(prompt.value.length, prompt.value.length);
    }
    if (size.dataset.sizes !== playground.sizes.join()) {
      size.dataset.sizes = playground.sizes.join();
      size.replaceChildren(...playground.sizes.map((value) => option(value, sizeLabel(value))));
    }
    size.value = playground.size;
    make.disabled = generating || unavailable || pending.length >= MAX_IMAGES;
    size.disabled = generating;
    cancel.hidden = generating;
    row.dataset.status = playground.status;
    setText(status, generating ? progressText(model) : '');
  });
}
