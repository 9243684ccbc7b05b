// The /api/connect event stream: authenticates with the first message (a token, so it stays out
// of URLs, or null: the page's session cookie, which the browser sends with the upgrade), resumes from the last sequence number after a drop (`since`), drops what it has
// already seen, asks the page to load again when the server says the missed events are gone
// (`resync`), and reconnects with backoff. A user's seqs rise with gaps (events of channels
// they are not in): a gap is normal, not a loss. The server closes the socket when its token
// expires; when the page has refreshed the token or session meanwhile (setToken), the stream
// reconnects with the new one at once and resumes. It knows nothing of the store: the app turns what it
// hands over into actions.

/**
 * @typedef {import('./types.js').Frame} Frame
 * @typedef {import('./types.js').ServerEvent} ServerEvent
 * @typedef {'online' | 'reconnecting' | 'offline' | 'unauthorized'} StreamStatus
 *
 * @typedef {object} SocketLike the part of WebSocket the stream uses
 * @property {number} readyState
 * @property {(data: string) => void} send
 * @property {() => void} close
 * @property {(type: string, listener: (event: any) => void) => void} addEventListener
 *
 * @typedef {object} StreamOptions
 * @property {string | null} token null: the session cookie
 * @property {string} [user] whom the page is signed in as: a socket that says otherwise (the
 *   cookie was replaced by another window's sign-in) ends the stream
 * @property {boolean} suggestions whether the server drafts reply suggestions for this page
 * @property {(query: string) => string} url the socket's URL for a query string
 * @property {(event: ServerEvent) => void} onEvent each event once, in order
 * @property {() => void} onResync missed events are gone: load again
 * @property {(status: StreamStatus) => void} onStatus
 * @property {(url: string) => SocketLike} [open] makes a socket (WebSocket in the page)
 * @property {{ setTimeout: typeof setTimeout, clearTimeout: typeof clearTimeout, setInterval: typeof setInterval, clearInterval: typeof clearInterval }} [timers]
 * @property {() => number} [random]
 * @property {() => boolean} [online] navigator.onLine
 */

const OPEN = 1;
/** A ping keeps idle proxies from closing the socket. */
export const PING_MS = 25000;

/**
 * Where a frame leaves the stream: the last seq seen after it, and whether it is handed on.
 * Control frames set the cursor: `hello` (first connection: start from the server's newest),
 * `resync` (start again from there).
 *
 * @param {number | null} lastSeq
 * @param {Frame} frame
 * @returns {{ lastSeq: number | null, deliver: boolean }}
 */
export function readFrame(lastSeq, frame) {
  if (frame.type === 'hello') return { lastSeq: lastSeq === null ? frame.last_seq : lastSeq, deliver: false };
  if (frame.type === 'resync') return { lastSeq: frame.last_seq, deliver: false };
  if (frame.type === 'pong' || frame.type === 'error') return { lastSeq, deliver: false };
  if ('seq' in frame && typeof frame.seq === 'number') {
    if (lastSeq !== null && frame.seq <= lastSeq) return { lastSeq, deliver: false }; // already seen
    return { lastSeq: frame.seq, deliver: true };
  }
  return { lastSeq, deliver: true }; // live frames: no seq, never replayed
}

/**
 * The wait before reconnecting after `failures` failed attempts: 1 s doubling up to 30 s, plus
 * up to a second at random so that a crowd of pages does not come back at once.
 *
 * @param {number} failures
 * @param {number} random in [0, 1)
 */
export function backoff(failures, random) {
  return Math.min(30000, 1000 * 2 ** Math.min(failures - 1, 5)) + random * 1000;
}

export class EventStream {
  /** @param {StreamOptions} options */
  constructor(options) {
    this.options = options;
    this.token = options.token;
    this.suggestions = options.suggestions;
    /** @type {number | null} */
    this.lastSeq = null;
    this.failures = 0;
    this.closed = false;
    /** @type {SocketLike | null} */
    this.socket = null;
    /** @type {ReturnType<typeof setInterval> | null} */
    this.pingTimer = null;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.retryTimer = null;
    /** Counts the tokens or sessions the page has had: a socket of an older one may be renewed. */
    this.generation = 0;
    this.socketGeneration = 0;
    this.renewing = false;
    // Wrapped: the browser's timer functions refuse to be called as methods of another object.
    this.timers = options.timers || {
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (id) => clearTimeout(id),
      setInterval: (fn, ms) => setInterval(fn, ms),
      clearInterval: (id) => clearInterval(id),
    };
    this.open = options.open || ((url) => new WebSocket(url));
  }

  /**
   * A refreshed token (or, with null, a refreshed session cookie) for the next connection; the
   * open socket keeps its own until it expires.
   *
   * @param {string | null} token
   */
  setToken(token) {
    this.token = token;
    this.generation += 1;
  }

  /**
   * Turns the server's reply suggestions for this page on or off: reconnects at once, resuming
   * from the last seq, so the server knows.
   *
   * @param {boolean} suggestions
   */
  setSuggestions(suggestions) {
    if (this.suggestions === suggestions) return;
    this.suggestions = suggestions;
    if (this.socket) {
      this.renewing = true;
      this.socket.close();
    }
  }

  connect() {
    if (this.closed) return;
    const socket = this.open(this.options.url(this.suggestions ? '' : '?suggestions=off'));
    this.socket = socket;
    const token = this.token;
    this.socketGeneration = this.generation;
    this.renewing = false;
    socket.addEventListener('open', () => {
      /** @type {{ type: 'auth', token: string | null, since?: number }} */
      const auth = { type: 'auth', token };
      if (this.lastSeq !== null) auth.since = this.lastSeq;
      socket.send(JSON.stringify(auth));
    });
    socket.addEventListener('message', (message) => this.receive(message.data));
    socket.addEventListener('close', () => this.dropped(socket));
  }

  /** @param {string} data */
  receive(data) {
    /** @type {Frame} */
    let frame;
    try {
      frame = JSON.parse(data);
    } catch {
      return;
    }
    if (!frame || typeof frame.type !== 'string') return;
    const read = readFrame(this.lastSeq, frame);
    this.lastSeq = read.lastSeq;
    if (frame.type === 'hello') {
      if (this.options.user && frame.user_id !== this.options.user) {
        this.closed = true;
        if (this.socket) this.socket.close();
        this.options.onStatus('unauthorized');
        return;
      }
      this.failures = 0;
      this.options.onStatus('online');
      this.startPing();
    } else if (frame.type === 'resync') {
      this.options.onResync();
    } else if (frame.type === 'error' && frame.error && frame.error.status === 401) {
      if (frame.error.code === 'token_expired' && this.generation !== this.socketGeneration) {
        this.renewing = true; // the close that follows reconnects with the refreshed token
        return;
      }
      this.closed = true;
      this.options.onStatus('unauthorized');
    }
    if (read.deliver) this.options.onEvent(/** @type {ServerEvent} */ (frame));
  }

  /** @param {SocketLike} socket */
  dropped(socket) {
    if (socket !== this.socket) return;
    this.stopPing();
    if (this.closed) return;
    if (this.renewing) {
      this.connect();
      return;
    }
    const online = this.options.online ? this.options.online() : true;
    this.options.onStatus(online === false ? 'offline' : 'reconnecting');
    this.failures += 1;
    const delay = backoff(this.failures, (this.options.random || Math.random)());
    this.retryTimer = this.timers.setTimeout(() => this.connect(), delay);
  }

  /** @param {object} message */
  send(message) {
    if (this.socket && this.socket.readyState === OPEN) this.socket.send(JSON.stringify(message));
  }

  startPing() {
    this.stopPing();
    this.pingTimer = this.timers.setInterval(() => this.send({ type: 'ping' }), PING_MS);
  }

  stopPing() {
    if (this.pingTimer) this.timers.clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  close() {
    this.closed = true;
    this.stopPing();
    if (this.retryTimer) this.timers.clearTimeout(this.retryTimer);
    if (this.socket) this.socket.close();
  }
}
