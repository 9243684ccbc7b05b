// Choices under the channel composer while an `@…` is typed: the channel's members whose id or
// name starts with it. A click, or Tab for the first, puts `@id ` in its place.

import { button, el } from './dom.js';
import { currentSummary } from './channels.js';
import { completeMention, mentionChoices, mentionQuery } from './mentions.js';

/**
 * @param {import('./state.js').AppStore} store
 * @param {HTMLFormElement} form the channel composer
 * @param {HTMLTextAreaElement} textarea
 */
export function mountMentionChoices(store, form, textarea) {
  const list = el('div', 'mention-choices');
  list.setAttribute('role', 'listbox');
  list.setAttribute('aria-label', 'Mention someone');
  list.hidden = true;
  form.before(list);
  /** @type {Array<{ id: string, name: string }>} */
  let shown = [];

  function choices() {
    const query = textarea.selectionStart === textarea.selectionEnd ? mentionQuery(textarea.value, textarea.selectionStart) : null;
    if (query === null) return [];
    const state = store.getState();
    const summary = currentSummary(state.channels);
    const me = state.session.me ? state.session.me.id : null;
    return summary ? mentionChoices(query, summary.members, me) : [];
  }

  function draw() {
    shown = choices();
    list.hidden = shown.length === 0;
    list.replaceChildren(...shown.map((member) => {
      const choice = button(`@${member.id} · ${member.name}`, () => pick(member.id));
      choice.setAttribute('role', 'option');
      return choice;
    }));
  }

  /** @param {string} id */
  function pick(id) {
    const done = completeMention(textarea.value, textarea.selectionStart, id);
    textarea.value = done.text;
    textarea.setSelectionRange(done.caret, done.caret);
    textarea.dispatchEvent(new Event('input')); // the draft follows, as when typed
    textarea.focus();
    draw();
  }

  textarea.addEventListener('input', draw);
  textarea.addEventListener('click', draw);
  textarea.addEventListener('blur', () => setTimeout(draw, 150)); // after a click on a choice
  textarea.addEventListener('keydown', (event) => {
    if (event.key === 'Tab' && shown.length > 0) {
      event.preventDefault();
      pick(shown[0].id);
    } else if (event.key === 'Escape' && shown.length > 0) {
      shown = [];
      list.hidden = true;
    }
  }, { capture: true });
}
