// The open channel's Settings, in its header (not for direct messages, whose members and name
// are fixed): rename it, set its topic, leave it. Any member may do each (the server's rule).

import { byId } from './dom.js';
import { watch } from './store.js';
import { currentSummary, isDirect } from './channels.js';

/**
 * @param {import('./state.js').AppStore} store
 * @param {{ updateChannel: (cid: string, changes: { name?: string, topic?: string }) => Promise<boolean>,
 *   leaveChannel: (cid: string) => void }} handlers
 */
export function mountChannelSettings(store, handlers) {
  const panel = byId('channel-settings', HTMLDetailsElement);
  const form = byId('channel-settings-form', HTMLFormElement);
  const name = byId('channel-name-input', HTMLInputElement);
  const topic = byId('channel-topic-input', HTMLInputElement);
  const leave = byId('leave-channel', HTMLDetailsElement);
  const confirm = byId('leave-channel-confirm', HTMLButtonElement);

  const summary = () => currentSummary(store.getState().channels);
  // The boxes start from the channel as it is each time the panel opens; what the reader types
  // is not overwritten while it is open.
  const fill = () => {
    const shown = summary();
    name.value = shown ? shown.channel.name : '';
    topic.value = shown ? shown.channel.topic || '' : '';
  };
  // Settings and People open under the header, over the messages: one at a time.
  const people = byId('channel-people', HTMLDetailsElement);
  panel.addEventListener('toggle', () => {
    if (panel.open) {
      fill();
      people.open = false;
    } else leave.open = false;
  });
  people.addEventListener('toggle', () => { if (people.open) panel.open = false; });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const shown = summary();
    if (!shown) return;
    /** @type {{ name?: string, topic?: string }} */
    const changes = {};
    if (name.value.trim() !== shown.channel.name) changes.name = name.value.trim();
    if (topic.value.trim() !== (shown.channel.topic || '')) changes.topic = topic.value.trim();
    if ((!changes.name && changes.topic === undefined) || await handlers.updateChannel(shown.channel.cid, changes)) panel.open = false;
  });
  confirm.addEventListener('click', () => {
    const shown = summary();
    if (shown) handlers.leaveChannel(shown.channel.cid);
    panel.open = false;
  });

  watch(store, (state) => state.channels.current, () => {
    panel.open = false;
    fill();
  });
  watch(store, (state) => currentSummary(state.channels), (shown) => {
    panel.hidden = !shown || isDirect(shown.channel.cid);
  });
}
