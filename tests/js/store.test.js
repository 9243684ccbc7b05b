import test from 'node:test';
import assert from 'node:assert/strict';
import { combine, createStore, watch } from '../../Sources/Server/Web/store.js';

/** @typedef {{ type: 'add', n: number } | { type: 'noop' }} CountAction */

/**
 * @param {{ count: number }} state
 * @param {CountAction} action
 */
function counter(state, action) {
  return action.type === 'add' ? { count: state.count + action.n } : state;
}

test('subscribers are told of changes only, listeners of every action', () => {
  const store = createStore(counter, { count: 0 });
  /** @type {number[]} */
  const seen = [];
  /** @type {string[]} */
  const actions = [];
  store.subscribe((state, previous) => seen.push(state.count - previous.count));
  store.listen((action) => actions.push(action.type));
  store.dispatch({ type: 'add', n: 2 });
  store.dispatch({ type: 'noop' });
  store.dispatch({ type: 'add', n: 3 });
  assert.deepEqual(seen, [2, 3]);
  assert.deepEqual(actions, ['add', 'noop', 'add']);
  assert.equal(store.getState().count, 5);
});

test('an action dispatched while another is applied runs after it, in order', () => {
  const store = createStore(counter, { count: 0 });
  /** @type {number[]} */
  const order = [];
  store.listen((action, state) => {
    order.push(state.count);
    if (action.type === 'add' && action.n === 1) {
      store.dispatch({ type: 'add', n: 10 });
      store.dispatch({ type: 'add', n: 100 });
      order.push(-1); // the nested ones have not run yet
    }
  });
  store.dispatch({ type: 'add', n: 1 });
  assert.deepEqual(order, [1, -1, 11, 111]);
});

test('unsubscribing stops the calls', () => {
  const store = createStore(counter, { count: 0 });
  let calls = 0;
  const stop = store.subscribe(() => { calls += 1; });
  store.dispatch({ type: 'add', n: 1 });
  stop();
  store.dispatch({ type: 'add', n: 1 });
  assert.equal(calls, 1);
});

test('watch renders at once, then only when its part is a new object', () => {
  const store = createStore((/** @type {{ a: { n: number }, b: number }} */ state, /** @type {{ type: 'a' | 'b' }} */ action) =>
    action.type === 'a' ? { ...state, a: { n: state.a.n + 1 } } : { ...state, b: state.b + 1 }, { a: { n: 0 }, b: 0 });
  /** @type {number[]} */
  const renders = [];
  watch(store, (state) => state.a, (a) => renders.push(a.n));
  store.dispatch({ type: 'b' });
  store.dispatch({ type: 'a' });
  store.dispatch({ type: 'b' });
  assert.deepEqual(renders, [0, 1]);
});

test('combine returns the same object while its inputs are the same', () => {
  let made = 0;
  const pick = combine((/** @type {{ x: object, y: object, z: number }} */ state) => [state.x, state.y], (x, y) => {
    made += 1;
    return { x, y };
  });
  const x = {};
  const y = {};
  const first = pick({ x, y, z: 1 });
  assert.equal(pick({ x, y, z: 2 }), first);
  assert.notEqual(pick({ x, y: {}, z: 2 }), first);
  assert.equal(made, 2);
});
