import test from 'node:test';
import assert from 'node:assert/strict';
import { CID, message, server, signedIn } from './helpers.js';
import { canRemove, channelTitle, currentSummary, isDirect } from '../../Sources/Server/Web/channels.js';
import { offersHistory, versions } from '../../Sources/Server/Web/messages.js';
import { directMembers, knownPeople, personFor } from '../../Sources/Server/Web/people.js';

/** @typedef {import('../../Sources/Server/Web/types.js').ChannelSummary} ChannelSummary */

/** @type {ChannelSummary[]} */
const LIST = [
  { channel: { cid: CID, name: 'Weekend Hike', created_by: 'alice' }, unread_count: 0,
    members: [{ id: 'alice', name: 'Alice' }, { id: 'bob', name: 'Bob' }] },
  { channel: { cid: 'team:trips-1', name: 'Trips', created_by: 'bob' }, unread_count: 0,
    members: [{ id: 'bob', name: 'Bob' }, { id: 'carol', name: 'Carol' }, { id: 'alice', name: 'Alice' }] },
  { channel: { cid: 'messaging:!members-alice-bob-carol', name: '' }, unread_count: 0,
    members: [{ id: 'alice', name: 'Alice' }, { id: 'bob', name: 'Bob' }, { id: 'carol', name: 'Carol' }] },
];

test('the people offered are the members of the reader\'s channels, once each, by name, without the reader', () => {
  assert.deepEqual(knownPeople(LIST, 'alice'), [{ id: 'bob', name: 'Bob' }, { id: 'carol', name: 'Carol' }]);
  assert.deepEqual(knownPeople([], 'alice'), []);
});

test('a typed name means a known person by name or id in any case, else a user id; other text is refused', () => {
  const known = knownPeople(LIST, 'alice');
  assert.deepEqual(personFor(known, ' carol '), { person: { id: 'carol', name: 'Carol' } });
  assert.deepEqual(personFor(known, 'BOB'), { person: { id: 'bob', name: 'Bob' } });
  assert.deepEqual(personFor(known, 'dave'), { person: { id: 'dave', name: 'dave' } }); // the server decides
  assert.ok('error' in personFor(known, 'Dave Smith'));
  assert.ok('error' in personFor(known, ''));
  // Two people of one name: the id picks one.
  const twins = [{ id: 'sam1', name: 'Sam' }, { id: 'sam2', name: 'Sam' }];
  assert.match(/** @type {{ error: string }} */ (personFor(twins, 'sam')).error, /Several people/);
  assert.deepEqual(personFor(twins, 'sam2'), { person: { id: 'sam2', name: 'Sam' } });
});

test('opening takes the chosen people and the name still typed, never the reader twice', () => {
  const known = knownPeople(LIST, 'alice');
  assert.deepEqual(directMembers(known, [], 'Bob', 'alice'), { ids: ['bob'] });
  assert.deepEqual(directMembers(known, [{ id: 'bob', name: 'Bob' }], 'Carol', 'alice'), { ids: ['bob', 'carol'] });
  assert.deepEqual(directMembers(known, [{ id: 'bob', name: 'Bob' }], 'bob', 'alice'), { ids: ['bob'] });
  assert.ok('error' in directMembers(known, [], '', 'alice'));
  assert.ok('error' in directMembers(known, [], 'alice', 'alice'));
  assert.ok('error' in directMembers(known, [{ id: 'bob', name: 'Bob' }], 'Not A Name!', 'alice'));
});

test('the picker keeps each person once, in order, until cleared or signed out', () => {
  const store = signedIn();
  store.dispatch({ type: 'people/chose', person: { id: 'bob', name: 'Bob' } });
  store.dispatch({ type: 'people/chose', person: { id: 'carol', name: 'Carol' } });
  store.dispatch({ type: 'people/chose', person: { id: 'bob', name: 'Bob' } });
  assert.deepEqual(store.getState().people.chosen.map((person) => person.id), ['bob', 'carol']);
  store.dispatch({ type: 'people/note', text: 'No one called Zed' });
  assert.equal(store.getState().people.note, 'No one called Zed');
  store.dispatch({ type: 'people/unchose', id: 'bob' });
  assert.deepEqual(store.getState().people, { chosen: [{ id: 'carol', name: 'Carol' }], note: 'No one called Zed' });
  store.dispatch({ type: 'people/cleared' });
  assert.deepEqual(store.getState().people, { chosen: [], note: '' });
});

test('a group direct message is called by the other members\' names', () => {
  assert.equal(channelTitle(LIST[2], 'alice'), 'Bob, Carol');
  assert.equal(channelTitle(LIST[2], 'carol'), 'Alice, Bob');
  assert.equal(channelTitle(LIST[1], 'alice'), 'Trips');
  assert.ok(isDirect(LIST[2].channel.cid) && !isDirect(LIST[1].channel.cid));
});

test('a channel.updated event renames the channel and sets its topic in the list at once', () => {
  const store = signedIn();
  store.dispatch(server({ type: 'channel.updated', cid: CID, channel: { cid: CID, name: '<b>Hike</b>', topic: 'Boots & maps' } }));
  const summary = /** @type {ChannelSummary} */ (currentSummary(store.getState().channels));
  assert.equal(summary.channel.name, '<b>Hike</b>');
  assert.equal(summary.channel.topic, 'Boots & maps');
  assert.equal(summary.unread_count, 1); // the rest of the summary stays
  // The reader's own change, answered by the server, does the same.
  store.dispatch({ type: 'channel/changed', channel: { cid: CID, name: 'Hike', topic: '' } });
  assert.equal(/** @type {ChannelSummary} */ (currentSummary(store.getState().channels)).channel.name, 'Hike');
  // A channel not in the list is not added by its event.
  const before = store.getState().channels;
  store.dispatch(server({ type: 'channel.updated', cid: 'team:x', channel: { cid: 'team:x', name: 'X' } }));
  assert.equal(store.getState().channels, before);
});

test('someone else leaving goes from the members; the reader removed loses the channel and what it showed', () => {
  const store = signedIn();
  store.dispatch({ type: 'messages/page', cid: CID, messages: [message('m1', 'bob')], hasMore: false, older: false });
  store.dispatch(server({ type: 'member.left', cid: CID, user_id: 'bob' }));
  assert.deepEqual(/** @type {ChannelSummary} */ (currentSummary(store.getState().channels)).members.map((member) => member.id), ['alice']);
  assert.deepEqual(store.getState().messages.order, ['m1']);
  store.dispatch(server({ type: 'member.left', cid: CID, user_id: 'alice' }));
  const state = store.getState();
  assert.equal(state.channels.current, null);
  assert.deepEqual(state.channels.list, []);
  assert.equal(state.messages.cid, null);
  assert.deepEqual(state.messages.order, []);
});

test('leaving a channel that is not open drops it from the list and keeps the open one', () => {
  const store = signedIn();
  store.dispatch({ type: 'channels/loaded', channels: LIST });
  store.dispatch({ type: 'messages/page', cid: CID, messages: [message('m1', 'bob')], hasMore: false, older: false });
  store.dispatch({ type: 'channel/left', cid: 'team:trips-1' });
  const state = store.getState();
  assert.deepEqual(state.channels.list.map((summary) => summary.channel.cid), [CID, 'messaging:!members-alice-bob-carol']);
  assert.equal(state.channels.current, CID);
  assert.deepEqual(state.messages.order, ['m1']);
});

test('Remove is offered to the channel\'s creator and administrators, never for oneself or in a direct message', () => {
  const [hike, trips, group] = LIST;
  assert.equal(canRemove(hike, 'bob', 'alice', false), true); // alice made it
  assert.equal(canRemove(hike, 'alice', 'alice', false), false); // that is leaving
  assert.equal(canRemove(trips, 'carol', 'alice', false), false); // bob made it
  assert.equal(canRemove(trips, 'carol', 'alice', true), true);
  assert.equal(canRemove(group, 'bob', 'alice', true), false);
});

test('an edited message\'s versions: each earlier text with when it was written and replaced, then the text now', () => {
  const edited = { ...message('m1', 'alice', 'Sunday at 10'), created_at: '2025-12-03T10:00:00.000Z', edited_at: '2025-12-03T10:07:00.000Z' };
  const edits = [
    { text: 'Saturday?', edited_at: '2025-12-03T10:02:00.000Z' },
    { text: 'Sunday?', edited_at: '2025-12-03T10:07:00.000Z' },
  ];
  assert.deepEqual(versions(edited, edits), [
    { text: 'Saturday?', from: '2025-12-03T10:00:00.000Z', until: '2025-12-03T10:02:00.000Z' },
    { text: 'Sunday?', from: '2025-12-03T10:02:00.000Z', until: '2025-12-03T10:07:00.000Z' },
    { text: 'Sunday at 10', from: '2025-12-03T10:07:00.000Z', until: null },
  ]);
  assert.deepEqual(versions(message('m2', 'bob', 'hi'), []), [{ text: 'hi', from: '2025-12-03T10:00:00Z', until: null }]);
});

test('the history is offered for an edited message to its author and administrators only', () => {
  const edited = { ...message('m1', 'alice'), edited_at: '2025-12-03T10:07:00Z' };
  assert.equal(offersHistory(edited, 'alice', false), true);
  assert.equal(offersHistory(edited, 'bob', false), false);
  assert.equal(offersHistory(edited, 'bob', true), true);
  assert.equal(offersHistory(message('m2', 'alice'), 'alice', false), false); // never edited
  assert.equal(offersHistory({ ...edited, deleted_at: '2025-12-03T11:00:00Z' }, 'alice', true), false);
});

test('a history is loading, then shown; an answer for another message, or after closing, is dropped; deleting closes it', () => {
  const store = signedIn();
  const edited = { ...message('m1', 'alice', 'now'), edited_at: '2025-12-03T10:07:00Z' };
  store.dispatch({ type: 'messages/page', cid: CID, messages: [edited, message('m2', 'bob')], hasMore: false, older: false });
  store.dispatch({ type: 'history/requested', id: 'missing' });
  assert.equal(store.getState().messages.history, null);
  store.dispatch({ type: 'history/requested', id: 'm1' });
  assert.equal(store.getState().messages.history?.status, 'loading');
  store.dispatch({ type: 'history/loaded', id: 'm2', edits: [] });
  assert.equal(store.getState().messages.history?.status, 'loading');
  const edits = [{ text: 'before', edited_at: '2025-12-03T10:07:00Z' }];
  store.dispatch({ type: 'history/loaded', id: 'm1', edits });
  assert.deepEqual(store.getState().messages.history, { id: 'm1', status: 'done', edits, error: '' });
  store.dispatch({ type: 'history/closed' });
  store.dispatch({ type: 'history/failed', id: 'm1', error: 'late' });
  assert.equal(store.getState().messages.history, null);
  store.dispatch({ type: 'history/requested', id: 'm1' });
  store.dispatch({ type: 'history/failed', id: 'm1', error: 'Forbidden' });
  assert.equal(store.getState().messages.history?.error, 'Forbidden');
  store.dispatch(server({ type: 'message.deleted', cid: CID, message: { ...edited, deleted_at: '2025-12-03T11:00:00Z', text: '' } }));
  assert.equal(store.getState().messages.history, null);
});
