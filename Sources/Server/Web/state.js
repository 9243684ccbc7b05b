// The app's state, one plain object, and the reducer that is the only way it changes: each
// part's reducer gets every action, with the whole state before it (for who is signed in and
// which channel is open), and returns its part unchanged when the action is not its business.

import { actions, initialActions } from './actions.js';
import { assistant, initialAssistant } from './assistant.js';
import { attachments, initialAttachments } from './attachments.js';
import { channels, initialChannels } from './channels.js';
import { composer, initialComposer } from './composer.js';
import { download, initialDownload } from './download.js';
import { jobs } from './jobs.js';
import { initialMessages, messages } from './messages.js';
import { initialPeople, people } from './people.js';
import { initialPlayground, playground } from './playground.js';
import { initialSearch, search } from './search.js';
import { initialSession, session } from './session.js';
import { initialSuggestions, suggestions, threadSuggestions } from './suggestions.js';
import { initialSummary, summary } from './summary.js';
import { initialThreads, threads } from './threads.js';
import { initialTools, tools } from './tools.js';
import { typing } from './typing.js';
import { initialVoice, voice } from './voice.js';
import { combine } from './store.js';

/**
 * @typedef {object} State
 * @property {import('./session.js').SessionState} session
 * @property {import('./channels.js').ChannelsState} channels
 * @property {import('./messages.js').MessagesState} messages
 * @property {import('./typing.js').TypingState} typing
 * @property {import('./suggestions.js').SuggestionsState} suggestions the channel's chips
 * @property {import('./threads.js').ThreadsState} threads
 * @property {import('./suggestions.js').SuggestionsState} threadSuggestions the open thread's chips
 * @property {import('./composer.js').ComposerState} composer
 * @property {import('./attachments.js').AttachmentsState} attachments files waiting to go with a message, per composer
 * @property {import('./tools.js').ToolsState} tools
 * @property {import('./jobs.js').JobsState} jobs
 * @property {import('./search.js').SearchState} search
 * @property {import('./summary.js').SummaryState} summary
 * @property {import('./actions.js').ActionsState} actions
 * @property {import('./download.js').DownloadState} download
 * @property {import('./assistant.js').AssistantState} assistant
 * @property {import('./voice.js').VoiceState} voice
 * @property {import('./playground.js').PlaygroundState} playground
 * @property {import('./people.js').PeopleState} people
 *
 * Actions that several parts answer: a frame from the server (with the moment it arrived, on
 * the clock of `performance.now()`), and the server's word that the page must load again.
 * @typedef {{ type: 'server/event', event: import('./types.js').ServerEvent, at: number }
 *   | { type: 'server/resync' }} ServerAction
 *
 * @typedef {ServerAction
 *   | import('./session.js').SessionAction
 *   | import('./channels.js').ChannelsAction
 *   | import('./messages.js').MessagesAction
 *   | import('./typing.js').TypingAction
 *   | import('./suggestions.js').SuggestionsAction
 *   | import('./threads.js').ThreadsAction
 *   | import('./composer.js').ComposerAction
 *   | import('./attachments.js').AttachmentsAction
 *   | import('./tools.js').ToolsAction
 *   | import('./jobs.js').JobsAction
 *   | import('./search.js').SearchAction
 *   | import('./summary.js').SummaryAction
 *   | import('./actions.js').ActionsAction
 *   | import('./download.js').DownloadAction
 *   | import('./assistant.js').AssistantAction
 *   | import('./voice.js').VoiceAction
 *   | import('./playground.js').PlaygroundAction
 *   | import('./people.js').PeopleAction} Action
 *
 * @typedef {import('./store.js').Store<State, Action>} AppStore
 */

/**
 * @param {{ tone?: import('./suggestions.js').Tone, view?: 'channels' | 'assistant', suggestionsWanted?: boolean, starting?: boolean, autoSend?: boolean }} [saved]
 *   what this browser remembers
 * @returns {State}
 */
export function initialState(saved = {}) {
  return {
    session: {
      ...initialSession,
      status: saved.starting ? 'starting' : 'signed-out',
      view: saved.view || 'channels',
      suggestionsWanted: saved.suggestionsWanted !== false,
    },
    channels: initialChannels,
    messages: initialMessages,
    typing: {},
    suggestions: initialSuggestions(saved.tone),
    threads: initialThreads,
    threadSuggestions: initialSuggestions(saved.tone),
    composer: initialComposer,
    attachments: initialAttachments,
    tools: initialTools,
    jobs: {},
    search: initialSearch,
    summary: initialSummary,
    actions: initialActions,
    download: initialDownload,
    assistant: initialAssistant,
    voice: initialVoice(saved.autoSend),
    playground: initialPlayground,
    people: initialPeople,
  };
}

/**
 * @param {State} state
 * @param {Action} action
 * @returns {State}
 */
export function reducer(state, action) {
  const next = {
    session: session(state.session, action),
    channels: channels(state.channels, action, state),
    messages: messages(state.messages, action, state),
    typing: typing(state.typing, action, state),
    suggestions: suggestions(state.suggestions, action, state),
    threads: threads(state.threads, action, state),
    threadSuggestions: threadSuggestions(state.threadSuggestions, action, state),
    composer: composer(state.composer, action),
    attachments: attachments(state.attachments, action),
    tools: tools(state.tools, action),
    jobs: jobs(state.jobs, action),
    search: search(state.search, action),
    summary: summary(state.summary, action),
    actions: actions(state.actions, action),
    download: download(state.download, action),
    assistant: assistant(state.assistant, action),
    voice: voice(state.voice, action),
    playground: playground(state.playground, action),
    people: people(state.people, action),
  };
  const keys = /** @type {Array<keyof State>} */ (Object.keys(next));
  return keys.every((key) => next[key] === state[key]) ? state : next;
}

/**
 * `combine` (store.js) over the app's state: a selector that returns the same object while its
 * inputs are the same.
 *
 * @template {unknown[]} I
 * @template T
 * @param {(state: State) => [...I]} inputs
 * @param {(...inputs: I) => T} make
 * @returns {(state: State) => T}
 */
export function select(inputs, make) {
  return combine(inputs, make);
}
