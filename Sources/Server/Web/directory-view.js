// Making channels and direct messages, and the channel browser: the sidebar's "New channel or
// message" (a public or private channel with a topic; a direct message by user id) and "Browse
// channels" (the public ones, each with Join or Open).

import { button, byId, el, reconcile, setText } from './dom.js';
import { watch } from './store.js';

/**
 * @typedef {import('./types.js').ChannelListing} ChannelListing
 */

/**
 * @param {import('./state.js').AppStore} store
 * @param {{ createChannel: (name: string, topic: string, isPublic: boolean) => Promise<boolean>,
 *   openDirect: (user: string) => Promise<boolean>, loadDirectory: () => void, joinChannel: (cid: string) => void }} handlers
 */
export function mountDirectory(store, handlers) {
  const tools = byId('channel-tools', HTMLDetailsElement);
  const create = byId('new-channel-form', HTMLFormElement);
  const name = byId('new-channel-name', HTMLInputElement);
  const topic = byId('new-channel-topic', HTMLInputElement);
  const isPublic = byId('new-channel-public', HTMLInputElement);
  const direct = byId('direct-form', HTMLFormElement);
  const user = byId('direct-user', HTMLInputElement);
  const directory = byId('directory', HTMLDetailsElement);
  const list = byId('directory-list');

  create.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (await handlers.createChannel(name.value.trim(), topic.value.trim(), isPublic.checked)) {
      create.reset();
      tools.open = false;
    }
  });
  direct.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (await handlers.openDirect(user.value.trim())) {
      direct.reset();
      tools.open = false;
    }
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
