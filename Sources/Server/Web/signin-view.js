// The sign-in form (a user name and password, or a token from `sotto token <user-id>`) and the
// page a one-time link opens (set your password), shown while nobody is signed in.

import { byId, setText } from './dom.js';
import { watch } from './store.js';

/**
 * @typedef {import('./session-effects.js').Credentials} Credentials
 * @typedef {import('./session.js').JoinLink} JoinLink
 */

const INTRO = {
  setup: (/** @type {JoinLink} */ link) => `Welcome. You are the first administrator of this Sotto, as ${link.user}: choose your name and a password.`,
  invite: (/** @type {JoinLink} */ link) => `You are invited to this Sotto as ${link.user}: choose your name and a password.`,
  reset: (/** @type {JoinLink} */ link) => `Choose a new password for ${link.user}. Your other sessions will be signed out.`,
};

/**
 * @param {import('./state.js').AppStore} store
 * @param {{ signIn: (credentials: Credentials) => void, join: (password: string, name: string) => void }} handlers
 */
export function mountSignIn(store, handlers) {
  const form = byId('signin-form', HTMLFormElement);
  const user = byId('user-input', HTMLInputElement);
  const password = byId('password-input', HTMLInputElement);
  const token = byId('token-input', HTMLInputElement);
  const page = byId('signin');
  const joinPage = byId('join');
  const joinForm = byId('join-form', HTMLFormElement);
  const joinName = byId('join-name', HTMLInputElement);
  const joinPassword = byId('join-password', HTMLInputElement);
  const nameLabel = byId('join-name-label');
  const chat = byId('chat');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const pasted = token.value.trim();
    if (pasted) handlers.signIn({ token: pasted });
    else if (user.value.trim() && password.value) handlers.signIn({ user: user.value.trim(), password: password.value });
  });
  joinForm.addEventListener('submit', (event) => {
    event.preventDefault();
    handlers.join(joinPassword.value, joinName.value.trim());
  });
  watch(store, (state) => state.session.status === 'signed-out' ? state.session.join : undefined, (join, before) => {
    joinPage.hidden = !join;
    if (join && join !== before) {
      setText(byId('join-intro'), INTRO[join.kind](join));
      joinName.value = join.name;
      // A reset keeps the name: only the password is asked.
      const reset = join.kind === 'reset';
      nameLabel.hidden = reset;
      joinName.hidden = reset;
      joinName.required = !reset;
      joinPassword.value = '';
      joinPassword.focus();
    }
  });
  watch(store, (state) => state.session.status === 'signed-out' && !state.session.join, (shown, before) => {
    page.hidden = !shown;
    if (shown && !before) {
      password.value = '';
      token.value = '';
      (user.value ? password : user).focus();
    }
  });
  watch(store, (state) => state.session.status, (status) => {
    chat.hidden = status !== 'signed-in';
  });
  watch(store, (state) => state.session.error, (text) => {
    setText(byId('signin-error'), text);
    setText(byId('join-error'), text);
  });
}
