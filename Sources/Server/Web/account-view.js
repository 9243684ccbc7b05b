// The account panel in the sidebar: change the password, sign out everywhere, allow browser
// notifications (mentions and direct messages while the tab is hidden), and for
// administrators, make a one-time link that invites someone or resets their password.

import { byId, setText } from './dom.js';
import { watch } from './store.js';

/**
 * @param {import('./state.js').AppStore} store
 * @param {{ changePassword: (current: string, next: string) => Promise<void>, signOutEverywhere: () => void,
 *   invite: (user: string, name: string, kind: 'invite' | 'reset') => Promise<void> }} handlers
 */
export function mountAccount(store, handlers) {
  const passwordForm = byId('password-form', HTMLFormElement);
  const current = byId('current-password', HTMLInputElement);
  const next = byId('new-password', HTMLInputElement);
  const inviteForm = byId('invite-form', HTMLFormElement);
  const inviteUser = byId('invite-user', HTMLInputElement);
  const inviteName = byId('invite-name', HTMLInputElement);
  const inviteKind = byId('invite-kind', HTMLSelectElement);
  const link = byId('invite-link', HTMLInputElement);
  const linkLabel = /** @type {HTMLElement} */ (inviteForm.querySelector('[for="invite-link"]'));

  passwordForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    await handlers.changePassword(current.value, next.value);
    current.value = '';
    next.value = '';
  });
  byId('signout-everywhere').addEventListener('click', () => handlers.signOutEverywhere());
  inviteForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const kind = inviteKind.value === 'reset' ? 'reset' : 'invite';
    await handlers.invite(inviteUser.value.trim(), inviteName.value.trim(), kind);
  });
  link.addEventListener('focus', () => link.select());

  // Browser notifications are asked for once, from a click (browsers refuse it otherwise).
  const allow = byId('allow-notifications', HTMLButtonElement);
  const showAllow = () => {
    allow.hidden = typeof Notification === 'undefined' || Notification.permission !== 'default';
  };
  showAllow();
  allow.addEventListener('click', async () => {
    await Notification.requestPermission();
    showAllow();
  });

  watch(store, (state) => state.session.admin, (admin) => {
    inviteForm.hidden = !admin;
  });
  watch(store, (state) => state.session.account, (account) => {
    link.value = account.link;
    link.hidden = !account.link;
    linkLabel.hidden = !account.link;
    setText(byId('account-note'), account.link ? 'Give this link to the person: it works once.' : account.note);
  });
}
