import test from 'node:test';
import assert from 'node:assert/strict';
import { CID, message, server, signedIn } from './helpers.js';
import { offersReply, repliesText } from '../../Sources/Server/Web/threads.js';

/**
 * @typedef {import('../../Sources/Server/Web/types.js').Message} Message
 */

/**
 * A reply in the open channel's thread of `parent`.
 *
 * @param {string} id
 * @param {string} parent
 * @param {string} user
 * @param {string} [text]
 * @returns {Message}
 */
function reply(id, parent, user, text) {
  return { ...message(id, user, text), parent_id: parent };
}

/**
 * Signed in as Alice in the channel, its page loaded: bob's `root` (2 replies, 1 unread for
 * alice, who follows it), alice's `mine` (no replies) and bob's `other` (1 reply, not followed).
 */
function withPage() {
  const store = signedIn();
  store.dispatch({
    type: 'messages/page', cid: CID, hasMore: false, older: false,
    messages: [
      { ...message('root', 'bob'), reply_count: 2, last_reply_at: '2025-12-03T10:05:00Z' },
      message('mine', 'alice'),
      { ...message('other', 'bob'), reply_count: 1 },
    ],
    unreadReplies: [{ parent_id: 'root', count: 1 }],
  });
  return store;
}

test('a page gives each root its replies, its news and whether the reader follows it', () => {
  const store = withPage();
  const { roots } = store.getState().threads;
  assert.deepEqual(roots.root, { replies: 2, lastReplyAt: '2025-12-03T10:05:00Z', unread: 1, following: true });
  assert.deepEqual(roots.other, { replies: 1, lastReplyAt: null, unread: 0, following: false });
  assert.equal(roots.mine, undefined);
  assert.equal(repliesText(roots.root), '2 replies · 1 new');
  assert.equal(repliesText(roots.other), '1 reply');
  assert.equal(repliesText(undefined), '');
});

test('a reply goes to its root, never to the channel list nor its unread count', () => {
  const store = withPage();
  const channels = store.getState().channels;
  const before = store.getState().messages;
  store.dispatch(server({ type: 'message.new', cid: CID, message: reply('r3', 'root', 'bob') }));
  const state = store.getState();
  assert.equal(state.messages, before, 'the channel list is untouched');
  assert.equal(state.channels, channels, 'the unread count waits for the server');
  assert.deepEqual(state.threads.roots.root, { replies: 3, lastReplyAt: '2025-12-03T10:00:00Z', unread: 2, following: true });
  // A thread alice does not follow counts the reply, no news.
  store.dispatch(server({ type: 'message.new', cid: CID, message: reply('o2', 'other', 'bob') }));
  assert.deepEqual(store.getState().threads.roots.other, { replies: 2, lastReplyAt: '2025-12-03T10:00:00Z', unread: 0, following: false });
  // The reader's own reply, sending or sent, stays out of the list as well.
  store.dispatch({ type: 'message/local', message: reply('r4', 'root', 'alice'), status: 'sending' });
  assert.equal(store.getState().messages, before);
  // Another channel's reply changes nothing here.
  store.dispatch(server({ type: 'message.new', cid: 'messaging:other', message: { ...reply('x', 'root', 'bob'), cid: 'messaging:other' } }));
  assert.equal(store.getState().threads.roots.root.replies, 3);
});

test('following comes from starting a thread, replying in it or being mentioned in it', () => {
  const store = withPage();
  // Alice's own message gets its first reply: she started the thread, so it is news to her.
  store.dispatch(server({ type: 'message.new', cid: CID, message: reply('m1', 'mine', 'bob') }));
  assert.deepEqual(store.getState().threads.roots.mine, { replies: 1, lastReplyAt: '2025-12-03T10:00:00Z', unread: 1, following: true });
  // A mention makes her follow a thread she was not in.
  store.dispatch(server({ type: 'message.new', cid: CID, message: reply('o2', 'other', 'bob', 'what do you think @alice?') }));
  assert.equal(store.getState().threads.roots.other.following, true);
  assert.equal(store.getState().threads.roots.other.unread, 1);
  // Her reply follows the thread and reads it to there; later replies are news.
  store.dispatch(server({ type: 'message.new', cid: CID, message: reply('r3', 'root', 'alice') }));
  assert.equal(store.getState().threads.roots.root.unread, 0);
  store.dispatch(server({ type: 'message.new', cid: CID, message: reply('r4', 'root', 'bob') }));
  assert.equal(store.getState().threads.roots.root.unread, 1);
});

test('opening a thread shows its replies; new ones are appended only to the thread open', () => {
  const store = withPage();
  store.dispatch({ type: 'thread/opened', cid: CID, id: 'root', at: 5 });
  let open = store.getState().threads.open;
  assert.equal(open && open.status, 'loading');
  assert.equal(open && open.parent && open.parent.id, 'root', 'the root shows at once, from the channel');
  store.dispatch({
    type: 'thread/page', id: 'root', older: false,
    page: { parent: { ...message('root', 'bob'), reply_count: 2 }, messages: [reply('r1', 'root', 'bob'), reply('r2', 'root', 'alice')], has_more: true, unread: 1, following: true },
  });
  open = store.getState().threads.open;
  assert.deepEqual(open && open.order, ['r1', 'r2']);
  assert.equal(open && open.hasMore, true);
  store.dispatch({
    type: 'thread/page', id: 'root', older: true,
    page: { parent: message('root', 'bob'), messages: [reply('r0', 'root', 'bob')], has_more: false, unread: 0, following: true },
  });
  assert.deepEqual(store.getState().threads.open?.order, ['r0', 'r1', 'r2']);
  store.dispatch(server({ type: 'message.new', cid: CID, message: reply('o2', 'other', 'bob') }));
  store.dispatch(server({ type: 'message.new', cid: CID, message: reply('r3', 'root', 'bob') }));
  assert.deepEqual(store.getState().threads.open?.order, ['r0', 'r1', 'r2', 'r3']);
  // The reader's reply shows while it is sent, failed (with its id, for Retry), then stored once.
  store.dispatch({ type: 'message/local', message: reply('r4', 'root', 'alice'), status: 'sending' });
  store.dispatch({ type: 'message/local', message: reply('r4', 'root', 'alice'), status: 'failed' });
  assert.equal(store.getState().threads.open?.byId.r4.status, 'failed');
  store.dispatch({ type: 'message/local', message: reply('r4', 'root', 'alice'), status: 'sent' });
  store.dispatch(server({ type: 'message.new', cid: CID, message: reply('r4', 'root', 'alice') }));
  assert.deepEqual(store.getState().threads.open?.order, ['r0', 'r1', 'r2', 'r3', 'r4']);
  // Closing it, or opening another channel, shows no thread.
  store.dispatch({ type: 'thread/closed' });
  assert.equal(store.getState().threads.open, null);
  store.dispatch({ type: 'thread/opened', cid: CID, id: 'other', at: 6 });
  store.dispatch({ type: 'channel/opened', cid: 'messaging:other', at: 7 });
  assert.equal(store.getState().threads.open, null);
  assert.deepEqual(store.getState().threads.roots, {});
});

test('marking a thread read, here or in another tab, clears its news', () => {
  const store = withPage();
  store.dispatch({ type: 'thread/markedRead', id: 'root' });
  assert.equal(store.getState().threads.roots.root.unread, 0);
  store.dispatch(server({ type: 'message.new', cid: CID, message: reply('m1', 'mine', 'bob') }));
  assert.equal(store.getState().threads.roots.mine.unread, 1);
  // Someone else's read is theirs.
  store.dispatch(server({ type: 'thread.read', cid: CID, user_id: 'bob', parent_id: 'mine' }));
  assert.equal(store.getState().threads.roots.mine.unread, 1);
  store.dispatch(server({ type: 'thread.read', cid: CID, user_id: 'alice', parent_id: 'mine' }));
  assert.deepEqual(store.getState().threads.roots.mine, { replies: 1, lastReplyAt: '2025-12-03T10:00:00Z', unread: 0, following: true });
  // Opened, a thread is followed from then on.
  store.dispatch({ type: 'thread/opened', cid: CID, id: 'other', at: 1 });
  store.dispatch({ type: 'thread/page', id: 'other', older: false, page: { parent: { ...message('other', 'bob'), reply_count: 1 }, messages: [], has_more: false, unread: 0, following: true } });
  assert.equal(store.getState().threads.roots.other.following, true);
});

test('edits, reactions and deletions of replies reach the open thread; a root brings its count', () => {
  const store = withPage();
  store.dispatch({ type: 'thread/opened', cid: CID, id: 'root', at: 0 });
  store.dispatch({ type: 'thread/page', id: 'root', older: false, page: { parent: message('root', 'bob'), messages: [reply('r1', 'root', 'alice')], has_more: false, unread: 0, following: true } });
  store.dispatch({ type: 'message/editing', id: 'r1' });
  assert.equal(store.getState().messages.editing, 'r1', 'the edit box works on a reply');
  store.dispatch({ type: 'message/changed', message: { ...reply('r1', 'root', 'alice', 'edited'), edited_at: '2025-12-03T11:00:00Z' } });
  assert.equal(store.getState().threads.open?.byId.r1.message.text, 'edited');
  store.dispatch({ type: 'history/requested', id: 'r1' });
  assert.equal(store.getState().messages.history?.id, 'r1', 'a reply has its history too');
  store.dispatch(server({ type: 'message.deleted', cid: CID, message: { ...reply('r1', 'root', 'alice', ''), deleted_at: '2025-12-03T12:00:00Z' } }));
  assert.equal(store.getState().threads.open?.byId.r1.message.deleted_at, '2025-12-03T12:00:00Z');
  assert.equal(store.getState().messages.editing, null);
  assert.equal(store.getState().messages.history, null);
  // An older copy does not bring a deleted reply back.
  store.dispatch(server({ type: 'message.updated', cid: CID, message: reply('r1', 'root', 'alice', 'late') }));
  assert.equal(store.getState().threads.open?.byId.r1.message.text, '');
  // The root's own change carries its reply count, and updates the panel's root.
  store.dispatch(server({ type: 'message.updated', cid: CID, message: { ...message('root', 'bob', 'new words'), reply_count: 5 } }));
  assert.equal(store.getState().threads.roots.root.replies, 5);
  assert.equal(store.getState().threads.open?.parent?.text, 'new words');
  assert.equal(store.getState().messages.byId.root.message.text, 'new words');
});

test('Reply is offered on top-level messages that stand and are stored', () => {
  assert.equal(offersReply({ message: message('a', 'bob'), status: 'sent' }), true);
  assert.equal(offersReply({ message: message('a', 'bob'), status: 'sending' }), false);
  assert.equal(offersReply({ message: { ...message('a', 'bob'), deleted_at: '2025-12-03T12:00:00Z' }, status: 'sent' }), false);
  assert.equal(offersReply({ message: reply('r', 'a', 'bob'), status: 'sent' }), false);
});

test("a thread's chips and the channel's are kept apart", () => {
  const store = signedIn();
  const channelChips = { type: /** @type {const} */ ('suggestions.updated'), cid: CID, status: /** @type {const} */ ('ready'), signature: 'c', suggestions: ['channel chip'] };
  store.dispatch(server(channelChips, 1));
  store.dispatch({ type: 'thread/opened', cid: CID, id: 'root', at: 2 });
  // The thread's snapshot fills the thread's row only.
  store.dispatch({ type: 'suggestions/snapshot', snapshot: { cid: CID, status: 'pending', signature: 't', parent_id: 'root' }, at: 3 });
  store.dispatch(server({ type: 'suggestions.partial', cid: CID, signature: 't', suggestions: ['thread'], parent_id: 'root' }, 4));
  assert.deepEqual(store.getState().threadSuggestions.shown?.chips, ['thread']);
  store.dispatch(server({ type: 'suggestions.updated', cid: CID, status: 'ready', signature: 't', suggestions: ['thread chip'], parent_id: 'root' }, 5));
  assert.deepEqual(store.getState().threadSuggestions.shown?.chips, ['thread chip']);
  assert.deepEqual(store.getState().suggestions.shown?.chips, ['channel chip']);
  // Another thread's chips are neither's.
  store.dispatch(server({ type: 'suggestions.updated', cid: CID, status: 'ready', signature: 'x', suggestions: ['elsewhere'], parent_id: 'other' }, 6));
  assert.deepEqual(store.getState().threadSuggestions.shown?.chips, ['thread chip']);
  assert.deepEqual(store.getState().suggestions.shown?.chips, ['channel chip']);
  // A reply from someone else makes the thread's row wait, not the channel's.
  store.dispatch(server({ type: 'message.new', cid: CID, message: reply('r1', 'root', 'bob') }, 7));
  assert.equal(store.getState().threadSuggestions.shown?.status, 'pending');
  assert.deepEqual(store.getState().suggestions.shown?.chips, ['channel chip']);
  // The channel's new chips leave the thread's row alone.
  store.dispatch(server({ ...channelChips, signature: 'c2', suggestions: ['channel again'] }, 8));
  assert.equal(store.getState().threadSuggestions.shown?.status, 'pending');
  // The reader's reply clears the thread's row; the channel's stays.
  store.dispatch({ type: 'suggestions/clear', cid: CID, parent: 'root' });
  assert.equal(store.getState().threadSuggestions.shown, null);
  assert.deepEqual(store.getState().suggestions.shown?.chips, ['channel again']);
  // Closed, the thread has no row, and its late chips stay out.
  store.dispatch({ type: 'thread/closed' });
  store.dispatch(server({ type: 'suggestions.updated', cid: CID, status: 'ready', signature: 't2', suggestions: ['late'], parent_id: 'root' }, 9));
  assert.equal(store.getState().threadSuggestions.shown, null);
  assert.equal(store.getState().threadSuggestions.parent, null);
});

test('the thread summary keeps the job of its latest request', () => {
  const store = signedIn();
  store.dispatch({ type: 'thread/opened', cid: CID, id: 'root', at: 0 });
  store.dispatch({ type: 'threadSummary/started', nonce: 7 });
  store.dispatch({ type: 'threadSummary/job', nonce: 6, jobId: 'old' });
  assert.equal(store.getState().threads.summary.jobId, null);
  store.dispatch({ type: 'threadSummary/job', nonce: 7, jobId: 'j1' });
  assert.deepEqual(store.getState().threads.summary, { open: true, nonce: 7, jobId: 'j1', error: null });
  store.dispatch({ type: 'thread/closed' });
  assert.equal(store.getState().threads.summary.open, false);
});
