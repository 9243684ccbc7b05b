// The "Summarize channel" panel under the channel's header: the range picker, the summary as it
// streams, and who wrote it.

import { byId, find, modelLabel, option, setText } from './dom.js';
import { watch } from './store.js';
import { select } from './state.js';
import { summaryChoices, summaryView } from './summary.js';

/**
 * @param {import('./state.js').AppStore} store
 * @param {{ summarize: () => void, close: () => void }} handlers
 */
export function mountSummary(store, handlers) {
  const panel = byId('thread-summary');
  const choice = find(panel, 'select', HTMLSelectElement);
  const text = find(panel, '.summary-text');
  const status = find(panel, '.summary-status');
  find(panel, '.summary-run').addEventListener('click', () => handlers.summarize());
  find(panel, '.summary-close').addEventListener('click', () => handlers.close());
  choice.addEventListener('change', () => store.dispatch({ type: 'summary/choice', choice: choice.value }));

  watch(store, (state) => state.summary.unread, (unread) => {
    choice.replaceChildren(...summaryChoices(unread).map((one) => option(one.value, one.label)));
    choice.value = store.getState().summary.choice;
  });
  watch(store, (state) => state.summary.choice, (value) => { choice.value = value; });
  watch(store, select((state) => [state.summary, state.jobs], (summary, jobs) => ({ summary, jobs })), ({ summary, jobs }) => {
    panel.hidden = !summary.open;
    if (!summary.open) {
      setText(text, '');
      setText(status, '');
      return;
    }
    const shown = summaryView(summary, jobs);
    panel.dataset.status = shown.status;
    setText(text, shown.text);
    if (status.textContent !== `${shown.note}${shown.model ? `by ${shown.model}` : ''}`) {
      status.replaceChildren(shown.note, ...modelLabel(shown.model));
    }
  });
}
