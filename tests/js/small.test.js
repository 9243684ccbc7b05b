import test from 'node:test';
import assert from 'node:assert/strict';
import { expiryOf, refreshDelay } from '../../Sources/Server/Web/token.js';
import { mentionsDate } from '../../Sources/Server/Web/dates.js';
import { modelStatusText } from '../../Sources/Server/Web/session.js';
import { MODEL } from './helpers.js';

/** @param {object} claims */
const jwt = (claims) => `h.${btoa(JSON.stringify(claims)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')}.s`;

test('a token is refreshed when four fifths of its life are gone', () => {
  assert.equal(expiryOf(jwt({ sub: 'alice', exp: 2000 })), 2000);
  assert.equal(expiryOf('not a token'), null);
  assert.equal(expiryOf(jwt({ sub: 'alice' })), null); // never expires
  assert.equal(refreshDelay(jwt({ exp: 1100 }), 1_000_000), 80_000);
  assert.equal(refreshDelay(jwt({ exp: 1000 }), 1_000_000), 1000); // at least a second
  assert.equal(refreshDelay(jwt({}), 0), null);
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
});
