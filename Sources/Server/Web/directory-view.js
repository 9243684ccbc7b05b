// Making channels and direct messages, and the channel browser: the sidebar's "New channel or
// message" (a public or private channel with a topic; a direct message with one or several
// people, chosen by name) and "Browse channels" (the public ones, each with Join or Open).

import { button, byId, el, option, reconcile, setText } from './dom.js';
import { watch } from './store.js';
import { select } from './state.js';
import { directMembers, knownPeople, personFor } from './people.js';

/**
 * @typedef {import('./types.js').ChannelListing} ChannelListing
 */

/**
 * @param {import('./state.js').AppStore} store
 * @param {{ createChannel: (name: string, topic: string, isPublic: boolean) => Promise<boolean>,
 *   openDirect: (users: string[]) => Promise<boolean>, loadDirectory: () => void, joinChannel: (cid: string) => void }} handlers
 */
export function mountDirectory(store, handlers) {
  const tools = byId('channel-tools', HTMLDetailsElement);
  const create = byId('new-channel-form', HTMLFormElement);
  const name = byId('new-channel-name', HTMLInputElement);
  const topic = byId('new-channel-topic', HTMLInputElement);
  const isPublic = byId('new-channel-public', HTMLInputElement);
  const direct = byId('direct-form', HTMLFormElement);
  const user = byId('direct-user', HTMLInputElement);
  const add = byId('direct-add', HTMLButtonElement);
  const chosen = byId('direct-chosen');
  const options = byId('direct-people');
  const note = byId('direct-note');
  const open = byId('direct-open', HTMLButtonElement);
  const directory = byId('directory', HTMLDetailsElement);
  const list = byId('directory-list');

  create.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (await handlers.createChannel(name.value.trim(), topic.value.trim(), isPublic.checked)) {
      create.reset();
      tools.open = false;
    }
  });
  const people = select((state) => [state.channels.list, state.session.me],
    (list, me) => knownPeople(list, me ? me.id : null));
  const me = () => {
    const who = store.getState().session.me;
    return who ? who.id : null;
  };
  // The name typed joins the chosen people (Enter does the same, rather than opening).
  const choose = () => {
    const found = personFor(people(store.getState()), user.value);
    if ('error' in found) store.dispatch({ type: 'people/note', text: found.error });
    else {
      store.dispatch({ type: 'people/chose', person: found.person });
      user.value = '';
    }
    user.focus();
  };
  add.addEventListener('click', choose);
  user.addEventListener('input', () => {
    if (store.getState().people.note) store.dispatch({ type: 'people/note', text: '' });
  });
  user.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || event.isComposing) return;
    event.preventDefault();
    if (user.value.trim()) choose();
    else direct.requestSubmit();
  });
  direct.addEventListener('submit', async (event) => {
    event.preventDefault();
    const state = store.getState();
    const members = directMembers(people(state), state.people.chosen, user.value, me());
    if ('error' in members) {
      store.dispatch({ type: 'people/note', text: members.error });
      return;
    }
    if (await handlers.openDirect(members.ids)) {
      direct.reset();
      store.dispatch({ type: 'people/cleared' });
      tools.open = false;
    }
  });

  watch(store, people, (known) => {
    options.replaceChildren(...known.map((person) => option(person.name, person.id)));
  });
  watch(store, (state) => state.people, ({ chosen: picked, note: text }) => {
    chosen.hidden = !picked.length;
    reconcile(chosen, picked, (person) => person.id, (person) => {
      const item = el('li', 'chosen-person');
      const remove = button('×', () => store.dispatch({ type: 'people/unchose', id: person.id }), 'unchoose');
      remove.setAttribute('aria-label', `Remove ${person.name}`);
      item.append(el('span', 'chosen-name', person.name), remove);
      return item;
    }, () => {});
    setText(note, text);
    setText(open, picked.length > 1 ? 'Open group message' : 'Open direct message');
  });
  directory.addEventListener('toggle', () => {
    if (directory.open) handlers.loadDirectory();
  });

  watch(store, (state) => state.channels.directory, (channels) => {
    const shown = channels || [];
    if (channels && !channels.length) {
      list.replaceChildren(el('li', 'note', 'No public channels yet: make one above.'));
      return;
    }
    if (list.querySelector(':scope > .note')) list.replaceChildren();
    reconcile(list, shown, (listing) => listing.channel.cid, (listing) => {
      const item = el('li', 'listing');
      item.append(el('span', 'listing-name'), el('span', 'listing-topic'), el('span', 'listing-count'),
        button('Join', () => handlers.joinChannel(listing.channel.cid), 'join'));
      drawListing(item, listing);
      return item;
    }, drawListing);
  });
}

/**
 * @param {HTMLElement} item
 * @param {ChannelListing} listing
 */
function drawListing(item, listing) {
  item.dataset.cid = listing.channel.cid;
  setText(/** @type {Element} */ (item.children[0]), listing.channel.name);
  setText(/** @type {Element} */ (item.children[1]), listing.channel.topic || '');
  setText(/** @type {Element} */ (item.children[2]), `${listing.member_count} ${listing.member_count === 1 ? 'member' : 'members'}`);
  setText(/** @type {Element} */ (item.children[3]), listing.joined ? 'Open' : 'Join');
}
