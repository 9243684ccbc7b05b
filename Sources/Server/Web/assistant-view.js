// The assistant's main column: title and actions (Rename, Export Markdown, Summarize, Delete),
// the line about the model, settings, the Summarize panel, notices (an error, or a context
// that is full with "Continue in a new session"), the context meter, and the composer's own
// parts (images waiting to be sent, a made one labelled with its model, Attach image, Send that
// becomes Stop while answering).

import { button, el, setText } from './dom.js';
import { watch } from './store.js';
import { select } from './state.js';
import { MAX_IMAGES, meterText, modelLine } from './assistant.js';
import { labelledThumbnail } from './assistant-messages-view.js';

/**
 * @typedef {import('./assistant.js').PendingImage} PendingImage
 *
 * @typedef {object} AssistantHandlers
 * @property {(title: string) => void} rename
 * @property {() => void} remove
 * @property {() => void} exportMarkdown
 * @property {() => void} summarize
 * @property {() => void} continueInNewSession
 * @property {(form: Parameters<ReturnType<typeof import('./assistant-effects.js').assistantEffects>['saveSettings']>[0]) => void} saveSettings
 * @property {(file: File) => void} attach
 * @property {(image: PendingImage) => void} removePending
 */

/**
 * @param {import('./state.js').AppStore} store
 * @param {HTMLElement} root
 * @param {(name: string) => HTMLElement} part
 * @param {import('./images.js').ImageCache} images
 * @param {AssistantHandlers} handlers
 */
export function mountAssistantView(store, root, part, images, handlers) {
  const input = /** @type {HTMLInputElement} */ (part('image-input'));
  part('rename').addEventListener('click', () => {
    const current = store.getState().assistant.current;
    const title = current && window.prompt('Rename this chat', current.title);
    if (title) handlers.rename(title);
  });
  part('delete').addEventListener('click', () => {
    const current = store.getState().assistant.current;
    if (current && window.confirm(`Delete “${current.title}” with all its messages and images?`)) handlers.remove();
  });
  part('export').addEventListener('click', () => handlers.exportMarkdown());
  part('summarize').addEventListener('click', () => handlers.summarize());
  part('attach').addEventListener('click', () => input.click());
  input.addEventListener('change', () => {
    const files = Array.from(input.files || []);
    input.value = '';
    for (const file of files) handlers.attach(file);
  });

  watch(store, (state) => state.session.view, (view) => { root.hidden = view !== 'assistant'; });
  watch(store, (state) => state.assistant.appearance, (appearance) => {
    if (appearance === 'light' || appearance === 'dark') document.documentElement.dataset.theme = appearance;
    else delete document.documentElement.dataset.theme;
  });
  watch(store, (state) => state.assistant.info, (info) => {
    const line = part('model-state');
    if (!info) return;
    const shown = modelLine(info);
    setText(line, shown.text);
    line.dataset.state = shown.state;
  });
  watch(store, select((state) => [state.assistant.current, state.assistant.intro], (current, intro) => ({ current, intro })),
    ({ current, intro }) => {
      setText(part('title'), current ? current.title : 'Assistant');
      part('intro').hidden = !intro || Boolean(current);
      part('actions').hidden = !current;
      part('composer').hidden = !current;
    });
  watch(store, (state) => state.assistant.summary, (summary) => {
    part('summary-panel').hidden = !summary.open;
    part('summary-text').innerHTML = summary.html; // the server's sanitized HTML
    setText(part('summary-status'), summary.status === 'streaming' ? 'Summarizing…' : summary.status === 'failed' ? summary.error : '');
  });
  watch(store, (state) => state.assistant.notice, (notice) => {
    if (!notice) {
      part('notice').replaceChildren();
      return;
    }
    if (notice.kind === 'context_full') {
      const box = el('div', 'context-full');
      box.setAttribute('role', 'alert');
      box.append(el('p', null, notice.message), button('Continue in a new session', () => handlers.continueInNewSession()));
      part('notice').replaceChildren(box);
      return;
    }
    const box = el('p', 'error', notice.message);
    box.setAttribute('role', 'alert');
    part('notice').replaceChildren(box);
  });
  watch(store, (state) => state.assistant.context, (context) => {
    part('meter').hidden = !context;
    if (!context) return;
    const bar = /** @type {HTMLMeterElement} */ (part('meter-bar'));
    bar.max = context.size;
    bar.value = context.used;
    setText(part('meter-text'), meterText(context));
  });
  watch(store, (state) => state.assistant.pending, (pending) => {
    const list = part('pending');
    list.replaceChildren(...pending.map((image) => {
      const item = el('li', 'pending-image');
      item.append(labelledThumbnail(images, image.id, `Image to send: ${image.name}`, image.generatedBy),
        button('Remove', () => handlers.removePending(image), 'remove-image'));
      return item;
    }));
    list.hidden = pending.length === 0;
  });
  const composerState = select((state) => [state.assistant.turn, state.assistant.info, state.assistant.pending, state.tools.assistant],
    (turn, info, pending, session) => ({ turn, info, pending, session }));
  watch(store, composerState, ({ turn, info, pending, session }) => {
    const submit = /** @type {HTMLButtonElement} */ (part('send'));
    setText(submit, turn ? 'Stop' : 'Send');
    submit.classList.toggle('stop', Boolean(turn));
    const unavailable = !info || !info.model.available;
    /** @type {HTMLTextAreaElement} */ (part('input')).disabled = unavailable;
    /** @type {HTMLButtonElement} */ (part('attach')).disabled = unavailable || pending.length >= MAX_IMAGES;
    // While a writing tool's preview is open, Send sends nothing (Stop still stops).
    submit.disabled = !turn && (unavailable || Boolean(session));
  });
  mountSettings(store, part, handlers);
}

/**
 * The settings form: filled from the state when it opens; a persona fills the instructions,
 * and editing them makes the persona "Custom instructions".
 *
 * @param {import('./state.js').AppStore} store
 * @param {(name: string) => HTMLElement} part
 * @param {AssistantHandlers} handlers
 */
function mountSettings(store, part, handlers) {
  const form = /** @type {HTMLFormElement} */ (part('settings'));
  const persona = /** @type {HTMLSelectElement} */ (part('persona'));
  const instructions = /** @type {HTMLTextAreaElement} */ (part('instructions'));
  const temperature = /** @type {HTMLInputElement} */ (part('temperature'));
  const language = /** @type {HTMLSelectElement} */ (part('language'));
  const appearance = /** @type {HTMLSelectElement} */ (part('appearance'));
  const stream = /** @type {HTMLInputElement} */ (part('stream'));
  const showTokens = /** @type {HTMLInputElement} */ (part('show-tokens'));
  const personas = () => (store.getState().assistant.info || { personas: [] }).personas;

  part('settings-toggle').addEventListener('click', () => store.dispatch({ type: 'assistant/settingsOpen', open: form.hidden }));
  persona.addEventListener('change', () => {
    const preset = personas().find((one) => one.id === persona.value);
    if (preset) instructions.value = preset.instructions;
  });
  instructions.addEventListener('input', () => {
    const preset = personas().find((one) => one.id === persona.value);
    if (preset && instructions.value !== preset.instructions) persona.value = 'custom';
  });
  appearance.addEventListener('change', () => store.dispatch({ type: 'assistant/appearance', appearance: appearance.value }));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    handlers.saveSettings({
      stream: stream.checked, showTokens: showTokens.checked, appearance: appearance.value, language: language.value,
      persona: persona.value, instructions: instructions.value, temperature: Number(temperature.value),
    });
  });

  watch(store, (state) => state.assistant.settingsStatus, (text) => setText(part('settings-status'), text));
  watch(store, (state) => state.assistant.settingsOpen, (open) => {
    form.hidden = !open;
    const { info, current } = store.getState().assistant;
    if (!open || !info) return;
    persona.replaceChildren(...info.personas.map((one) => new Option(one.title, one.id)), new Option('Custom instructions', 'custom'));
    persona.value = current ? current.persona : 'general';
    instructions.value = current ? current.instructions : '';
    temperature.value = String(current ? current.temperature : 0.7);
    language.replaceChildren(new Option('The language I write in', ''), ...info.languages.map((one) => new Option(one.name, one.code)));
    language.value = (current && current.language) || '';
    stream.checked = info.settings.stream_responses;
    showTokens.checked = info.settings.show_token_counts;
    appearance.value = info.settings.appearance;
  });
}
