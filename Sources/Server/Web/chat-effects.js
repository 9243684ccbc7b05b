// The channels' requests and timers: the channel list, opening a channel (its messages, where
// its suggestions stand, what was unread), older pages, sending with retry, read marks, typing
// notices, a channel's name, topic and members, a message's edit history, and what the server's
// events ask of the page (a read mark, the list again, a resync).

import { ApiError } from './api.js';
import { outgoing } from './attachments.js';
import { notificationFor } from './mentions.js';
import { currentSummary } from './channels.js';
import { suggestionsOn } from './session.js';
import { TYPING_SHOWN_MS } from './typing.js';

/**
 * @typedef {import('./context.js').AppContext} AppContext
 * @typedef {import('./types.js').Message} Message
 */

/** How long a found message stays highlighted. */
const FOUND_MS = 3000;

/**
 * @param {AppContext} ctx
 * @param {{ beforeOpen: () => void }} hooks what other features do before a channel opens
 */
export function chatEffects(ctx, hooks) {
  const { store } = ctx;
  const state = () => store.getState();
  /** @type {ReturnType<typeof setTimeout> | null} */
  let channelReload = null;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let readTimer;
  let lastTypingSent = 0;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let typingStopTimer;

  async function loadChannels() {
    if (state().session.status !== 'signed-in') return;
    try {
      store.dispatch({ type: 'channels/loaded', channels: (await ctx.api().channels()).channels });
    } catch (error) {
      ctx.fail(error);
    }
  }

  function reloadChannelsSoon() {
    if (channelReload) return;
    channelReload = setTimeout(() => {
      channelReload = null;
      loadChannels();
    }, 150);
  }

  /** @param {string} cid */
  async function loadSuggestions(cid) {
    if (!suggestionsOn(state().session)) return;
    try {
      const snapshot = await ctx.api().suggestions(cid, state().suggestions.tone);
      store.dispatch({ type: 'suggestions/snapshot', snapshot, at: ctx.now() });
    } catch {
      store.dispatch({ type: 'suggestions/failed', cid });
    }
  }

  /** @param {string} cid */
  async function openChannel(cid) {
    hooks.beforeOpen();
    const summary = currentSummary(state().channels);
    store.dispatch({ type: 'channel/opened', cid, at: ctx.now() });
    const suggesting = loadSuggestions(cid);
    // What was unread before opening marks it read: the part "Summarize channel" offers.
    const unreadCount = summary ? summary.unread_count : 0;
    const reading = unreadCount > 0 ? ctx.api().channel(cid).catch(() => null) : Promise.resolve(null);
    try {
      const [page, detail] = await Promise.all([ctx.api().messages(cid), reading]);
      if (state().channels.current !== cid) return;
      const me = state().session.me;
      /** @type {import('./types.js').Member | undefined} */
      const mine = detail && me ? detail.members.find((/** @type {import('./types.js').Member} */ member) => member.user.id === me.id) : undefined;
      store.dispatch({
        type: 'summary/unread', cid,
        unread: unreadCount > 0 ? { after: (mine && mine.read.last_read_message_id) || null, count: unreadCount } : null,
      });
      store.dispatch({ type: 'messages/page', cid, messages: page.messages, hasMore: page.has_more, older: false, unreadReplies: page.unread_replies });
      markRead();
    } catch (error) {
      ctx.fail(error);
    }
    focusComposer(cid);
    await suggesting;
  }

  /** @param {string} cid */
  function focusComposer(cid) {
    store.dispatch({ type: 'composer/insert', key: cid, text: state().composer.drafts[cid] || '' });
  }

  async function loadOlder() {
    const { cid, order } = state().messages;
    if (!cid || order.length === 0) return;
    try {
      const page = await ctx.api().messages(cid, order[0]);
      store.dispatch({ type: 'messages/page', cid, messages: page.messages, hasMore: page.has_more, older: true, unreadReplies: page.unread_replies });
    } catch (error) {
      ctx.fail(error);
    }
  }

  /**
   * Opens a search result's channel and shows the message, loading older pages if needed.
   *
   * @param {Message} message
   */
  async function openMessage(message) {
    if (state().channels.current !== message.cid) await openChannel(message.cid);
    for (let page = 0; page < 20 && !state().messages.byId[message.id] && state().messages.hasMore; page += 1) await loadOlder();
    if (!state().messages.byId[message.id]) return;
    const nonce = ctx.nonce();
    store.dispatch({ type: 'messages/found', id: message.id, nonce });
    setTimeout(() => store.dispatch({ type: 'messages/foundCleared', nonce }), FOUND_MS);
  }

  function markRead() {
    const cid = state().channels.current;
    if (!cid || document.visibilityState !== 'visible') return;
    clearTimeout(readTimer);
    readTimer = setTimeout(async () => {
      try {
        await ctx.api().markRead(cid);
        reloadChannelsSoon();
      } catch (error) {
        ctx.fail(error);
      }
    }, 200);
  }

  /**
   * Sends the composer's text with its uploaded files; nothing while a file is still uploading
   * (the draft and the chips stay).
   *
   * @param {string} text
   */
  async function send(text) {
    const cid = state().channels.current;
    const me = state().session.me;
    if (!cid || !me) return;
    const message = outgoing(state(), cid, { id: newMessageId(), cid, user_id: me.id, text, created_at: new Date().toISOString() });
    if (!message) return;
    store.dispatch({ type: 'composer/draft', key: cid, text: '' });
    store.dispatch({ type: 'attachments/sent', key: cid });
    store.dispatch({ type: 'suggestions/clear', cid });
    stopTyping();
    await deliver(message);
  }

  /**
   * Posts a message (or a reply: one with `parent_id`); a retry reuses its id, so the server
   * stores it at most once.
   *
   * @param {Message} message
   */
  async function deliver(message) {
    store.dispatch({ type: 'message/local', message, status: 'sending' });
    try {
      const files = (message.attachments || []).map((attachment) => attachment.id);
      const result = await ctx.api().send(message.cid, message.id, message.text, message.parent_id, files);
      store.dispatch({ type: 'message/local', message: result.message, status: 'sent' });
    } catch (error) {
      store.dispatch({ type: 'message/local', message, status: 'failed' });
      if (error instanceof ApiError && error.status === 401) ctx.fail(error);
    }
  }

  /**
   * Runs a request that answers with a channel, then opens that channel.
   *
   * @param {() => Promise<{ channel: { cid: string } }>} request
   * @returns {Promise<boolean>} whether it worked
   */
  async function openMade(request) {
    try {
      const result = await request();
      await loadChannels();
      await openChannel(result.channel.cid);
      return true;
    } catch (error) {
      ctx.fail(error);
      return false;
    }
  }

  /**
   * Makes a channel and opens it.
   *
   * @param {string} name
   * @param {string} topic
   * @param {boolean} isPublic
   */
  const createChannel = (name, topic, isPublic) => openMade(() => ctx.api().createChannel(name, topic, isPublic));

  /** The public channels, for the channel browser. */
  async function loadDirectory() {
    try {
      const result = await ctx.api().publicChannels();
      store.dispatch({ type: 'directory/loaded', channels: result.channels });
    } catch (error) {
      ctx.fail(error);
    }
  }

  /** @param {string} cid a public channel: joined (if need be) and opened */
  async function joinChannel(cid) {
    try {
      await ctx.api().joinChannel(cid);
      await loadChannels();
      await openChannel(cid);
      loadDirectory();
    } catch (error) {
      ctx.fail(error);
    }
  }

  /**
   * Adds someone to a channel the reader is in.
   *
   * @param {string} cid
   * @param {string} user
   */
  async function addPerson(cid, user) {
    try {
      await ctx.api().addMembers(cid, [user]);
      await loadChannels();
      return true;
    } catch (error) {
      ctx.fail(error);
      return false;
    }
  }

  /**
   * The direct message of the reader and these people (one: a direct message; several: a group
   * direct message), made if need be, and opened.
   *
   * @param {string[]} users their ids
   */
  const openDirect = (users) => openMade(() => ctx.api().directMessage(users));

  /**
   * Renames a channel or sets its topic (what is not given stays); its members see it through
   * `channel.updated`, the reader at once.
   *
   * @param {string} cid
   * @param {{ name?: string, topic?: string }} changes
   * @returns {Promise<boolean>} whether it worked
   */
  async function updateChannel(cid, changes) {
    try {
      const result = await ctx.api().updateChannel(cid, changes);
      store.dispatch({ type: 'channel/changed', channel: result.channel });
      return true;
    } catch (error) {
      ctx.fail(error);
      return false;
    }
  }

  /** @param {string} cid the reader leaves it: it closes and goes from the list */
  async function leaveChannel(cid) {
    try {
      await ctx.api().leaveChannel(cid);
      store.dispatch({ type: 'channel/left', cid });
      loadChannels();
    } catch (error) {
      ctx.fail(error);
    }
  }

  /**
   * Takes someone out of a channel (the creator or an administrator may).
   *
   * @param {string} cid
   * @param {string} user
   */
  async function removeMember(cid, user) {
    try {
      await ctx.api().removeMember(cid, user);
      await loadChannels();
    } catch (error) {
      ctx.fail(error);
    }
  }

  /**
   * Shows a message's earlier versions under it, or hides them when they are shown.
   *
   * @param {string} id
   */
  function toggleHistory(id) {
    const shown = state().messages.history;
    if (shown && shown.id === id) store.dispatch({ type: 'history/closed' });
    else loadHistory(id);
  }

  /** @param {string} id */
  async function loadHistory(id) {
    store.dispatch({ type: 'history/requested', id });
    try {
      const result = await ctx.api().messageEdits(id);
      store.dispatch({ type: 'history/loaded', id, edits: result.edits });
    } catch (error) {
      store.dispatch({ type: 'history/failed', id, error: error instanceof Error ? error.message : String(error) });
      if (error instanceof ApiError && error.status === 401) ctx.fail(error);
    }
  }

  /**
   * Saves the reader's edit of their message.
   *
   * @param {string} id
   * @param {string} text
   */
  async function editMessage(id, text) {
    try {
      const result = await ctx.api().editMessage(id, text);
      store.dispatch({ type: 'message/changed', message: result.message });
      store.dispatch({ type: 'message/editing', id: null });
    } catch (error) {
      ctx.fail(error);
    }
  }

  /** @param {string} id */
  async function deleteMessage(id) {
    try {
      const result = await ctx.api().deleteMessage(id);
      store.dispatch({ type: 'message/changed', message: result.message });
    } catch (error) {
      ctx.fail(error);
    }
  }

  /**
   * @param {string} id
   * @param {string} emoji
   * @param {boolean} adding
   */
  async function react(id, emoji, adding) {
    try {
      const result = await ctx.api().react(id, emoji, adding);
      store.dispatch({ type: 'message/changed', message: result.message });
    } catch (error) {
      ctx.fail(error);
    }
  }

  function noteTyping() {
    const cid = state().channels.current;
    if (!cid || !ctx.stream) return;
    const now = Date.now();
    if (now - lastTypingSent > 3000) {
      lastTypingSent = now;
      ctx.stream.send({ type: 'typing.start', cid });
    }
    clearTimeout(typingStopTimer);
    typingStopTimer = setTimeout(stopTyping, 4000);
  }

  function stopTyping() {
    clearTimeout(typingStopTimer);
    const cid = state().channels.current;
    if (lastTypingSent && ctx.stream && cid) ctx.stream.send({ type: 'typing.stop', cid });
    lastTypingSent = 0;
  }

  /**
   * A browser notification for a mention or a direct message while the page is hidden, when the
   * reader allowed them (Account → notifications).
   *
   * @param {import('./types.js').Message} message
   * @param {import('./state.js').State} next
   */
  function notify(message, next) {
    if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
    if (document.visibilityState !== 'hidden') return;
    const summary = next.channels.list.find((item) => item.channel.cid === message.cid);
    const shown = notificationFor(message, summary, next.session.me ? next.session.me.id : null);
    if (shown) new Notification(shown.title, { body: shown.body, tag: message.id });
  }

  // What the server's events ask of the page beyond the state they change.
  store.listen((action, next) => {
    if (action.type === 'server/resync') {
      loadChannels();
      if (next.channels.current) openChannel(next.channels.current);
      return;
    }
    if (action.type !== 'server/event') return;
    const event = action.event;
    const me = next.session.me && next.session.me.id;
    if (event.type === 'message.new') {
      // A reply leaves the channel's read mark alone: it is read in its thread.
      if (event.message.cid === next.channels.current && event.message.user_id !== me && !event.message.parent_id) markRead();
      notify(event.message, next);
      reloadChannelsSoon(); // unread counts, mentions, threads with news
    } else if ((event.type === 'message.read' || event.type === 'thread.read') && event.user_id === me) {
      reloadChannelsSoon();
    } else if (event.type === 'member.added' || event.type === 'member.left' || event.type === 'channel.updated') {
      reloadChannelsSoon();
    } else if (event.type === 'message.updated' && next.messages.history && next.messages.history.id === event.message.id) {
      loadHistory(event.message.id); // edited again while its history is shown
    } else if (event.type === 'typing.start') {
      setTimeout(() => store.dispatch({ type: 'typing/expire', at: ctx.now() }), TYPING_SHOWN_MS + 50);
    }
  });

  return { loadChannels, reloadChannelsSoon, loadSuggestions, openChannel, loadOlder, openMessage, markRead, send, deliver, createChannel, loadDirectory, joinChannel, openDirect, addPerson, updateChannel, leaveChannel, removeMember, toggleHistory, editMessage, deleteMessage, react, noteTyping, stopTyping };
}

export function newMessageId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
