// The "Suggested replies" row above a composer (the channel's, beside the "Formal" toggle; the
// thread panel's): drawn from its suggestions state, absent from the page when there is nothing
// to show. A chip puts its text in the draft; it never sends. A chip still being written is
// shown, not offered.

import { button, byId, el, modelLabel } from './dom.js';
import { watch } from './store.js';
import { select } from './state.js';
import { suggestionsOn } from './session.js';

/**
 * @typedef {object} SuggestionsPlace which row, and where
 * @property {HTMLElement} composer the row goes right before it
 * @property {(state: import('./state.js').State) => import('./suggestions.js').SuggestionsState} part
 * @property {(state: import('./state.js').State) => boolean} open whether its conversation is open
 * @property {boolean} tone whether the "Formal" toggle is beside it
 * @property {string} [id] the row's element id
 * @property {string} label
 */

/**
 * @param {import('./state.js').AppStore} store
 * @param {{ setTone: (tone: import('./suggestions.js').Tone) => void, insert: (text: string) => void }} handlers
 * @param {SuggestionsPlace} [place] default: the channel's row
 */
export function mountSuggestions(store, handlers, place) {
  const where = place || {
    composer: byId('composer'), part: (state) => state.suggestions, open: (state) => Boolean(state.channels.current),
    tone: true, id: 'suggestions', label: 'Suggested replies',
  };
  const composer = where.composer;
  const bar = el('div', 'suggestions-bar');
  const toneLabel = el('label', 'tone-toggle');
  const tone = el('input');
  tone.type = 'checkbox';
  toneLabel.append(tone, ' Formal');
  toneLabel.title = 'Suggest replies in a formal tone';
  tone.addEventListener('change', () => handlers.setTone(tone.checked ? 'formal' : 'casual'));
  if (where.tone) bar.append(toneLabel);

  const row = el('div', 'suggestions');
  if (where.id) row.id = where.id;
  row.setAttribute('role', 'region');
  row.setAttribute('aria-label', where.label);
  row.setAttribute('aria-live', 'polite');

  const picked = select((state) => [where.part(state), state.session, where.open(state)],
    (suggestions, session, open) => ({ suggestions, on: suggestionsOn(session), open }));
  let drawn = '';
  watch(store, picked, ({ suggestions, on, open }) => {
    tone.checked = suggestions.tone === 'formal';
    if (!on || !open) {
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
