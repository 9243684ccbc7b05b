import test from 'node:test';
import assert from 'node:assert/strict';
import { CID, signedIn } from './helpers.js';
import { draftOf, entersSend } from '../../Sources/Server/Web/composer.js';

test('a chip fills the draft and asks for the focus; it sends nothing', () => {
  const store = signedIn();
  /** @type {string[]} */
  const actions = [];
  store.listen((action) => actions.push(action.type));
  const before = store.getState().composer.focus.revision;
  store.dispatch({ type: 'composer/insert', key: CID, text: 'Sounds good!' });
  const state = store.getState();
  assert.equal(draftOf(state.composer, CID), 'Sounds good!');
  assert.deepEqual(state.composer.focus, { key: CID, revision: before + 1 });
  assert.equal(state.messages.order.length, 0);
  assert.deepEqual(actions, ['composer/insert']);
});

test('drafts are kept per channel, and typing does not move the focus', () => {
  const store = signedIn();
  store.dispatch({ type: 'composer/draft', key: CID, text: 'half a thought' });
  store.dispatch({ type: 'channel/opened', cid: 'messaging:other', at: 1 });
  store.dispatch({ type: 'composer/draft', key: 'messaging:other', text: 'elsewhere' });
  const state = store.getState().composer;
  assert.equal(draftOf(state, CID), 'half a thought');
  assert.equal(draftOf(state, 'messaging:other'), 'elsewhere');
  assert.equal(state.focus.revision, 0);
  assert.equal(draftOf(state, null), '');
  store.dispatch({ type: 'session/signedOut', message: '' });
  assert.deepEqual(store.getState().composer.drafts, {});
});

test('Enter sends; Shift+Enter and Enter that confirms an input method do not', () => {
  const key = (/** @type {Partial<{ key: string, shiftKey: boolean, isComposing: boolean, keyCode: number }>} */ event) =>
    ({ key: 'Enter', shiftKey: false, isComposing: false, keyCode: 13, ...event });
  assert.equal(entersSend(key({}), false), true);
  assert.equal(entersSend(key({ shiftKey: true }), false), false);
  assert.equal(entersSend(key({ isComposing: true }), false), false);
  assert.equal(entersSend(key({ keyCode: 229 }), false), false);
  assert.equal(entersSend(key({}), true), false); // between compositionstart and its end
  assert.equal(entersSend(key({ key: 'a' }), false), false);
});
