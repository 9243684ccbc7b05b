// The sign-in form (a token from `sotto token <user-id>`), shown while nobody is signed in.

import { byId, setText } from './dom.js';
import { watch } from './store.js';

/**
 * @param {import('./state.js').AppStore} store
 * @param {{ signIn: (token: string) => void }} handlers
 */
export function mountSignIn(store, handlers) {
  const form = byId('signin-form', HTMLFormElement);
  const input = byId('token-input', HTMLInputElement);
  const page = byId('signin');
  const chat = byId('chat');
  const error = byId('signin-error');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (token) handlers.signIn(token);
  });
  watch(store, (state) => state.session.status, (status, before) => {
    page.hidden = status !== 'signed-out';
    chat.hidden = status !== 'signed-in';
    if (status === 'signed-out' && before !== 'signed-out') {
      input.value = '';
      input.focus();
    }
  });
  watch(store, (state) => state.session.error, (text) => setText(error, text));
}
