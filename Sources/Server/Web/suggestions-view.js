// The "Suggested replies" row above the channel composer, beside the "Formal" toggle: drawn
// from the suggestions state, absent from the page when there is nothing to show. A chip puts
// its text in the draft; it never sends. A chip still being written is shown, not offered.

import { button, byId, el, modelLabel } from './dom.js';
import { watch } from './store.js';
import { select } from './state.js';
import { suggestionsOn } from './session.js';

/**
 * @param {import('./state.js').AppStore} store
 * @param {{ setTone: (tone: import('./suggestions.js').Tone) => void, insert: (text: string) => void }} handlers
 */
export function mountSuggestions(store, handlers) {
  const composer = byId('composer');
  const bar = el('div', 'suggestions-bar');
  const toneLabel = el('label', 'tone-toggle');
  const tone = el('input');
  tone.type = 'checkbox';
  toneLabel.append(tone, ' Formal');
  toneLabel.title = 'Suggest replies in a formal tone';
  tone.addEventListener('change', () => handlers.setTone(tone.checked ? 'formal' : 'casual'));
  bar.append(toneLabel);

  const row = el('div', 'suggestions');
  row.id = 'suggestions';
  row.setAttribute('role', 'region');
  row.setAttribute('aria-label', 'Suggested replies');
  row.setAttribute('aria-live', 'polite');

  const picked = select((state) => [state.suggestions, state.session, state.channels.current],
    (suggestions, session, cid) => ({ suggestions, on: suggestionsOn(session), cid }));
  let drawn = '';
  watch(store, picked, ({ suggestions, on, cid }) => {
    tone.checked = suggestions.tone === 'formal';
    if (!on || !cid) {
      bar.remove();
      return;
    }
    if (!bar.isConnected) composer.before(bar);
    const shown = suggestions.shown;
    if (!shown) {
      row.remove();
      return;
    }
    if (!row.isConnected) bar.prepend(row);
    const key = JSON.stringify(shown);
    if (key === drawn) return;
    drawn = key;
    row.dataset.status = shown.status;
    row.dataset.signature = shown.signature;
    row.dataset.tone = shown.tone;
    if (shown.status === 'pending') {
      row.replaceChildren(el('span', 'pending', 'Suggesting replies…'));
      return;
    }
    row.replaceChildren(...shown.chips.map((text) => {
      const chip = button(text, () => handlers.insert(text), shown.status === 'streaming' ? 'chip streaming' : 'chip');
      // A chip still being written may yet change or be dropped.
      chip.disabled = shown.status === 'streaming';
      return chip;
    }), ...modelLabel(shown.model, 'suggestions-model'));
  });
}
