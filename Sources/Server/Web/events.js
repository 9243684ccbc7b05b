// The /api/connect WebSocket: authenticates with the first message (so the token stays out
// of URLs), resumes from the last sequence number after a drop, and reconnects with backoff.
// The server closes the socket when its token expires; when the app has refreshed the token
// meanwhile (setToken), the stream reconnects with the new one at once and resumes.

export class EventStream {
  constructor({ token, suggestions, onEvent, onStatus }) {
    this.token = token;
    this.suggestions = suggestions;
    this.onEvent = onEvent;
    this.onStatus = onStatus;
    this.lastSeq = null;
    this.failures = 0;
    this.closed = false;
    this.socket = null;
    this.pingTimer = null;
    this.retryTimer = null;
    this.socketToken = null;
    this.renewing = false;
  }

  /// A refreshed token for the next connection (the open socket keeps its own until it expires).
  setToken(token) {
    this.token = token;
  }

  connect() {
    if (this.closed) return;
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const query = this.suggestions ? '' : '?suggestions=off';
    const socket = new WebSocket(`${scheme}://${location.host}/api/connect${query}`);
    this.socket = socket;
    this.socketToken = this.token;
    this.renewing = false;
    socket.addEventListener('open', () => {
      const auth = { type: 'auth', token: this.socketToken };
      if (this.lastSeq !== null) auth.since = this.lastSeq;
      socket.send(JSON.stringify(auth));
    });
    socket.addEventListener('message', (message) => {
      let event;
      try {
        event = JSON.parse(message.data);
      } catch {
        return;
      }
      if (event.type === 'hello') {
        this.failures = 0;
        this.onStatus('online');
        if (this.lastSeq === null) this.lastSeq = event.last_seq;
        this.startPing();
      }
      if (event.type === 'resync') this.lastSeq = event.last_seq;
      if (typeof event.seq === 'number') {
        if (this.lastSeq !== null && event.seq <= this.lastSeq) return; // already seen
        this.lastSeq = event.seq;
      }
      if (event.type === 'error' && event.error && event.error.status === 401) {
        if (event.error.code === 'token_expired' && this.token !== this.socketToken) {
          this.renewing = true; // the close that follows reconnects with the refreshed token
          return;
        }
        this.closed = true;
        this.onStatus('unauthorized');
      }
      this.onEvent(event);
    });
    socket.addEventListener('close', () => {
      this.stopPing();
      if (this.closed) return;
      if (this.renewing) {
        this.connect();
        return;
      }
      this.onStatus(navigator.onLine === false ? 'offline' : 'reconnecting');
      this.failures += 1;
      const delay = Math.min(30000, 1000 * 2 ** Math.min(this.failures - 1, 5)) + Math.random() * 1000;
      this.retryTimer = setTimeout(() => this.connect(), delay);
    });
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  startPing() {
    this.stopPing();
    this.pingTimer = setInterval(() => this.send({ type: 'ping' }), 25000);
  }

  stopPing() {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  close() {
    this.closed = true;
    this.stopPing();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.socket) this.socket.close();
  }
}
