import test from 'node:test';
import assert from 'node:assert/strict';
import { CID, message, server, signedIn } from './helpers.js';
import { typingText } from '../../Sources/Server/Web/typing.js';
import { channelTitle, currentSummary, nameOf } from '../../Sources/Server/Web/channels.js';

const texts = (/** @type {ReturnType<typeof signedIn>} */ store) =>
  store.getState().messages.order.map((id) => store.getState().messages.byId[id].message.id);

test('a page, then an older one before it; messages seen twice are kept once', () => {
  const store = signedIn();
  store.dispatch({ type: 'messages/page', cid: CID, messages: [message('m3', 'bob'), message('m4', 'alice')], hasMore: true, older: false });
  store.dispatch({ type: 'messages/page', cid: CID, messages: [message('m1', 'bob'), message('m2', 'alice'), message('m3', 'bob')], hasMore: false, older: true });
  assert.deepEqual(texts(store), ['m1', 'm2', 'm3', 'm4']);
  assert.equal(store.getState().messages.hasMore, false);
  // A page for a channel no longer open is dropped.
  store.dispatch({ type: 'messages/page', cid: 'messaging:other', messages: [message('x', 'bob')], hasMore: false, older: false });
  assert.deepEqual(texts(store), ['m1', 'm2', 'm3', 'm4']);
});

test('a message being sent, then stored; the server\'s event may come first', () => {
  const store = signedIn();
  const mine = message('m1', 'alice', 'hello');
  store.dispatch({ type: 'message/local', message: mine, status: 'sending' });
  assert.equal(store.getState().messages.byId.m1.status, 'sending');
  store.dispatch(server({ type: 'message.new', cid: CID, message: { ...mine, created_at: 'stored' } }));
  // The POST's answer, or a late retry's "sending", cannot undo what the server stored.
  store.dispatch({ type: 'message/local', message: mine, status: 'sending' });
  assert.equal(store.getState().messages.byId.m1.status, 'sent');
  assert.equal(store.getState().messages.byId.m1.message.created_at, 'stored');
  assert.deepEqual(texts(store), ['m1']);
});

test('a failed send stays with its id, and a retry that succeeds replaces it in place', () => {
  const store = signedIn();
  store.dispatch({ type: 'messages/page', cid: CID, messages: [message('m0', 'bob')], hasMore: false, older: false });
  const mine = message('m1', 'alice', 'hello');
  store.dispatch({ type: 'message/local', message: mine, status: 'sending' });
  store.dispatch({ type: 'message/local', message: mine, status: 'failed' });
  store.dispatch(server({ type: 'message.new', cid: CID, message: message('m2', 'bob') }));
  store.dispatch({ type: 'message/local', message: mine, status: 'sending' });
  store.dispatch({ type: 'message/local', message: mine, status: 'sent' });
  assert.deepEqual(texts(store), ['m0', 'm1', 'm2']);
  assert.equal(store.getState().messages.byId.m1.status, 'sent');
});

test('events of other channels do not land in the open one', () => {
  const store = signedIn();
  store.dispatch(server({ type: 'message.new', cid: 'messaging:other', message: { ...message('x', 'bob'), cid: 'messaging:other' } }));
  assert.deepEqual(texts(store), []);
});

test('opening another channel starts its messages afresh', () => {
  const store = signedIn();
  store.dispatch(server({ type: 'message.new', cid: CID, message: message('m1', 'bob') }));
  store.dispatch({ type: 'messages/found', id: 'm1', nonce: 1 });
  store.dispatch({ type: 'channel/opened', cid: 'messaging:other', at: 5 });
  const state = store.getState();
  assert.deepEqual(state.messages, { cid: 'messaging:other', order: [], byId: {}, hasMore: false, found: null, editing: null, deleting: null, history: null });
  assert.equal(state.channels.current, 'messaging:other');
  assert.equal(currentSummary(state.channels), null);
});

test('a found message is shown until its own highlight ends', () => {
  const store = signedIn();
  store.dispatch({ type: 'messages/found', id: 'm1', nonce: 1 });
  store.dispatch({ type: 'messages/found', id: 'm2', nonce: 2 });
  store.dispatch({ type: 'messages/foundCleared', nonce: 1 });
  assert.deepEqual(store.getState().messages.found, { id: 'm2', nonce: 2 });
  store.dispatch({ type: 'messages/foundCleared', nonce: 2 });
  assert.equal(store.getState().messages.found, null);
});

test('who is typing: others in the open channel, until stop, their message, or the time runs out', () => {
  const store = signedIn();
  store.dispatch(server({ type: 'typing.start', cid: CID, user_id: 'bob' }, 1000));
  store.dispatch(server({ type: 'typing.start', cid: CID, user_id: 'alice' }, 1000)); // the reader: never shown
  store.dispatch(server({ type: 'typing.start', cid: 'messaging:other', user_id: 'carol' }, 1000));
  assert.deepEqual(store.getState().typing, { bob: 7000 });
  const names = () => typingText(Object.keys(store.getState().typing).map((id) => nameOf(store.getState().channels, id)));
  assert.equal(names(), 'Bob is typing…');
  store.dispatch(server({ type: 'typing.start', cid: CID, user_id: 'sam' }, 2000));
  assert.equal(names(), 'Bob, sam are typing…'); // a stranger shows by id
  store.dispatch({ type: 'typing/expire', at: 7000 });
  assert.equal(names(), 'sam is typing…');
  store.dispatch(server({ type: 'message.new', cid: CID, message: message('m1', 'sam') }));
  assert.equal(names(), '');
  store.dispatch(server({ type: 'typing.start', cid: CID, user_id: 'bob' }, 9000));
  store.dispatch(server({ type: 'typing.stop', cid: CID, user_id: 'bob' }, 9100));
  assert.deepEqual(store.getState().typing, {});
});

test('signing out forgets the channels and messages', () => {
  const store = signedIn();
  store.dispatch(server({ type: 'message.new', cid: CID, message: message('m1', 'bob') }));
  store.dispatch({ type: 'session/signedOut', message: 'Your session ended. Sign in again.' });
  const state = store.getState();
  assert.equal(state.session.status, 'signed-out');
  assert.equal(state.session.error, 'Your session ended. Sign in again.');
  assert.deepEqual(state.channels, { list: [], current: null, directory: null });
  assert.deepEqual(state.messages.order, []);
});

test('an edit, a reaction and a deletion replace the message where it stands; one not loaded stays unloaded', () => {
  const store = signedIn();
  store.dispatch(server({ type: 'message.new', cid: CID, message: message('m1', 'bob') }));
  store.dispatch(server({ type: 'message.new', cid: CID, message: message('m2', 'alice') }));
  store.dispatch({ type: 'message/editing', id: 'm2' });
  const edited = { ...message('m2', 'alice'), text: 'edited words', edited_at: '2026-12-04T10:00:00Z' };
  store.dispatch(server({ type: 'message.updated', cid: CID, message: edited }));
  assert.deepEqual(store.getState().messages.order, ['m1', 'm2']);
  assert.equal(store.getState().messages.byId.m2.message.text, 'edited words');
  assert.equal(store.getState().messages.editing, 'm2'); // still editing until saved or cancelled
  const reacted = { ...message('m1', 'bob'), reactions: [{ emoji: '👍', count: 1, users: ['alice'] }] };
  store.dispatch({ type: 'message/changed', message: reacted });
  assert.equal(store.getState().messages.byId.m1.message.reactions?.[0].count, 1);
  const tombstone = { ...message('m2', 'alice'), text: '', deleted_at: '2026-12-04T10:01:00Z' };
  store.dispatch(server({ type: 'message.deleted', cid: CID, message: tombstone }));
  assert.equal(store.getState().messages.byId.m2.message.text, '');
  assert.equal(store.getState().messages.editing, null);
  // A late copy from before the deletion does not bring the text back.
  store.dispatch({ type: 'message/changed', message: edited });
  assert.equal(store.getState().messages.byId.m2.message.deleted_at, '2026-12-04T10:01:00Z');
  store.dispatch(server({ type: 'message.updated', cid: CID, message: message('m0', 'bob') }));
  assert.deepEqual(store.getState().messages.order, ['m1', 'm2']);
});

test('asking to delete and editing are one at a time', () => {
  const store = signedIn();
  store.dispatch({ type: 'message/editing', id: 'm1' });
  store.dispatch({ type: 'message/deleting', id: 'm2' });
  assert.equal(store.getState().messages.editing, null);
  assert.equal(store.getState().messages.deleting, 'm2');
  store.dispatch({ type: 'message/deleting', id: null });
  assert.equal(store.getState().messages.deleting, null);
});

test('the public channels are kept once asked for, and forgotten at sign-out', () => {
  const store = signedIn();
  const listing = { channel: { cid: 'team:trips-1', name: 'Trips', public: true, topic: 'Where next?' }, member_count: 3, joined: false };
  store.dispatch({ type: 'directory/loaded', channels: [listing] });
  assert.deepEqual(store.getState().channels.directory, [listing]);
  store.dispatch({ type: 'session/signedOut', message: '' });
  assert.equal(store.getState().channels.directory, null);
});

test('a direct message is called by the other people in it', () => {
  const user = (/** @type {string} */ id, /** @type {string} */ name) => ({ id, name });
  const direct = { channel: { cid: 'messaging:!members-0f3a', name: '!members-0f3a' }, members: [user('alice', 'Alice'), user('bob', 'Bob')], unread_count: 0 };
  const team = { channel: { cid: 'team:trips-1', name: 'Trips' }, members: [user('alice', 'Alice')], unread_count: 0 };
  assert.equal(channelTitle(direct, 'alice'), 'Bob');
  assert.equal(channelTitle(team, 'alice'), 'Trips');
});
