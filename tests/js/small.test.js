import test from 'node:test';
import assert from 'node:assert/strict';
import { refreshDelay } from '../../Sources/Server/Web/token.js';
import { mentionsDate } from '../../Sources/Server/Web/dates.js';
import { initialSession, modelStatusText, session } from '../../Sources/Server/Web/session.js';
import { joinSecret } from '../../Sources/Server/Web/session-effects.js';
import { MODEL } from './helpers.js';

test('a session is refreshed when four fifths of what is left of it are gone', () => {
  assert.equal(refreshDelay(1100, 1_000_000), 80_000);
  assert.equal(refreshDelay(1000, 1_000_000), 1000); // at least a second
  assert.equal(refreshDelay(null, 0), null); // never expires
  assert.equal(refreshDelay(undefined, 0), null);
});

test('a one-time link is read from #join=<secret> only', () => {
  const secret = 'A'.repeat(42) + '_';
  assert.equal(joinSecret(`#join=${secret}`), secret);
  assert.equal(joinSecret(`#join=${secret}x`), null);
  assert.equal(joinSecret('#join=short'), null);
  assert.equal(joinSecret('#join=<img src=x>'.padEnd(49, 'a')), null);
  assert.equal(joinSecret(''), null);
});

test('a link opens the join page; signing in closes it and says whether the user is an administrator', () => {
  const link = { secret: 's', user: 'ada', name: 'Ada', kind: /** @type {const} */ ('invite') };
  let state = session({ ...initialSession, status: 'starting' }, { type: 'session/join', join: link });
  assert.equal(state.status, 'signed-out');
  assert.equal(state.join, link);
  state = session(state, { type: 'session/join', join: link, message: 'a password has at least 8 characters' });
  assert.equal(state.error, 'a password has at least 8 characters');
  const me = { user: { id: 'ada', name: 'Ada' }, suggestions: false, model: MODEL };
  state = session(state, { type: 'session/signedIn', me, admin: true, suggestionsWanted: true });
  assert.equal(state.status, 'signed-in');
  assert.equal(state.join, null);
  assert.equal(state.admin, true);
  assert.equal(state.error, '');
  state = session(state, { type: 'account/link', link: 'http://h/#join=x' });
  assert.deepEqual(state.account, { link: 'http://h/#join=x', note: '' });
  state = session(state, { type: 'account/note', text: 'Password changed.' });
  assert.deepEqual(state.account, { link: 'http://h/#join=x', note: 'Password changed.' });
  state = session(state, { type: 'session/signedOut', message: 'bye' });
  assert.equal(state.admin, false);
  assert.deepEqual(state.account, { link: '', note: '' });
});

test('"Add to calendar" is offered where a day or a time is mentioned', () => {
  for (const text of ["Let's meet Saturday 8am", 'at 14:30?', 'Dec 5 works', 'on 2025-12-05', 'tomorrow then', 'noon']) {
    assert.ok(mentionsDate(text), text);
  }
  for (const text of ['Perfect. I\'ll bring snacks.', 'version 10.2', 'I may come', 'ampm']) {
    assert.ok(!mentionsDate(text), text);
  }
});

test('the sidebar says why the model is unavailable, or where the fallback sends things', () => {
  assert.equal(modelStatusText(MODEL), '');
  assert.equal(modelStatusText({ ...MODEL, available: false, message: 'Turned off.' }), 'The local model is unavailable. Turned off.');
  assert.match(modelStatusText({ ...MODEL, fallback: true, name: 'm at http://h/v1' }), /use the fallback m at http:\/\/h\/v1: what they read is sent there/);
  assert.match(modelStatusText({ ...MODEL, pool: true, name: 'q here and m on a pool of 2 servers' }), /run on q here and m on a pool of 2 servers, wherever there is room: what they read may be sent/);
});
