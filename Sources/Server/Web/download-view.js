// "Download model" (a button, a progress bar while the server fetches the model, then the wait
// while it starts again), drawn wherever the page offers it: the sidebar and the assistant.

import { el, setText } from './dom.js';
import { watch } from './store.js';
import { downloadView } from './download.js';

/**
 * @param {import('./state.js').AppStore} store
 * @param {{ start: () => void }} handlers
 * @param {(state: import('./state.js').State) => boolean} offered whether this place offers it
 * @returns {HTMLElement} the box, for the caller to place
 */
export function mountDownload(store, handlers, offered) {
  const node = el('div', 'model-download');
  node.hidden = true;
  const start = el('button');
  start.type = 'button';
  start.addEventListener('click', () => {
    start.disabled = true;
    handlers.start();
  });
  const bar = el('progress');
  bar.max = 1;
  bar.hidden = true;
  bar.setAttribute('aria-label', 'Model download');
  const status = el('span', 'download-status');
  status.setAttribute('role', 'status');
  node.append(start, bar, status);

  watch(store, (state) => offered(state) ? state.download : null, (download) => {
    const shown = download && downloadView(download);
    node.hidden = !shown;
    if (!shown || !download) return;
    node.dataset.status = shown.status;
    setText(start, shown.button);
    start.hidden = !shown.showButton;
    start.disabled = false;
    bar.hidden = !shown.showBar;
    if (shown.fraction === null) bar.removeAttribute('value');
    else bar.value = shown.fraction;
    setText(status, shown.text);
  });
  return node;
}
