import test from 'node:test';
import assert from 'node:assert/strict';
import { CID, message, server, signedIn } from './helpers.js';

const ready = (/** @type {string} */ signature, /** @type {string[]} */ chips) =>
  ({ type: /** @type {const} */ ('suggestions.updated'), cid: CID, status: /** @type {const} */ ('ready'), signature, suggestions: chips, model: 'm' });
const partial = (/** @type {string} */ signature, /** @type {string[]} */ chips) =>
  ({ type: /** @type {const} */ ('suggestions.partial'), cid: CID, signature, suggestions: chips });

test('chips stream in for the pending state, then settle; the timing says they streamed', () => {
  const store = signedIn();
  store.dispatch({ type: 'suggestions/snapshot', snapshot: { cid: CID, status: 'pending', signature: 's1' }, at: 10 });
  assert.deepEqual(store.getState().suggestions.shown, { status: 'pending', chips: [], signature: '', tone: 'casual', model: null });
  store.dispatch(server(partial('s1', ['Sure']), 500));
  store.dispatch(server(partial('s1', ['Sure!', 'Sounds']), 700));
  let shown = store.getState().suggestions.shown;
  assert.equal(shown && shown.status, 'streaming');
  assert.deepEqual(shown && shown.chips, ['Sure!', 'Sounds']);
  // A "pending" answer for the same state does not hide the chips being written.
  store.dispatch(server({ type: 'suggestions.updated', cid: CID, status: 'pending', signature: 's1' }, 800));
  assert.equal(store.getState().suggestions.shown?.status, 'streaming');
  store.dispatch(server(ready('s1', ['Sure!', 'Sounds good', 'Can we?', 'a fourth']), 1500));
  shown = store.getState().suggestions.shown;
  assert.deepEqual(shown && shown.chips, ['Sure!', 'Sounds good', 'Can we?']); // three at most
  assert.equal(shown && shown.model, 'm');
  // From the channel's opening (t=0) to the first chip and to the set.
  assert.deepEqual(store.getState().suggestions.timings, [{ signature: 's1', firstChipMs: 500, setMs: 1500, streamed: true }]);
});

test('partials of another state of the conversation, and a late pending, are dropped', () => {
  const store = signedIn();
  store.dispatch({ type: 'suggestions/snapshot', snapshot: { cid: CID, status: 'pending', signature: 'new' }, at: 0 });
  store.dispatch(server(partial('old', ['stale chip']), 5));
  assert.equal(store.getState().suggestions.shown?.status, 'pending');
  store.dispatch(server(ready('new', ['fresh']), 9));
  store.dispatch({ type: 'suggestions/snapshot', snapshot: { cid: CID, status: 'pending', signature: 'new' }, at: 10 });
  assert.deepEqual(store.getState().suggestions.shown?.chips, ['fresh']);
  // A partial once the set is done changes nothing either.
  store.dispatch(server(partial('new', ['rewritten']), 11));
  assert.deepEqual(store.getState().suggestions.shown?.chips, ['fresh']);
  // Another channel's suggestions are not this row's.
  store.dispatch(server({ ...ready('x', ['elsewhere']), cid: 'messaging:other' }, 12));
  assert.deepEqual(store.getState().suggestions.shown?.chips, ['fresh']);
});

test('someone else writing brings the indicator back; the reader writing removes the row', () => {
  const store = signedIn();
  store.dispatch(server(ready('s1', ['Yes']), 1));
  store.dispatch(server({ type: 'message.new', cid: CID, message: message('m1', 'bob') }, 100));
  const state = store.getState().suggestions;
  assert.equal(state.shown?.status, 'pending');
  assert.equal(state.waitingSince, 100);
  // A partial of any state is taken while the state is not known yet.
  store.dispatch(server(partial('s2', ['On it']), 300));
  assert.equal(store.getState().suggestions.shown?.status, 'streaming');
  store.dispatch(server({ type: 'message.new', cid: CID, message: message('m2', 'alice') }, 400));
  assert.equal(store.getState().suggestions.shown, null);
  assert.equal(store.getState().suggestions.last?.status, 'none');
  // A late partial for the state before the reader wrote stays out.
  store.dispatch(server(partial('s2', ['On it, again']), 500));
  assert.equal(store.getState().suggestions.shown, null);
});

test('sending clears the row at once; failures and "none" leave no row', () => {
  const store = signedIn();
  store.dispatch(server(ready('s1', ['Yes']), 1));
  store.dispatch({ type: 'suggestions/clear', cid: CID });
  assert.equal(store.getState().suggestions.shown, null);
  store.dispatch({ type: 'suggestions/snapshot', snapshot: { cid: CID, status: 'none', signature: 's' }, at: 2 });
  assert.equal(store.getState().suggestions.shown, null);
  store.dispatch({ type: 'suggestions/snapshot', snapshot: { cid: CID, status: 'pending', signature: 's' }, at: 2 });
  store.dispatch({ type: 'suggestions/failed', cid: CID });
  assert.equal(store.getState().suggestions.shown, null);
});

test('the tone starts over: nothing shown until the server answers for the new tone', () => {
  const store = signedIn();
  store.dispatch(server(ready('s1', ['hey']), 1));
  store.dispatch({ type: 'suggestions/tone', tone: 'formal', at: 50 });
  const state = store.getState().suggestions;
  assert.equal(state.tone, 'formal');
  assert.equal(state.shown, null);
  assert.equal(state.waitingSince, 50);
  store.dispatch({ type: 'suggestions/snapshot', snapshot: { cid: CID, status: 'ready', signature: 's1f', suggestions: ['Good morning'] }, at: 80 });
  assert.equal(store.getState().suggestions.shown?.tone, 'formal');
  assert.equal(store.getState().suggestions.timings.at(-1)?.setMs, 30);
});

test('with suggestions off (by the server or the toggle) nothing is shown', () => {
  const off = signedIn({ suggestions: false });
  off.dispatch(server(ready('s1', ['Yes']), 1));
  off.dispatch(server({ type: 'message.new', cid: CID, message: message('m1', 'bob') }, 2));
  assert.equal(off.getState().suggestions.shown, null);
  const toggled = signedIn();
  toggled.dispatch(server(ready('s1', ['Yes']), 1));
  toggled.dispatch({ type: 'session/suggestionsWanted', wanted: false });
  assert.equal(toggled.getState().suggestions.shown, null);
  toggled.dispatch(server(ready('s2', ['No']), 2));
  assert.equal(toggled.getState().suggestions.shown, null);
});
