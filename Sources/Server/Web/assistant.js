// The private assistant's state: conversations with the local model, kept on the server per
// user; the open one's messages, the answer being written (streamed as `assistant.updated`
// frames), smart-reply chips, images waiting to be sent, the Summarize panel, settings, search.

/**
 * @typedef {import('./types.js').AssistantInfo} AssistantInfo
 * @typedef {import('./types.js').AssistantSettings} AssistantSettings
 * @typedef {import('./types.js').Conversation} Conversation
 * @typedef {import('./types.js').ConversationDetail} ConversationDetail
 * @typedef {import('./types.js').AssistantMessage} AssistantMessage
 * @typedef {import('./types.js').AssistantHit} AssistantHit
 * @typedef {import('./types.js').ContextUse} ContextUse
 * @typedef {import('./types.js').ModelState} ModelState
 * @typedef {import('./types.js').Turn} Turn
 * @typedef {import('./state.js').Action} Action
 *
 * @typedef {{ id: string, name: string, generatedBy?: string | null }} PendingImage generatedBy: the image
 *   server's model, on an image it made (Image Playground)
 * @typedef {{ kind: 'error' | 'context_full', message: string }} Notice
 * @typedef {object} AssistantState
 * @property {AssistantInfo | null} info GET /api/assistant
 * @property {Conversation[]} conversations
 * @property {Conversation | null} current
 * @property {boolean} intro no conversation open: the introduction shows
 * @property {AssistantMessage[]} messages the open conversation's, oldest first
 * @property {Turn | null} turn the answer being written (its id is null until its first frame
 *   when the conversation was opened while answering)
 * @property {Turn | null} failed the last answer that failed, shown until the next one
 * @property {ContextUse | null} context
 * @property {PendingImage[]} pending images attached and not sent yet
 * @property {string[]} replies smart-reply chips after the last answer
 * @property {Notice | null} notice
 * @property {{ open: boolean, html: string, status: string, error: string }} summary
 * @property {boolean} settingsOpen
 * @property {string} settingsStatus
 * @property {string} appearance `system`, `light` or `dark`: the saved setting, or the one being tried
 * @property {{ shown: boolean, results: AssistantHit[], error: string }} search
 * @property {{ nonce: number, to: string | null }} scroll where the view scrolls next (null: the bottom)
 * @property {number} openSeq the latest conversation asked for (a slower answer for an earlier one is dropped)
 *
 * @typedef {{ type: 'assistant/info', info: AssistantInfo }
 *   | { type: 'assistant/model', model: ModelState, loading: boolean }
 *   | { type: 'assistant/list', conversations: Conversation[] }
 *   | { type: 'assistant/intro' }
 *   | { type: 'assistant/opening', seq: number }
 *   | { type: 'assistant/opened', seq: number, detail: ConversationDetail, scrollTo: string | null }
 *   | { type: 'assistant/sent', message: AssistantMessage, turn: Turn }
 *   | { type: 'assistant/turnBegan', turn: Turn, replacesLast: boolean }
 *   | { type: 'assistant/stopped', messages: AssistantMessage[], context: ContextUse | null }
 *   | { type: 'assistant/pendingAdded', image: PendingImage }
 *   | { type: 'assistant/pendingRemoved', id: string }
 *   | { type: 'assistant/notice', notice: Notice | null }
 *   | { type: 'assistant/summaryStarted' }
 *   | { type: 'assistant/summaryFailed', error: string }
 *   | { type: 'assistant/settingsOpen', open: boolean }
 *   | { type: 'assistant/settingsSaved', settings: AssistantSettings, conversation: Conversation | null, messages: AssistantMessage[] | null, context: ContextUse | null }
 *   | { type: 'assistant/settingsStatus', text: string }
 *   | { type: 'assistant/appearance', appearance: string }
 *   | { type: 'assistant/searchResults', results: AssistantHit[], error: string }
 *   | { type: 'assistant/searchHidden' }
 *   | { type: 'assistant/renamed', conversation: Conversation }
 *   | { type: 'assistant/deleted' }} AssistantAction
 */

/** At most this many images on one message (the store's limit). */
export const MAX_IMAGES = 4;

/** @type {AssistantState} */
export const initialAssistant = {
  info: null, conversations: [], current: null, intro: false, messages: [], turn: null, failed: null, context: null,
  pending: [], replies: [], notice: null, summary: { open: false, html: '', status: '', error: '' },
  settingsOpen: false, settingsStatus: '', appearance: 'system', search: { shown: false, results: [], error: '' },
  scroll: { nonce: 0, to: null }, openSeq: 0,
};

/**
 * @param {AssistantState} state
 * @param {Action} action
 * @returns {AssistantState}
 */
export function assistant(state, action) {
  switch (action.type) {
    case 'assistant/info':
      return { ...state, info: action.info, appearance: action.info.settings.appearance };
    case 'assistant/model':
      return state.info ? { ...state, info: { ...state.info, model: action.model, model_loading: action.loading } } : state;
    case 'assistant/list':
      return { ...state, conversations: action.conversations };
    case 'assistant/intro':
      return { ...state, current: null, intro: true, messages: [], turn: null, failed: null, context: null, replies: [] };
    case 'assistant/opening':
      return { ...state, openSeq: action.seq };
    case 'assistant/opened':
      return action.seq === state.openSeq ? opened(state, action.detail, action.scrollTo) : state;
    case 'assistant/sent':
      return {
        ...state, messages: [...state.messages, action.message], turn: action.turn, failed: null, pending: [],
        replies: [], notice: null, scroll: { nonce: state.scroll.nonce + 1, to: null },
      };
    case 'assistant/turnBegan': {
      const last = state.messages[state.messages.length - 1];
      const messages = action.replacesLast && last && last.role === 'assistant' ? state.messages.slice(0, -1) : state.messages;
      return { ...state, messages, turn: action.turn, failed: null, replies: [], notice: null, scroll: { nonce: state.scroll.nonce + 1, to: null } };
    }
    case 'assistant/stopped':
      return { ...state, turn: null, messages: action.messages, context: action.context };
    case 'assistant/pendingAdded':
      return { ...state, pending: [...state.pending, action.image] };
    case 'assistant/pendingRemoved':
      return { ...state, pending: state.pending.filter((image) => image.id !== action.id) };
    case 'assistant/notice':
      return { ...state, notice: action.notice };
    case 'assistant/summaryStarted':
      return { ...state, summary: { open: true, html: '', status: 'streaming', error: '' } };
    case 'assistant/summaryFailed':
      return { ...state, summary: { ...state.summary, status: 'failed', error: action.error } };
    case 'assistant/settingsOpen':
      return { ...state, settingsOpen: action.open, settingsStatus: '' };
    case 'assistant/settingsSaved': {
      if (!state.info) return state;
      const info = { ...state.info, settings: action.settings };
      const next = { ...state, info, appearance: action.settings.appearance, settingsOpen: false, settingsStatus: 'Saved.' };
      if (!action.conversation || !action.messages) return next;
      return { ...next, current: action.conversation, messages: action.messages, context: action.context,
        scroll: { nonce: state.scroll.nonce + 1, to: null } };
    }
    case 'assistant/settingsStatus':
      return { ...state, settingsStatus: action.text };
    case 'assistant/appearance':
      return { ...state, appearance: action.appearance };
    case 'assistant/searchResults':
      return { ...state, search: { shown: true, results: action.results, error: action.error } };
    case 'assistant/searchHidden':
      return { ...state, search: { ...state.search, shown: false } };
    case 'assistant/renamed':
      return { ...state, current: action.conversation };
    case 'assistant/deleted':
      return { ...state, current: null };
    case 'server/event':
      return frame(state, action.event);
    case 'session/signedOut':
      return initialAssistant;
    default:
      return state;
  }
}

/**
 * @param {AssistantState} state
 * @param {ConversationDetail} detail
 * @param {string | null} scrollTo
 * @returns {AssistantState}
 */
function opened(state, detail, scrollTo) {
  return {
    ...state,
    current: detail.conversation,
    intro: false,
    messages: detail.messages,
    // Images attached and not sent yet wait on the server, with the conversation.
    pending: (detail.pending_images || []).map((image) => ({ id: image.id, name: 'image', generatedBy: image.generated_by || null })),
    context: detail.context || null,
    turn: detail.answering ? { id: null, kind: 'answer', status: 'streaming', html: '', output_tokens: 0 } : null,
    failed: null,
    replies: [],
    notice: null,
    summary: { ...state.summary, open: false },
    settingsOpen: false,
    scroll: { nonce: state.scroll.nonce + 1, to: scrollTo },
  };
}

/**
 * A frame from /api/connect.
 *
 * @param {AssistantState} state
 * @param {import('./types.js').ServerEvent} event
 * @returns {AssistantState}
 */
function frame(state, event) {
  const current = state.current;
  if (event.type === 'assistant.conversation') {
    const conversations = state.conversations.map((one) => one.id === event.conversation.id ? event.conversation : one);
    return { ...state, conversations, current: current && current.id === event.conversation.id ? event.conversation : current };
  }
  if (event.type === 'assistant.replies') {
    const last = state.messages[state.messages.length - 1];
    if (!current || event.conversation_id !== current.id || state.turn || !last || last.id !== event.message_id) return state;
    return { ...state, replies: event.replies.map((text) => text.trim()).filter(Boolean) };
  }
  if (event.type !== 'assistant.updated' || !current || event.conversation_id !== current.id) return state;
  const turn = event.turn;
  if (turn.kind === 'summary') {
    return { ...state, summary: { ...state.summary, html: turn.html || '', status: turn.status || '', error: turn.error || '' } };
  }
  if (!state.turn) return state; // stopped here already: the stored message is shown
  if (turn.status === 'streaming') return { ...state, turn };
  const finished = { ...state, turn: null, context: event.context || state.context };
  if (turn.status === 'failed') {
    const notice = turn.error_code === 'context_full' ? { kind: /** @type {const} */ ('context_full'), message: turn.error || '' } : state.notice;
    // What was written before the failure stays shown with it.
    return { ...finished, failed: { ...turn, html: turn.html || state.turn.html }, notice };
  }
  return turn.message ? { ...finished, messages: [...state.messages, turn.message] } : finished;
}

/**
 * The context meter's words.
 *
 * @param {ContextUse} context
 */
export function meterText(context) {
  const format = new Intl.NumberFormat('en-US');
  return `${format.format(context.used)} / ${format.format(context.size)} tokens`;
}

/**
 * The line about the model: ready, loading, a fallback elsewhere, shared with a pool of
 * servers, or why it is unavailable.
 *
 * @param {AssistantInfo} info
 * @returns {{ text: string, state: string }}
 */
export function modelLine(info) {
  const model = info.model;
  if (model.available && model.fallback) {
    return { text: `The local model is unavailable, so the assistant uses the fallback ${model.name}: what you write here is sent there.`, state: 'fallback' };
  }
  if (model.available && model.pool) {
    return { text: `The assistant runs on ${model.name}: what you write here may be sent to those servers.`, state: 'pool' };
  }
  if (model.available) {
    return info.model_loading
      ? { text: `Loading the model ${model.name}…`, state: 'loading' }
      : { text: `Model ${model.name} is ready. It runs on this computer: nothing you write leaves it.`, state: 'ready' };
  }
  return { text: `The model is unavailable: ${model.message}`, state: model.reason || 'unavailable' };
}
