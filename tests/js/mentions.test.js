import test from 'node:test';
import assert from 'node:assert/strict';
import { completeMention, mentionChoices, mentionPieces, mentionQuery, mentions, notificationFor } from '../../Sources/Server/Web/mentions.js';

test('mentions follow the server\'s rule: an id as a word of its own', () => {
  const cases = [
    ['@alice are you in?', true], ['hey @Alice.', true], ['(@alice)', true], ['@alice, @bob', true],
    ['mail alice@alice.example', false], ['@alice2 is someone else', false], ['@alice.b too', false],
    ['@ali', false], ['alice', false], ['@alice-x', false], ['x@alice', false],
  ];
  for (const [text, expected] of cases) assert.equal(mentions('alice', /** @type {string} */ (text)), expected, /** @type {string} */ (text));
});

test('a text is cut into plain pieces and mentions, losing nothing', () => {
  const text = 'hi @bob. and @alice, see <b>@x</b>';
  const pieces = mentionPieces(text);
  assert.equal(pieces.map((piece) => piece.text).join(''), text);
  assert.deepEqual(pieces.filter((piece) => piece.mention).map((piece) => piece.mention), ['bob', 'alice', 'x']);
});

test('the composer offers members for the @ being typed and puts the chosen id in its place', () => {
  assert.equal(mentionQuery('hello @al', 9), 'al');
  assert.equal(mentionQuery('hello @', 7), '');
  assert.equal(mentionQuery('mail a@al', 9), null);
  assert.equal(mentionQuery('hello @al there', 15), null);
  const members = [{ id: 'alice', name: 'Alice' }, { id: 'bob', name: 'Bob' }, { id: 'al2', name: 'Albert' }];
  assert.deepEqual(mentionChoices('al', members, 'bob').map((member) => member.id), ['alice', 'al2']);
  assert.deepEqual(mentionChoices('b', members, 'bob'), []); // not yourself
  assert.deepEqual(completeMention('hi @al and', 6, 'alice'), { text: 'hi @alice  and', caret: 10 });
});

test('a hidden page notifies of mentions and direct messages only', () => {
  const user = (/** @type {string} */ id, /** @type {string} */ name) => ({ id, name });
  const channel = { cid: 'messaging:hike', name: 'Weekend Hike' };
  const team = { channel, members: [user('alice', 'Alice'), user('bob', 'Bob'), user('carol', 'Carol')], unread_count: 0 };
  const direct = { channel: { cid: 'messaging:!members-x', name: 'Alice, Bob' }, members: [user('alice', 'Alice'), user('bob', 'Bob')], unread_count: 0 };
  const message = (/** @type {string} */ text, /** @type {string} */ cid = channel.cid) =>
    ({ id: 'm', cid, user_id: 'bob', text, created_at: '2026-12-04T10:00:00Z' });
  assert.deepEqual(notificationFor(message('@alice lunch?'), team, 'alice'), { title: 'Bob in Weekend Hike', body: '@alice lunch?' });
  assert.equal(notificationFor(message('lunch?'), team, 'alice'), null);
  assert.deepEqual(notificationFor(message('lunch?', direct.channel.cid), direct, 'alice'), { title: 'Bob', body: 'lunch?' });
  assert.equal(notificationFor(message('@bob talking to myself'), team, 'bob'), null); // one's own
  assert.equal(notificationFor(message('x'.repeat(300) + ' @alice'), team, 'alice')?.body.length, 200);
  // A mention in a thread's reply notifies too, and says it is in a thread.
  assert.deepEqual(notificationFor({ ...message('@alice can you?'), parent_id: 'root' }, team, 'alice'), { title: 'Bob in Weekend Hike (thread)', body: '@alice can you?' });
});
