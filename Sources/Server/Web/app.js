// Sotto web chat. Everything from users or the model is inserted with textContent, never as HTML.

import { createApi, ApiError } from './api.js';
import { EventStream } from './events.js';
import { SuggestionsRow } from './suggestions.js';
import { Jobs } from './jobs.js';
import { WritingTools } from './tools.js';
import { ModelDownloadView } from './download.js';
import { Search } from './search.js';
import { ThreadSummary } from './summary.js';
import { MessageActions } from './actions.js';
import { Assistant } from './assistant.js';

const TOKEN_KEY = 'sotto.token';
const SUGGESTIONS_KEY = 'sotto.suggestions';
const $ = (id) => document.getElementById(id);

const state = {
  api: null,
  me: null,
  stream: null,
  channels: [],
  current: null,
  messages: new Map(), // id → { message, status }
  order: [], // ids, oldest first
  hasMore: false,
  typing: new Map(), // user id → timer
  lastTypingSent: 0,
  typingStopTimer: null,
  composing: false,
};

const suggestions = new SuggestionsRow({
  composer: $('composer'),
  textarea: $('message-input'),
  load: (cid, tone) => state.api.suggestions(cid, tone),
});

// Its timings (time to the first visible chip) are read by the browser tests.
window.sottoSuggestions = suggestions;

// The model features: each runs as a job on the server, streamed back over the socket.
const jobs = new Jobs(() => state.api);
const writingTools = new WritingTools({
  composer: $('composer'),
  textarea: $('message-input'),
  after: $('composer'),
  start: (tool, text, attempt) => state.api.writingTool(tool, text, attempt),
  jobs,
});
const search = new Search({
  form: $('search-form'),
  input: $('search-input'),
  suggestButton: $('suggest-searches'),
  note: $('search-note'),
  suggested: $('suggested-searches'),
  results: $('search-results'),
  api: () => state.api,
  jobs,
  open: (message) => openMessage(message),
});
const threadSummary = new ThreadSummary({
  button: $('summarize-thread'),
  panel: $('thread-summary'),
  api: () => state.api,
  jobs,
});
const messageActions = new MessageActions({
  api: () => state.api,
  jobs,
  language: () => currentLanguage(),
  timeZone: () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
});

// A server whose default model is not downloaded may offer to fetch it.
const modelDownload = new ModelDownloadView(() => state.api);
$('model-status').after(modelDownload.node);

const assistant = new Assistant({
  root: $('assistant'),
  navButton: $('assistant-nav'),
  channelView: $('channel-view'),
  api: () => state.api,
  jobs,
  language: () => currentLanguage(),
});

// ---- Sign in / out -------------------------------------------------------------------------

async function signIn(token, { quiet = false } = {}) {
  const api = createApi(token);
  let me;
  try {
    me = await api.me();
  } catch (error) {
    sessionStorage.removeItem(TOKEN_KEY);
    showSignIn(quiet ? '' : signInMessage(error));
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  state.api = api;
  state.me = me.user;
  $('me-name').textContent = me.user.name;
  $('signin').hidden = true;
  $('chat').hidden = false;
  $('suggestions-toggle-label').hidden = !me.suggestions;
  applyModel(me.model);
  loadPreferences();
  $('suggestions-toggle').checked = localStorage.getItem(SUGGESTIONS_KEY) !== 'off';
  suggestions.enabled = me.suggestions && $('suggestions-toggle').checked;
  state.stream = new EventStream({
    token,
    suggestions: suggestions.enabled,
    onEvent: handleEvent,
    onStatus: showConnection,
  });
  state.stream.connect();
  scheduleRefresh(token);
  await loadChannels();
  if (Assistant.wasOpen()) await assistant.show();
}

// ---- The model and preferences -------------------------------------------------------------

/// Turns the model features on, or off with the reason the server gives (no model downloaded,
/// machine too small, turned off) and what to do about it.
function applyModel(model) {
  state.model = model;
  const reason = model.available ? '' : model.message;
  $('model-status').textContent = reason
    ? `The local model is unavailable. ${reason}`
    : model.fallback
      ? `The local model is unavailable, so the AI features use the fallback ${model.name}: what they read is sent there. ${model.message}`
      : '';
  if (model.reason === 'not_downloaded') modelDownload.offer();
  else modelDownload.node.hidden = true;
  writingTools.configure(model.tools, reason);
  search.setUnavailable(reason);
  threadSummary.setUnavailable(reason);
  messageActions.unavailable = reason;
  const select = $('translation-language');
  select.replaceChildren(...model.languages.map((language) => {
    const option = document.createElement('option');
    option.value = language.code;
    option.textContent = language.name;
    return option;
  }));
  select.disabled = Boolean(reason);
}

async function loadPreferences() {
  try {
    const preferences = await state.api.preferences();
    if (preferences.translation_language) $('translation-language').value = preferences.translation_language;
  } catch {
    // English stays selected.
  }
}

function currentLanguage() {
  const select = $('translation-language');
  const option = select.selectedOptions[0];
  return option ? { code: option.value, name: option.textContent } : { code: 'en', name: 'English' };
}

// ---- Token refresh -------------------------------------------------------------------------

/// Seconds since 1970 at which a JWT expires, or null (never, or not readable).
function expiryOf(token) {
  try {
    const part = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const claims = JSON.parse(atob(part + '='.repeat((4 - (part.length % 4)) % 4)));
    return typeof claims.exp === 'number' ? claims.exp : null;
  } catch {
    return null;
  }
}

let refreshTimer = null;
/// Asks for a fresh token when four fifths of this one's life are gone, so requests and the
/// next socket never carry an expired one (the server closes a socket whose token expires).
function scheduleRefresh(token) {
  clearTimeout(refreshTimer);
  const exp = expiryOf(token);
  if (exp === null) return;
  const left = exp * 1000 - Date.now();
  refreshTimer = setTimeout(refreshToken, Math.max(1000, left * 0.8));
}

async function refreshToken() {
  if (!state.api) return;
  let result;
  try {
    result = await state.api.refreshToken();
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return; // sign in again later
    refreshTimer = setTimeout(refreshToken, 5000);
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, result.token);
  state.api = createApi(result.token);
  if (state.stream) state.stream.setToken(result.token);
  scheduleRefresh(result.token);
}

function signInMessage(error) {
  if (error instanceof ApiError && error.status === 401) return `That token was not accepted: ${error.message}`;
  return error.message || 'Sign-in failed.';
}

function signOut(message = '') {
  clearTimeout(refreshTimer);
  if (state.stream) state.stream.close();
  sessionStorage.removeItem(TOKEN_KEY);
  Object.assign(state, { api: null, me: null, stream: null, channels: [], current: null });
  resetMessages();
  suggestions.cid = null;
  suggestions.remove();
  $('channel-list').replaceChildren();
  showSignIn(message);
}

function showSignIn(message) {
  $('chat').hidden = true;
  $('signin').hidden = false;
  $('signin-error').textContent = message;
  $('token-input').value = '';
  $('token-input').focus();
}

function handleFailure(error) {
  if (error instanceof ApiError && error.status === 401) signOut('Your session ended. Sign in again.');
  else showConnection(error.message);
}

// ---- Channels ------------------------------------------------------------------------------

let channelReload = null;
function reloadChannelsSoon() {
  if (channelReload) return;
  channelReload = setTimeout(() => {
    channelReload = null;
    loadChannels();
  }, 150);
}

async function loadChannels() {
  if (!state.api) return;
  try {
    state.channels = (await state.api.channels()).channels;
  } catch (error) {
    handleFailure(error);
    return;
  }
  renderChannels();
}

function renderChannels() {
  const items = state.channels.map((summary) => {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.cid = summary.channel.cid;
    if (summary.channel.cid === state.current) button.setAttribute('aria-current', 'true');
    const name = document.createElement('span');
    name.className = 'channel-name';
    name.textContent = summary.channel.name;
    button.append(name);
    if (summary.unread_count > 0 && summary.channel.cid !== state.current) {
      const badge = document.createElement('span');
      badge.className = 'unread';
      badge.textContent = String(summary.unread_count);
      badge.setAttribute('aria-label', `${summary.unread_count} unread`);
      button.append(badge);
    }
    button.addEventListener('click', () => openChannel(summary.channel.cid));
    item.append(button);
    return item;
  });
  $('channel-list').replaceChildren(...items);
}

function currentSummary() {
  return state.channels.find((summary) => summary.channel.cid === state.current);
}

function nameOf(userId) {
  const summary = currentSummary();
  const member = summary && summary.members.find((user) => user.id === userId);
  return member ? member.name : userId;
}

// ---- Messages ------------------------------------------------------------------------------

function resetMessages() {
  state.messages = new Map();
  state.order = [];
  state.hasMore = false;
  $('message-list').replaceChildren();
  $('load-older').hidden = true;
  $('typing-indicator').textContent = '';
}

async function openChannel(cid) {
  assistant.hide();
  state.current = cid;
  resetMessages();
  writingTools.reset();
  const summary = currentSummary();
  $('channel-title').textContent = summary ? summary.channel.name : cid;
  $('composer').hidden = false;
  $('summarize-thread').hidden = false;
  renderChannels();
  const opening = suggestions.open(cid);
  // What was unread before opening marks it read: the part "Summarize thread" offers.
  const unreadCount = summary ? summary.unread_count : 0;
  const reading = unreadCount > 0 ? state.api.channel(cid).catch(() => null) : Promise.resolve(null);
  try {
    const [page, detail] = await Promise.all([state.api.messages(cid), reading]);
    if (state.current !== cid) return;
    const mine = detail && detail.members.find((member) => member.user.id === state.me.id);
    threadSummary.open(cid, unreadCount > 0 ? { after: mine && mine.read.last_read_message_id, count: unreadCount } : null);
    state.hasMore = page.has_more;
    for (const message of page.messages) addMessage(message, 'sent', { scroll: false });
    $('load-older').hidden = !state.hasMore;
    scrollToBottom();
    markRead();
  } catch (error) {
    handleFailure(error);
  }
  $('message-input').focus();
  await opening;
}

async function loadOlder() {
  const cid = state.current;
  const first = state.order[0];
  if (!cid || !first) return;
  const scroller = $('message-scroller');
  const fromBottom = scroller.scrollHeight - scroller.scrollTop;
  try {
    const page = await state.api.messages(cid, first);
    if (state.current !== cid) return;
    state.hasMore = page.has_more;
    for (const message of page.messages.slice().reverse()) prependMessage(message);
    $('load-older').hidden = !state.hasMore;
    scroller.scrollTop = scroller.scrollHeight - fromBottom;
  } catch (error) {
    handleFailure(error);
  }
}

/// Opens a search result's channel and scrolls to the message, loading older pages if needed.
async function openMessage(message) {
  if (state.current !== message.cid) await openChannel(message.cid);
  for (let page = 0; page < 20 && !state.messages.has(message.id) && state.hasMore; page += 1) await loadOlder();
  const entry = state.messages.get(message.id);
  if (!entry) return;
  entry.element.scrollIntoView({ block: 'center' });
  entry.element.classList.add('found');
  setTimeout(() => entry.element.classList.remove('found'), 3000);
}

function renderMessage(message, status) {
  const item = document.createElement('li');
  item.className = 'message';
  item.dataset.id = message.id;
  if (state.me && message.user_id === state.me.id) item.classList.add('mine');
  if (status === 'failed') item.classList.add('failed');
  const author = document.createElement('span');
  author.className = 'author';
  author.textContent = nameOf(message.user_id);
  const text = document.createElement('div');
  text.className = 'text';
  text.textContent = message.text;
  const meta = document.createElement('span');
  meta.className = 'meta';
  if (status === 'sending') meta.textContent = 'Sending…';
  else if (status === 'failed') {
    meta.textContent = 'Not sent. ';
    const retry = document.createElement('button');
    retry.type = 'button';
    retry.className = 'link';
    retry.textContent = 'Retry';
    retry.addEventListener('click', () => deliver(message));
    meta.append(retry);
  } else {
    meta.textContent = new Date(message.created_at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  }
  item.append(author, text, meta);
  if (status === 'sent') messageActions.attach(item, message);
  return item;
}

function nearBottom() {
  const scroller = $('message-scroller');
  return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 100;
}

function scrollToBottom() {
  const scroller = $('message-scroller');
  scroller.scrollTop = scroller.scrollHeight;
}

/// Adds or updates a message at the end; follows the bottom only if the reader was there.
function addMessage(message, status, { scroll = true } = {}) {
  const follow = scroll && (nearBottom() || (state.me && message.user_id === state.me.id));
  const existing = state.messages.get(message.id);
  const element = renderMessage(message, status);
  if (existing) {
    existing.element.replaceWith(element);
  } else {
    state.order.push(message.id);
    $('message-list').append(element);
  }
  state.messages.set(message.id, { message, status, element });
  if (follow) scrollToBottom();
}

function prependMessage(message) {
  if (state.messages.has(message.id)) return;
  const element = renderMessage(message, 'sent');
  state.order.unshift(message.id);
  state.messages.set(message.id, { message, status: 'sent', element });
  $('message-list').prepend(element);
}

let readTimer = null;
function markRead() {
  if (!state.current || document.visibilityState !== 'visible') return;
  clearTimeout(readTimer);
  const cid = state.current;
  readTimer = setTimeout(async () => {
    try {
      await state.api.markRead(cid);
      reloadChannelsSoon();
    } catch (error) {
      handleFailure(error);
    }
  }, 200);
}

function newMessageId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

async function send(text) {
  const cid = state.current;
  if (!cid || !text.trim()) return;
  const message = { id: newMessageId(), cid, user_id: state.me.id, text, created_at: new Date().toISOString() };
  addMessage(message, 'sending');
  suggestions.clear(cid);
  stopTyping();
  await deliver(message);
}

/// Posts a message; a retry reuses its id, so the server stores it at most once.
async function deliver(message) {
  addMessage(message, 'sending');
  try {
    const result = await state.api.send(message.cid, message.id, message.text);
    if (state.current === message.cid) addMessage(result.message, 'sent');
  } catch (error) {
    if (state.current === message.cid) addMessage(message, 'failed');
    if (error instanceof ApiError && error.status === 401) handleFailure(error);
  }
}

// ---- Typing --------------------------------------------------------------------------------

function noteTyping() {
  if (!state.current || !state.stream) return;
  const now = Date.now();
  if (now - state.lastTypingSent > 3000) {
    state.lastTypingSent = now;
    state.stream.send({ type: 'typing.start', cid: state.current });
  }
  clearTimeout(state.typingStopTimer);
  state.typingStopTimer = setTimeout(stopTyping, 4000);
}

function stopTyping() {
  clearTimeout(state.typingStopTimer);
  if (state.lastTypingSent && state.stream && state.current) {
    state.stream.send({ type: 'typing.stop', cid: state.current });
  }
  state.lastTypingSent = 0;
}

function showTyping(userId, typing) {
  clearTimeout(state.typing.get(userId));
  state.typing.delete(userId);
  if (typing) state.typing.set(userId, setTimeout(() => showTyping(userId, false), 6000));
  const names = [...state.typing.keys()].map(nameOf);
  $('typing-indicator').textContent =
    names.length === 0 ? '' : names.length === 1 ? `${names[0]} is typing…` : `${names.join(', ')} are typing…`;
}

// ---- Events --------------------------------------------------------------------------------

function handleEvent(event) {
  switch (event.type) {
    case 'message.new': {
      const message = event.message;
      const mine = state.me && message.user_id === state.me.id;
      if (message.cid === state.current) {
        addMessage(message, 'sent');
        if (!mine) {
          showTyping(message.user_id, false);
          suggestions.expect(message.cid);
          markRead();
        } else {
          suggestions.clear(message.cid);
        }
      }
      reloadChannelsSoon();
      break;
    }
    case 'message.read':
      if (state.me && event.user_id === state.me.id) reloadChannelsSoon();
      break;
    case 'typing.start':
    case 'typing.stop':
      if (event.cid === state.current && event.user_id !== state.me.id) showTyping(event.user_id, event.type === 'typing.start');
      break;
    case 'suggestions.updated':
      suggestions.apply(event);
      break;
    case 'suggestions.partial':
      suggestions.partial(event);
      break;
    case 'assistant.updated':
    case 'assistant.conversation':
    case 'assistant.replies':
      assistant.handle(event);
      break;
    case 'job.updated':
      jobs.handleFrame(event.job);
      break;
    case 'resync':
      loadChannels();
      if (state.current) openChannel(state.current);
      break;
    case 'error':
      if (event.error && event.error.status === 401) signOut('Your session ended. Sign in again.');
      break;
    default:
      break;
  }
}

function showConnection(status) {
  const text = { online: '', reconnecting: 'Reconnecting…', offline: 'Offline' }[status];
  $('connection-status').textContent = text === undefined ? status : text;
  if (status === 'unauthorized') signOut('Your session ended. Sign in again.');
}

// ---- Wiring --------------------------------------------------------------------------------

$('signin-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const token = $('token-input').value.trim();
  if (token) signIn(token);
});

$('signout').addEventListener('click', () => signOut());
$('load-older').addEventListener('click', loadOlder);

$('translation-language').addEventListener('change', async (event) => {
  try {
    await state.api.setPreferences({ translation_language: event.target.value });
  } catch (error) {
    handleFailure(error);
  }
});

$('suggestions-toggle').addEventListener('change', (event) => {
  localStorage.setItem(SUGGESTIONS_KEY, event.target.checked ? 'on' : 'off');
  suggestions.setEnabled(event.target.checked);
  if (state.stream) {
    // Reconnect (resuming from the last seq) so the server knows whether to draft for us.
    state.stream.suggestions = event.target.checked;
    if (state.stream.socket) state.stream.socket.close();
  }
});

$('composer').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = $('message-input');
  const text = input.value;
  if (!text.trim()) return;
  input.value = '';
  send(text);
});

const input = $('message-input');
input.addEventListener('compositionstart', () => { state.composing = true; });
input.addEventListener('compositionend', () => { setTimeout(() => { state.composing = false; }, 0); });
input.addEventListener('keydown', (event) => {
  if (event.key !== 'Enter' || event.shiftKey) return;
  // Enter that confirms an input-method composition (CJK) must not send.
  if (event.isComposing || event.keyCode === 229 || state.composing) return;
  event.preventDefault();
  $('composer').requestSubmit();
});
input.addEventListener('input', noteTyping);

// Keep the newest message in view when the suggestions row or the window changes the
// message area's size, as long as the reader was at the bottom.
let stickToBottom = true;
$('message-scroller').addEventListener('scroll', () => { stickToBottom = nearBottom(); });
new ResizeObserver(() => { if (stickToBottom) scrollToBottom(); }).observe($('message-scroller'));

document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') markRead();
});

const saved = sessionStorage.getItem(TOKEN_KEY);
if (saved) signIn(saved, { quiet: true });
else showSignIn('');
