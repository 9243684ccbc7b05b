// "Search messages" and "Suggest searches" in the sidebar: the field, the note under it, the
// suggested terms (shown, not offered, until the set is done), and the results with the
// matches highlighted; a result opens its channel at the message.

import { button, byId, el, highlightedNodes, modelLabel, setText } from './dom.js';
import { watch } from './store.js';
import { select } from './state.js';
import { highlightPieces, searchNote, suggestedSearches, suggesting } from './search.js';
import { unavailability } from './session.js';

/**
 * @typedef {import('./types.js').Message} Message
 */

/**
 * @param {import('./state.js').AppStore} store
 * @param {{ run: (query: string) => void, suggest: () => void, open: (message: Message) => void }} handlers
 */
export function mountSearch(store, handlers) {
  const form = byId('search-form', HTMLFormElement);
  const input = byId('search-input', HTMLInputElement);
  const suggest = byId('suggest-searches', HTMLButtonElement);
  const note = byId('search-note');
  const suggested = byId('suggested-searches');
  const heading = /** @type {HTMLElement} */ (suggested.querySelector('h3'));
  const results = byId('search-results');

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    handlers.run(input.value);
  });
  input.addEventListener('input', () => store.dispatch({ type: 'search/field', text: input.value }));
  suggest.addEventListener('click', () => handlers.suggest());

  let shownField = '';
  watch(store, select((state) => [state.search, state.jobs, state.session], (search, jobs, session) => ({ search, jobs, session })),
    ({ search, jobs, session }) => {
      // Written only when the store's field changed (a suggested term run), never over typing.
      if (search.field !== shownField && input.value !== search.field) input.value = search.field;
      shownField = search.field;
      const unavailable = unavailability(session);
      suggest.disabled = Boolean(unavailable) || !search.field.trim() || suggesting(search, jobs);
      setText(note, searchNote(search.field, unavailable));
    });

  /** @type {HTMLUListElement | null} */
  let termList = null;
  /** @type {HTMLElement | null} */
  let termStatus = null;
  let suggestNonce = -1;
  watch(store, select((state) => [state.search.suggest, state.jobs], (suggestState, jobs) => ({ suggestState, jobs })),
    ({ suggestState, jobs }) => {
      if (!suggestState) return;
      if (suggestState.nonce !== suggestNonce || !termList || !termStatus) {
        suggestNonce = suggestState.nonce;
        termList = el('ul');
        termStatus = el('span', 'suggest-status');
        termStatus.setAttribute('role', 'status');
        suggested.replaceChildren(heading, termList, termStatus);
        suggested.hidden = false;
      }
      const shown = suggestedSearches(suggestState, jobs);
      suggested.dataset.status = shown.status;
      const done = shown.status === 'done';
      termList.replaceChildren(...shown.terms.map((term) => {
        const control = button(term, () => handlers.run(term), 'suggested-search');
        control.disabled = !done; // still being written
        const item = el('li');
        item.append(control);
        return item;
      }));
      termStatus.replaceChildren(shown.note, ...modelLabel(shown.model));
    });

  watch(store, (state) => state.search, (search, before) => {
    if (before && search.status === before.status && search.results === before.results && search.query === before.query) return;
    if (!search.status) return;
    results.hidden = false;
    results.dataset.status = search.status;
    if (search.status === 'searching') return;
    if (search.status === 'failed') {
      results.replaceChildren(emptyItem(search.error));
      return;
    }
    results.dataset.query = search.query;
    if (search.results.length === 0) {
      results.replaceChildren(emptyItem(`No messages match “${search.query}”.`));
      return;
    }
    results.replaceChildren(...search.results.map((hit) => {
      const open = button('', () => handlers.open(hit.message), 'search-hit');
      open.dataset.messageId = hit.message.id;
      const text = el('span', 'search-text');
      text.append(...highlightedNodes(highlightPieces(hit.message.text, hit.highlights)));
      open.append(el('span', 'search-where', hit.channel_name), text);
      const item = el('li');
      item.append(open);
      return item;
    }));
  });
}

/** @param {string} text */
function emptyItem(text) {
  return el('li', 'search-empty', text);
}
