import test from 'node:test';
import assert from 'node:assert/strict';
import { EventStream, PING_MS, backoff, readFrame } from '../../Sources/Server/Web/events.js';

/** @typedef {import('../../Sources/Server/Web/types.js').ServerEvent} ServerEvent */

test('readFrame hands each logged event on once, in order, and a gap is no loss', () => {
  let seq = readFrame(null, { type: 'hello', last_seq: 10 }).lastSeq;
  assert.equal(seq, 10);
  /** @type {number[]} */
  const delivered = [];
  for (const n of [11, 11, 9, 15, 14, 20]) {
    const read = readFrame(seq, { type: 'message.read', seq: n, cid: 'c', user_id: 'u' });
    if (read.deliver) delivered.push(n);
    seq = read.lastSeq;
  }
  assert.deepEqual(delivered, [11, 15, 20]); // repeats and older ones dropped; 12–14 and 16–19 were never ours
  assert.equal(seq, 20);
});

test('readFrame: a reconnection keeps the cursor, a resync moves it, live frames always pass', () => {
  assert.equal(readFrame(20, { type: 'hello', last_seq: 50 }).lastSeq, 20); // resumes from what it saw
  assert.deepEqual(readFrame(20, { type: 'resync', last_seq: 50 }), { lastSeq: 50, deliver: false });
  const live = readFrame(20, { type: 'suggestions.partial', cid: 'c', signature: 's', suggestions: ['a'] });
  assert.deepEqual(live, { lastSeq: 20, deliver: true });
  assert.equal(readFrame(20, { type: 'pong' }).deliver, false);
});

test('backoff doubles from one second up to thirty, plus up to a second of jitter', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 9].map((n) => backoff(n, 0)), [1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  assert.equal(backoff(1, 0.5), 1500);
});

class FakeSocket {
  /** @param {string} url */
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    /** @type {string[]} */
    this.sent = [];
    /** @type {Record<string, Array<(event: any) => void>>} */
    this.listeners = {};
    this.closed = false;
  }
  /** @param {string} type @param {(event: any) => void} listener */
  addEventListener(type, listener) {
    (this.listeners[type] ||= []).push(listener);
  }
  /** @param {string} type @param {any} [event] */
  emit(type, event) {
    for (const listener of this.listeners[type] || []) listener(event);
  }
  open() {
    this.readyState = 1;
    this.emit('open');
  }
  /** @param {object} frame */
  receive(frame) {
    this.emit('message', { data: JSON.stringify(frame) });
  }
  /** @param {string} data */
  send(data) {
    this.sent.push(data);
  }
  close() {
    if (this.closed) return;
    this.closed = true;
    this.readyState = 3;
    this.emit('close');
  }
  /** The auth message this socket sent. */
  auth() {
    return JSON.parse(this.sent[0]);
  }
}

/** Timers run by hand. */
function fakeTimers() {
  /** @type {Array<{ id: number, at: number, fn: () => void, every: number | null }>} */
  let pending = [];
  let now = 0;
  let next = 1;
  const timers = {
    /** @param {() => void} fn @param {number} ms */
    setTimeout: (fn, ms) => { pending.push({ id: next, at: now + ms, fn, every: null }); return next++; },
    /** @param {number} id */
    clearTimeout: (id) => { pending = pending.filter((timer) => timer.id !== id); },
    /** @param {() => void} fn @param {number} ms */
    setInterval: (fn, ms) => { pending.push({ id: next, at: now + ms, fn, every: ms }); return next++; },
    /** @param {number} id */
    clearInterval: (id) => { pending = pending.filter((timer) => timer.id !== id); },
  };
  return {
    timers: /** @type {any} */ (timers),
    /** @param {number} ms */
    advance(ms) {
      now += ms;
      for (;;) {
        const due = pending.filter((timer) => timer.at <= now).sort((a, b) => a.at - b.at)[0];
        if (!due) return;
        if (due.every) due.at += due.every;
        else pending = pending.filter((timer) => timer !== due);
        due.fn();
      }
    },
    count: () => pending.length,
  };
}

/** @param {{ suggestions?: boolean, online?: boolean, token?: string | null }} [options] */
function stream(options = {}) {
  /** @type {FakeSocket[]} */
  const sockets = [];
  /** @type {ServerEvent[]} */
  const events = [];
  /** @type {string[]} */
  const statuses = [];
  let resyncs = 0;
  const clock = fakeTimers();
  const events$ = new EventStream({
    token: options.token === undefined ? 'one' : options.token,
    suggestions: options.suggestions !== false,
    url: (query) => `ws://host/api/connect${query}`,
    onEvent: (event) => events.push(event),
    onResync: () => { resyncs += 1; },
    onStatus: (status) => statuses.push(status),
    open: (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
    timers: clock.timers,
    random: () => 0,
    online: () => options.online !== false,
  });
  return { stream: events$, sockets, events, statuses, clock, resyncs: () => resyncs };
}

test('the stream authenticates by message, then resumes after a drop from the last seq it saw', () => {
  const { stream: events, sockets, events: seen, statuses, clock } = stream();
  events.connect();
  sockets[0].open();
  assert.deepEqual(sockets[0].auth(), { type: 'auth', token: 'one' }); // no since on the first connection
  assert.equal(sockets[0].url, 'ws://host/api/connect'); // the token stays out of the URL
  sockets[0].receive({ type: 'hello', last_seq: 7 });
  sockets[0].receive({ type: 'message.new', seq: 9, cid: 'c', message: { id: 'm9' } });
  sockets[0].receive({ type: 'message.new', seq: 12, cid: 'c', message: { id: 'm12' } });
  sockets[0].close();
  assert.deepEqual(statuses, ['online', 'reconnecting']);
  assert.equal(sockets.length, 1);
  clock.advance(999);
  assert.equal(sockets.length, 1);
  clock.advance(1);
  assert.equal(sockets.length, 2); // after a second
  sockets[1].open();
  assert.deepEqual(sockets[1].auth(), { type: 'auth', token: 'one', since: 12 });
  // The server replays from 12; a frame already seen is not handed on twice.
  sockets[1].receive({ type: 'hello', last_seq: 14 });
  sockets[1].receive({ type: 'message.new', seq: 12, cid: 'c', message: { id: 'm12' } });
  sockets[1].receive({ type: 'message.new', seq: 14, cid: 'c', message: { id: 'm14' } });
  assert.deepEqual(seen.map((event) => 'seq' in event ? event.seq : null), [9, 12, 14]);
  assert.deepEqual(statuses, ['online', 'reconnecting', 'online']);
});

test('failures back off, and a hello resets the count', () => {
  const { stream: events, sockets, clock, statuses } = stream({ online: false });
  events.connect();
  sockets[0].close();
  clock.advance(1000);
  sockets[1].close();
  clock.advance(1999);
  assert.equal(sockets.length, 2);
  clock.advance(1);
  assert.equal(sockets.length, 3);
  assert.equal(statuses[0], 'offline');
  sockets[2].open();
  sockets[2].receive({ type: 'hello', last_seq: 0 });
  sockets[2].close();
  clock.advance(1000);
  assert.equal(sockets.length, 4); // one second again
});

test('a resync moves the cursor to the server\'s newest and asks the page to load again', () => {
  const { stream: events, sockets, resyncs, clock } = stream();
  events.connect();
  sockets[0].open();
  sockets[0].receive({ type: 'hello', last_seq: 3 });
  sockets[0].close();
  clock.advance(1000);
  sockets[1].open();
  sockets[1].receive({ type: 'hello', last_seq: 900 });
  sockets[1].receive({ type: 'resync', last_seq: 900 });
  assert.equal(resyncs(), 1);
  assert.equal(events.lastSeq, 900);
  sockets[1].close();
  clock.advance(1000);
  sockets[2].open();
  assert.equal(sockets[2].auth().since, 900);
});

test('an expired token reconnects at once with the refreshed one; without one, the page signs out', () => {
  const { stream: events, sockets, statuses } = stream();
  events.connect();
  sockets[0].open();
  sockets[0].receive({ type: 'hello', last_seq: 5 });
  events.setToken('two');
  sockets[0].receive({ type: 'error', error: { status: 401, code: 'token_expired', message: 'expired' } });
  sockets[0].close();
  assert.equal(sockets.length, 2); // no wait
  sockets[1].open();
  assert.deepEqual(sockets[1].auth(), { type: 'auth', token: 'two', since: 5 });
  sockets[1].receive({ type: 'error', error: { status: 401, code: 'token_expired', message: 'expired' } });
  sockets[1].close();
  assert.equal(sockets.length, 2); // no token to renew with: the end
  assert.equal(statuses[statuses.length - 1], 'unauthorized');
});

test('on the session cookie, the stream sends no token and renews when the page refreshed the session', () => {
  const { stream: events, sockets, statuses } = stream({ token: null });
  events.connect();
  sockets[0].open();
  assert.deepEqual(sockets[0].auth(), { type: 'auth', token: null });
  sockets[0].receive({ type: 'hello', last_seq: 3 });
  events.setToken(null); // the cookie was refreshed
  sockets[0].receive({ type: 'error', error: { status: 401, code: 'token_expired', message: 'expired' } });
  sockets[0].close();
  assert.equal(sockets.length, 2); // at once
  sockets[1].open();
  assert.deepEqual(sockets[1].auth(), { type: 'auth', token: null, since: 3 });
  // A revoked session (signed out everywhere) is the end, refreshed or not.
  sockets[1].receive({ type: 'error', error: { status: 401, code: 'token_revoked', message: 'revoked' } });
  sockets[1].close();
  assert.equal(sockets.length, 2);
  assert.equal(statuses[statuses.length - 1], 'unauthorized');
});

test('a socket that says it is someone else ends the stream (another window signed in on this browser)', () => {
  /** @type {FakeSocket[]} */
  const sockets = [];
  /** @type {string[]} */
  const statuses = [];
  const events = new EventStream({
    token: null, user: 'alice', suggestions: true, url: () => 'ws://h', onEvent: () => {}, onResync: () => {},
    onStatus: (status) => statuses.push(status),
    open: (url) => { const socket = new FakeSocket(url); sockets.push(socket); return socket; },
    timers: fakeTimers().timers, random: () => 0, online: () => true,
  });
  events.connect();
  sockets[0].open();
  sockets[0].receive({ type: 'hello', user_id: 'bob', last_seq: 1 });
  assert.deepEqual(statuses, ['unauthorized']);
  assert.equal(sockets.length, 1); // no reconnection as bob
});

test('turning suggestions off reconnects at once with ?suggestions=off, resuming', () => {
  const { stream: events, sockets } = stream();
  events.connect();
  sockets[0].open();
  sockets[0].receive({ type: 'hello', last_seq: 8 });
  events.setSuggestions(false);
  assert.equal(sockets.length, 2);
  assert.equal(sockets[1].url, 'ws://host/api/connect?suggestions=off');
  sockets[1].open();
  assert.equal(sockets[1].auth().since, 8);
});

test('pings while connected, and nothing after close', () => {
  const { stream: events, sockets, clock } = stream();
  events.connect();
  sockets[0].open();
  sockets[0].receive({ type: 'hello', last_seq: 0 });
  clock.advance(PING_MS * 2);
  assert.deepEqual(sockets[0].sent.slice(1).map((data) => JSON.parse(data).type), ['ping', 'ping']);
  events.close();
  assert.equal(clock.count(), 0);
  assert.equal(sockets.length, 1);
});

test('garbage frames are ignored', () => {
  const { stream: events, sockets, events: seen } = stream();
  events.connect();
  sockets[0].open();
  sockets[0].emit('message', { data: 'not json' });
  sockets[0].emit('message', { data: '42' });
  assert.equal(seen.length, 0);
});

test('the default timers are called as plain functions (the browser refuses them as methods of another object)', () => {
  const saved = { setTimeout: globalThis.setTimeout, setInterval: globalThis.setInterval };
  /** @type {string[]} */
  const calls = [];
  /** @param {string} name */
  const strict = (name) => /** @type {any} */ (/** @this {unknown} */ function () {
    // `this` is the object the function was called on: a page's own timers allow only the window.
    if (this !== undefined && this !== globalThis) throw new TypeError('Illegal invocation');
    calls.push(name);
    return 1;
  });
  globalThis.setTimeout = strict('setTimeout');
  globalThis.setInterval = strict('setInterval');
  try {
    /** @type {FakeSocket[]} */
    const sockets = [];
    const events = new EventStream({
      token: 't', suggestions: true, url: () => 'ws://h', onEvent: () => {}, onResync: () => {}, onStatus: () => {},
      open: (url) => { const socket = new FakeSocket(url); sockets.push(socket); return socket; },
    });
    events.connect();
    sockets[0].open();
    sockets[0].receive({ type: 'hello', last_seq: 0 }); // starts the ping interval
    sockets[0].close(); // schedules the reconnection
    assert.deepEqual(calls, ['setInterval', 'setTimeout']);
  } finally {
    globalThis.setTimeout = saved.setTimeout;
    globalThis.setInterval = saved.setInterval;
  }
});
