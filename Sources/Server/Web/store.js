// The one store of the web app: a plain object of state, changed only by dispatching actions
// through the reducer (state.js), with subscribers (the views) told after each change and
// listeners (the effects: requests, timers) told of each action.
//
// Dependency-free on purpose: the pattern is these forty lines, the views are a few small DOM
// functions each, and the page has no build step. A library (Redux, Preact, lit-html) would
// bring more code than the app's own store and views together, and none is packaged for Debian
// as a browser file we could vendor with its licence without npm; tsc's JSDoc checking gives the
// typed actions such a library would.

/**
 * @template S, A
 * @typedef {object} Store
 * @property {() => S} getState
 * @property {(action: A) => void} dispatch Applies `action`; one dispatched while another is
 *   being applied (by a subscriber or listener) runs right after it, in order.
 * @property {(subscriber: (state: S, previous: S) => void) => () => void} subscribe
 * @property {(listener: (action: A, state: S, previous: S) => void) => () => void} listen
 */

/**
 * @template S, A
 * @param {(state: S, action: A) => S} reducer pure: the same state and action give the same result
 * @param {S} initial
 * @returns {Store<S, A>}
 */
export function createStore(reducer, initial) {
  let state = initial;
  /** @type {Set<(state: S, previous: S) => void>} */
  const subscribers = new Set();
  /** @type {Set<(action: A, state: S, previous: S) => void>} */
  const listeners = new Set();
  /** @type {A[]} */
  const queue = [];
  let busy = false;

  /** @param {A} action */
  function dispatch(action) {
    queue.push(action);
    if (busy) return;
    busy = true;
    try {
      while (queue.length > 0) {
        const next = /** @type {A} */ (queue.shift());
        const previous = state;
        state = reducer(state, next);
        if (state !== previous) for (const subscriber of [...subscribers]) subscriber(state, previous);
        for (const listener of [...listeners]) listener(next, state, previous);
      }
    } finally {
      busy = false;
    }
  }

  return {
    getState: () => state,
    dispatch,
    subscribe(subscriber) {
      subscribers.add(subscriber);
      return () => subscribers.delete(subscriber);
    },
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/**
 * Calls `render(selected)` now and whenever `select(state)` changes (by identity): a view
 * re-renders only when its part of the state is a new object.
 *
 * @template S, A, T
 * @param {Store<S, A>} store
 * @param {(state: S) => T} select
 * @param {(selected: T, previous: T | undefined) => void} render
 */
export function watch(store, select, render) {
  let last = select(store.getState());
  render(last, undefined);
  return store.subscribe((state) => {
    const next = select(state);
    if (next === last) return;
    const previous = last;
    last = next;
    render(next, previous);
  });
}

/**
 * A selector that returns the same object while its inputs are the same (by identity), so a
 * view combining several parts of the state re-renders only when one of them changed.
 *
 * @template S
 * @template {unknown[]} I
 * @template T
 * @param {(state: S) => [...I]} inputs
 * @param {(...inputs: I) => T} combine
 * @returns {(state: S) => T}
 */
export function combine(inputs, combine) {
  /** @type {I | null} */
  let lastInputs = null;
  /** @type {T} */
  let lastValue;
  return (state) => {
    const next = inputs(state);
    if (lastInputs && next.length === lastInputs.length && next.every((value, index) => value === /** @type {I} */ (lastInputs)[index])) {
      return lastValue;
    }
    lastInputs = next;
    lastValue = combine(...next);
    return lastValue;
  };
}
