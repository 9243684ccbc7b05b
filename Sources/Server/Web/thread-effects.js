// The thread panel's requests: opening a thread (its page, its chips), older replies, marking it
// read (when it opens, and when replies arrive while it is open and the tab is visible), and
// sending a reply with its files (through the channel's `deliver`, so failures get Retry the same
// way).

import { newMessageId } from './chat-effects.js';
import { outgoing } from './attachments.js';
import { suggestionsOn } from './session.js';
import { threadComposerKey } from './threads.js';

/**
 * @typedef {import('./context.js').AppContext} AppContext
 * @typedef {import('./types.js').Message} Message
 */

/**
 * @param {AppContext} ctx
 * @param {{ deliver: (message: Message) => Promise<void>, reloadChannelsSoon: () => void, beforeClose: () => void }} chat
 */
export function threadEffects(ctx, chat) {
  const { store } = ctx;
  const state = () => store.getState();
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let readTimer;

  /** @param {string} id a root of the open channel */
  async function openThread(id) {
    const cid = state().channels.current;
    if (!cid) return;
    const open = state().threads.open;
    if (open && open.id === id) {
      focus(id);
      return;
    }
    if (open) chat.beforeClose();
    store.dispatch({ type: 'thread/opened', cid, id, at: ctx.now() });
    const suggesting = loadSuggestions();
    try {
      const page = await ctx.api().thread(id);
      store.dispatch({ type: 'thread/page', id, page, older: false });
      markRead();
    } catch (error) {
      store.dispatch({ type: 'thread/failed', id, error: error instanceof Error ? error.message : String(error) });
    }
    focus(id);
    await suggesting;
  }

  /** @param {string} id */
  function focus(id) {
    const key = threadComposerKey(id);
    store.dispatch({ type: 'composer/insert', key, text: state().composer.drafts[key] || '' });
  }

  function closeThread() {
    chat.beforeClose();
    store.dispatch({ type: 'thread/closed' });
  }

  async function loadOlder() {
    const open = state().threads.open;
    if (!open || open.order.length === 0) return;
    try {
      const page = await ctx.api().thread(open.id, open.order[0]);
      store.dispatch({ type: 'thread/page', id: open.id, page, older: true });
    } catch (error) {
      ctx.fail(error);
    }
  }

  /** The open thread's chips, when the reader wants suggestions. */
  async function loadSuggestions() {
    const open = state().threads.open;
    if (!open || !suggestionsOn(state().session)) return;
    try {
      const snapshot = await ctx.api().suggestions(open.cid, state().threadSuggestions.tone, open.id);
      store.dispatch({ type: 'suggestions/snapshot', snapshot, at: ctx.now() });
    } catch {
      store.dispatch({ type: 'suggestions/failed', cid: open.cid, parent: open.id });
    }
  }

  /** Marks the open thread read, soon, if the reader can see it. */
  function markRead() {
    const open = state().threads.open;
    if (!open || document.visibilityState !== 'visible') return;
    const id = open.id;
    clearTimeout(readTimer);
    readTimer = setTimeout(async () => {
      try {
        await ctx.api().markThreadRead(id);
        store.dispatch({ type: 'thread/markedRead', id });
        chat.reloadChannelsSoon();
      } catch (error) {
        ctx.fail(error);
      }
    }, 50); // soon: before the channel list is loaded again after the reply
  }

  /** @param {string} text */
  async function send(text) {
    const open = state().threads.open;
    const me = state().session.me;
    if (!open || !me) return;
    const key = threadComposerKey(open.id);
    const message = outgoing(state(), key, { id: newMessageId(), cid: open.cid, user_id: me.id, text, created_at: new Date().toISOString(), parent_id: open.id });
    if (!message) return;
    store.dispatch({ type: 'composer/draft', key, text: '' });
    store.dispatch({ type: 'attachments/sent', key });
    store.dispatch({ type: 'suggestions/clear', cid: open.cid, parent: open.id });
    await chat.deliver(message);
  }

  store.listen((action, next) => {
    // After a resync the channel opens again, and the panel closes with it (as on a reload).
    if (action.type !== 'server/event' || action.event.type !== 'message.new') return;
    const message = action.event.message;
    const me = next.session.me && next.session.me.id;
    // A reply from someone else in the open thread, seen: read.
    if (next.threads.open && message.parent_id === next.threads.open.id && message.user_id !== me) markRead();
  });

  return { openThread, closeThread, loadOlder, loadSuggestions, markRead, send };
}
