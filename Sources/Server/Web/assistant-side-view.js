// The assistant's side column: "New chat", the conversations (the open one marked), and
// "Search chats" with its results (a result opens its conversation at the message).

import { button, el, highlightedNodes, reconcile, setText } from './dom.js';
import { watch } from './store.js';
import { select } from './state.js';
import { highlightPieces } from './search.js';

/**
 * @param {import('./state.js').AppStore} store
 * @param {(name: string) => HTMLElement} part
 * @param {{ newChat: () => void, open: (id: string, options?: { scrollTo?: string | null }) => void, search: (query: string) => void }} handlers
 */
export function mountAssistantSide(store, part, handlers) {
  const list = part('list');
  const results = part('search-results');
  const input = /** @type {HTMLInputElement} */ (part('search-input'));
  part('new').addEventListener('click', () => handlers.newChat());
  part('search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    handlers.search(input.value);
  });

  watch(store, select((state) => [state.assistant.conversations, state.assistant.current],
    (conversations, current) => ({ conversations, current })), ({ conversations, current }) => {
    reconcile(list, conversations, (conversation) => conversation.id, (conversation) => {
      const item = el('li');
      const open = button(conversation.title, () => handlers.open(conversation.id));
      open.dataset.id = conversation.id;
      item.append(open);
      return item;
    }, (item, conversation) => setText(/** @type {Element} */ (item.firstElementChild), conversation.title));
    for (const item of Array.from(list.children)) {
      const open = /** @type {HTMLElement} */ (item.firstElementChild);
      if (current && open.dataset.id === current.id) open.setAttribute('aria-current', 'true');
      else open.removeAttribute('aria-current');
    }
  });

  watch(store, (state) => state.assistant.search, (search) => {
    results.hidden = !search.shown;
    if (!search.shown) return;
    if (search.error) {
      results.replaceChildren(el('li', 'error', search.error));
      return;
    }
    if (search.results.length === 0) {
      results.replaceChildren(el('li', 'note', 'No chats match.'));
      return;
    }
    results.replaceChildren(...search.results.map((hit) => {
      const open = button('', () => {
        store.dispatch({ type: 'assistant/searchHidden' });
        handlers.open(hit.message.conversation_id, { scrollTo: hit.message.id });
      });
      const text = el('span', 'result-text');
      text.append(...highlightedNodes(highlightPieces(hit.message.text, hit.highlights)));
      open.append(el('span', 'result-title', hit.conversation_title), text);
      const item = el('li');
      item.append(open);
      return item;
    }));
  });
}
