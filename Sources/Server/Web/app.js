// Sotto web chat: the composition root. It makes the store, the effects (requests, timers, the
// event stream) and the views, and wires the views' handlers to the effects. Everything from
// users or the model is inserted with textContent, never as HTML (the assistant's answers are
// the server's sanitized HTML).

import { createStore } from './store.js';
import { initialState, reducer, select } from './state.js';
import { createContext } from './context.js';
import { ASSISTANT_COMPOSER, draftOf } from './composer.js';
import { unavailability } from './session.js';
import { ImageCache } from './images.js';
import { SUGGESTIONS_KEY, TONE_KEY, VIEW_KEY, joinSecret, sessionEffects } from './session-effects.js';
import { chatEffects } from './chat-effects.js';
import { threadEffects } from './thread-effects.js';
import { threadComposerKey } from './threads.js';
import { attachmentEffects } from './attachment-effects.js';
import { featureEffects } from './feature-effects.js';
import { assistantEffects } from './assistant-effects.js';
import { AUTO_SEND_KEY, voiceEffects } from './voice-effects.js';
import { playgroundEffects } from './playground-effects.js';
import { byId } from './dom.js';
import { mountSignIn } from './signin-view.js';
import { mountAccount } from './account-view.js';
import { mountMentionChoices } from './mention-view.js';
import { mountDirectory } from './directory-view.js';
import { mountSidebar } from './sidebar-view.js';
import { mountSearch } from './search-view.js';
import { mountChannelView } from './channel-view.js';
import { mountChannelSettings } from './channel-settings-view.js';
import { mountSuggestions } from './suggestions-view.js';
import { mountComposer } from './composer-view.js';
import { mountAttachments } from './attachment-view.js';
import { mountTools } from './tools-view.js';
import { mountSummary } from './summary-view.js';
import { mountThreadView } from './thread-view.js';
import { mountDownload } from './download-view.js';
import { mountAssistantSide } from './assistant-side-view.js';
import { mountAssistantMessages } from './assistant-messages-view.js';
import { mountAssistantView } from './assistant-view.js';
import { mountVoice } from './voice-view.js';
import { mountPlayground } from './playground-view.js';

/** @typedef {import('./state.js').State} State */

const link = joinSecret(location.hash);
const store = createStore(reducer, initialState({
  starting: true, // the session cookie, or the link, is tried first
  tone: localStorage.getItem(TONE_KEY) === 'formal' ? 'formal' : 'casual',
  view: localStorage.getItem(VIEW_KEY) === 'assistant' ? 'assistant' : 'channels',
  suggestionsWanted: localStorage.getItem(SUGGESTIONS_KEY) !== 'off',
  autoSend: localStorage.getItem(AUTO_SEND_KEY) === 'on',
}));
const ctx = createContext(store, { local: localStorage });

const features = featureEffects(ctx);
const images = new ImageCache((conversation, id) => ctx.api().assistantImage(conversation, id));
/** @type {ReturnType<typeof assistantEffects>} */
let assistant;
const chat = chatEffects(ctx, {
  beforeOpen: () => {
    session.setView('channels');
    features.dismissTool('channel'); // the draft goes back as written
    features.closeSummary();
    features.closeThreadSummary();
  },
});
const thread = threadEffects(ctx, { deliver: chat.deliver, reloadChannelsSoon: chat.reloadChannelsSoon, beforeClose: features.closeThreadSummary });
// A composer's files go to its channel: the channel's own, or the open thread's.
const files = attachmentEffects(ctx, {
  cidOf: (key) => {
    const { channels, threads } = store.getState();
    if (threads.open && key === threadComposerKey(threads.open.id)) return threads.open.cid;
    return key === channels.current ? key : null;
  },
});
const fileHandlers = { attach: files.attach, remove: files.remove, preview: files.preview };
const session = sessionEffects(ctx, {
  loadChannels: chat.loadChannels,
  // The open thread's chips follow the channel's (a new tone, suggestions turned back on).
  loadSuggestions: async (cid) => { await Promise.all([chat.loadSuggestions(cid), thread.loadSuggestions()]); },
  offerDownload: features.offerDownload,
  showAssistant: () => assistant.show(),
});
assistant = assistantEffects(ctx, {
  images,
  setView: session.setView,
  dismissTool: () => features.dismissTool('assistant'),
  offerDownload: features.offerDownload,
});

// Dictation: "Send when I stop talking" sends through the composer's own send, and only to the
// conversation it was dictated into.
const voice = voiceEffects(ctx, {
  send: (key) => {
    const state = store.getState();
    if (key === ASSISTANT_COMPOSER) {
      if (state.session.view !== 'assistant' || !state.assistant.current) return 'Not sent: the assistant is not open.';
      if (state.assistant.turn) return 'Not sent: the assistant is still answering.';
      if (state.tools.assistant) return 'Not sent: a writing tool’s preview is open.';
      assistant.send();
      return '';
    }
    if (state.session.view !== 'channels' || state.channels.current !== key) return 'Not sent: the channel is no longer open.';
    if (state.tools.channel) return 'Not sent: a writing tool’s preview is open.';
    chat.send(draftOf(state.composer, key));
    return '';
  },
});
const voiceHandlers = { start: voice.start, stop: voice.stop, cancel: voice.cancel, setAutoSend: voice.setAutoSend };

// Its timings (time to the first visible chip) are read by the browser tests.
Object.defineProperty(window, 'sottoSuggestions', { value: { get timings() { return store.getState().suggestions.timings; } } });

// ---- The channels --------------------------------------------------------------------------

mountSignIn(store, { signIn: session.signIn, join: session.join });
mountAccount(store, { changePassword: session.changePassword, signOutEverywhere: session.signOutEverywhere, invite: session.invite });
mountDirectory(store, {
  createChannel: chat.createChannel,
  openDirect: chat.openDirect,
  loadDirectory: chat.loadDirectory,
  joinChannel: chat.joinChannel,
});
mountSidebar(store, {
  signOut: () => session.signOut(),
  openChannel: chat.openChannel,
  showAssistant: () => assistant.show(),
  setSuggestionsWanted: session.setSuggestionsWanted,
  setLanguage: session.setLanguage,
});
byId('model-status').after(mountDownload(store, { start: features.startDownload },
  (state) => Boolean(state.session.model && state.session.model.reason === 'not_downloaded')));
mountSearch(store, {
  run: features.runSearch,
  suggest: features.suggestSearches,
  // A reply found opens its thread (it is not in the channel's list).
  open: async (message) => {
    if (!message.parent_id) return chat.openMessage(message);
    if (store.getState().channels.current !== message.cid) await chat.openChannel(message.cid);
    await thread.openThread(message.parent_id);
  },
});
/** @type {import('./message-view.js').MessageHandlers} */
const messageHandlers = {
  retry: (entry) => chat.deliver(entry.message),
  translate: (id) => features.translate(id),
  addToCalendar: features.addToCalendar,
  startEdit: (id) => store.dispatch({ type: 'message/editing', id }),
  saveEdit: chat.editMessage,
  askDelete: (id) => store.dispatch({ type: 'message/deleting', id }),
  remove: chat.deleteMessage,
  react: chat.react,
  openDirect: (user) => { chat.openDirect([user]); },
  toggleHistory: chat.toggleHistory,
  openThread: thread.openThread,
  picture: files.picture,
};
mountChannelView(store, {
  ...messageHandlers,
  loadOlder: chat.loadOlder,
  summarize: features.summarize,
  addPerson: chat.addPerson,
  removeMember: chat.removeMember,
});
mountChannelSettings(store, { updateChannel: chat.updateChannel, leaveChannel: chat.leaveChannel });
mountSummary(store, { summarize: features.summarize, close: features.closeSummary });
mountSuggestions(store, {
  setTone: session.setTone,
  insert: (text) => {
    const cid = store.getState().channels.current;
    if (cid) store.dispatch({ type: 'composer/insert', key: cid, text });
  },
});
const channelComposer = byId('composer', HTMLFormElement);
mountComposer(store, {
  form: channelComposer,
  textarea: byId('message-input', HTMLTextAreaElement),
  key: (state) => state.channels.current,
  tools: 'channel',
  submit: (text) => chat.send(text), // with files, the text may be empty
  typed: chat.noteTyping,
});
mountAttachments(store, { form: channelComposer, textarea: byId('message-input', HTMLTextAreaElement), key: (state) => state.channels.current, handlers: fileHandlers });
mountMentionChoices(store, channelComposer, byId('message-input', HTMLTextAreaElement));
const channelTools = select((state) => [state.session.model, state.channels.current], (model, cid) => ({
  tools: model ? model.tools : [], unavailable: model && !model.available ? model.message : '', paused: '', hidden: !cid,
}));
mountTools(store, {
  composer: 'channel',
  after: channelComposer,
  key: (state) => state.channels.current,
  config: channelTools,
  handlers: {
    run: (tool) => features.runTool('channel', store.getState().channels.current || '', unavailability(store.getState().session), tool),
    replace: () => features.replaceWithTool('channel'),
    retry: () => features.retryTool('channel', unavailability(store.getState().session)),
    dismiss: () => features.dismissTool('channel'),
  },
});
// After the tools, so that its line comes right under the composer.
mountVoice(store, {
  form: channelComposer,
  before: /** @type {HTMLElement} */ (channelComposer.querySelector('button[type="submit"]')),
  key: (state) => state.channels.current,
  tools: 'channel',
  handlers: voiceHandlers,
});

// ---- The thread panel ----------------------------------------------------------------------

mountThreadView(store, {
  ...messageHandlers,
  close: thread.closeThread,
  loadOlder: thread.loadOlder,
  summarize: features.summarizeThread,
  closeSummary: features.closeThreadSummary,
});
const threadComposer = byId('thread-composer', HTMLFormElement);
const threadInput = byId('thread-input', HTMLTextAreaElement);
/** @param {State} state */
const threadKey = (state) => state.threads.open ? threadComposerKey(state.threads.open.id) : null;
mountSuggestions(store, {
  setTone: session.setTone,
  insert: (text) => {
    const key = threadKey(store.getState());
    if (key) store.dispatch({ type: 'composer/insert', key, text });
  },
}, {
  composer: threadComposer,
  part: (state) => state.threadSuggestions,
  open: (state) => state.threads.open !== null,
  tone: false,
  label: 'Suggested replies in this thread',
});
mountComposer(store, {
  form: threadComposer,
  textarea: threadInput,
  key: threadKey,
  tools: 'thread',
  submit: (text) => thread.send(text),
});
mountAttachments(store, { form: threadComposer, textarea: threadInput, key: threadKey, handlers: fileHandlers });
mountMentionChoices(store, threadComposer, threadInput);

// ---- The assistant -------------------------------------------------------------------------

const assistantRoot = byId('assistant');
/** @param {string} name */
const part = (name) => /** @type {HTMLElement} */ (assistantRoot.querySelector(`[data-part="${name}"]`));
const assistantUnavailable = () => {
  const info = store.getState().assistant.info;
  return info && !info.model.available ? info.model.message : '';
};
part('model-state').after(mountDownload(store, { start: features.startDownload }, (state) => {
  const info = state.assistant.info;
  return Boolean(info && !info.model.available && info.model.reason === 'not_downloaded');
}));
mountAssistantSide(store, part, { newChat: assistant.newChat, open: assistant.open, search: assistant.search });
mountAssistantView(store, assistantRoot, part, images, assistant);
mountAssistantMessages(store, part, images, {
  regenerate: assistant.regenerate,
  translate: (id) => {
    const current = store.getState().assistant.current;
    if (current) features.translate(id, current.id);
  },
  insert: (text) => store.dispatch({ type: 'composer/insert', key: ASSISTANT_COMPOSER, text }),
});
const assistantComposer = /** @type {HTMLFormElement} */ (part('composer'));
mountComposer(store, {
  form: assistantComposer,
  textarea: /** @type {HTMLTextAreaElement} */ (part('input')),
  key: () => ASSISTANT_COMPOSER,
  tools: 'assistant',
  ownsSubmit: false,
  // Stop stays a click away while a preview is open.
  letsThrough: () => Boolean(store.getState().assistant.turn),
  submit: () => { if (store.getState().assistant.turn) assistant.stop(); else assistant.send(); },
});
const assistantTools = select((state) => [state.assistant.info, state.assistant.turn, state.assistant.current],
  (info, turn, current) => ({
    tools: info ? info.model.tools : [],
    unavailable: info && !info.model.available ? info.model.message : '',
    paused: turn ? 'Wait for the answer to finish' : '',
    hidden: !current,
  }));
mountTools(store, {
  composer: 'assistant',
  after: assistantComposer,
  key: () => ASSISTANT_COMPOSER,
  config: assistantTools,
  handlers: {
    run: (tool) => features.runTool('assistant', ASSISTANT_COMPOSER, assistantUnavailable(), tool),
    replace: () => features.replaceWithTool('assistant'),
    retry: () => features.retryTool('assistant', assistantUnavailable()),
    dismiss: () => features.dismissTool('assistant'),
  },
});
// Image Playground: only when the server has an image server configured (GET /api/me says so).
mountPlayground(store, { form: assistantComposer, after: part('attach'), handlers: playgroundEffects(ctx) });
mountVoice(store, {
  form: assistantComposer,
  before: part('send'),
  key: (state) => state.assistant.current ? ASSISTANT_COMPOSER : null,
  tools: 'assistant',
  handlers: voiceHandlers,
});

// ---- Page events ---------------------------------------------------------------------------

document.addEventListener('visibilitychange', () => {
  if (document.visibilityState !== 'visible') return;
  chat.markRead();
  thread.markRead();
});

// A one-time link opens its page; otherwise the session this browser's cookie holds, if any.
if (link) session.openLink(link);
else session.resume();
// A link pasted into the address bar of the open page changes only its fragment: the page does
// not load again. Opening it means becoming the person it is for.
window.addEventListener('hashchange', () => {
  const secret = joinSecret(location.hash);
  if (!secret) return;
  if (store.getState().session.status === 'signed-in') session.signOut();
  session.openLink(secret);
});
