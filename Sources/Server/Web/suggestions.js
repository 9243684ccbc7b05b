// The "Suggested replies" row's state: a "Suggesting replies…" indicator while the model works,
// then up to three chips, each filling in as the model writes it (`suggestions.partial` frames),
// settled when the set is done (`suggestions.updated`, or GET …/suggestions). A partial or a
// pending answer for another state of the conversation (another signature) is dropped; so is a
// late "pending" for a set already shown. The row is absent whenever there is nothing to show.
//
// The channel's row and the open thread's row are two of these states (`parent` null, or the
// thread's root): each takes only the snapshots, partials and messages of its own conversation,
// so a thread's chips never replace the channel's, nor the other way round.
//
// Time to the first visible chip (from the moment suggestions were asked for or expected) and
// to the finished set are kept in `timings`, for the page's tests and anyone curious.

/**
 * @typedef {import('./types.js').SuggestionSnapshot} SuggestionSnapshot
 * @typedef {import('./state.js').Action} Action
 * @typedef {import('./state.js').State} State
 *
 * @typedef {'casual' | 'formal'} Tone
 * @typedef {{ status: 'pending' | 'streaming' | 'ready', chips: string[], signature: string, tone: Tone, model: string | null }} ShownRow
 * @typedef {{ signature: string | null | undefined, firstChipMs: number, setMs: number, streamed: boolean }} Timing
 * @typedef {object} SuggestionsState
 * @property {string | null} cid the open channel
 * @property {string | null} parent the open thread's root (null: the channel's own row)
 * @property {SuggestionSnapshot | null} last the last snapshot applied for `cid`
 * @property {ShownRow | null} shown what the row shows; null: no row
 * @property {Tone} tone
 * @property {number | null} waitingSince when suggestions were asked for or expected
 * @property {number | null} firstChipAt when the first chip was shown
 * @property {Timing[]} timings
 *
 * @typedef {{ type: 'suggestions/snapshot', snapshot: SuggestionSnapshot, at: number }
 *   | { type: 'suggestions/failed', cid: string, parent?: string | null }
 *   | { type: 'suggestions/clear', cid: string, parent?: string | null }
 *   | { type: 'suggestions/tone', tone: Tone, at: number }
 *   | { type: 'suggestions/reopen', at: number }} SuggestionsAction
 */

/** At most this many chips are shown. */
export const MAX_CHIPS = 3;

/**
 * @param {Tone} tone
 * @returns {SuggestionsState}
 */
export function initialSuggestions(tone = 'casual') {
  return { cid: null, parent: null, last: null, shown: null, tone, waitingSince: null, firstChipAt: null, timings: [] };
}

/**
 * The chips of the open thread: opened with it, gone when it closes or the channel changes.
 *
 * @param {SuggestionsState} state
 * @param {Action} action
 * @param {State} root the state before this action
 * @returns {SuggestionsState}
 */
export function threadSuggestions(state, action, root) {
  switch (action.type) {
    case 'thread/opened':
      return open({ ...state, cid: action.cid, parent: action.id }, enabledFor(action, root), action.at);
    case 'thread/closed':
    case 'channel/opened':
    case 'channel/left':
      return state.parent === null ? state : { ...initialSuggestions(state.tone), timings: state.timings };
    case 'suggestions/tone':
      return state.parent === null ? { ...state, tone: action.tone } : conversation(state, action, root);
    default:
      return state.parent === null && action.type !== 'session/signedOut' ? state : conversation(state, action, root);
  }
}

/**
 * @param {Action} action
 * @param {State} root
 */
function enabledFor(action, root) {
  return root.session.suggestionsAvailable &&
    (action.type === 'session/suggestionsWanted' ? action.wanted : root.session.suggestionsWanted);
}

/**
 * Whether a snapshot, a frame or a message belongs to this row's conversation.
 *
 * @param {SuggestionsState} state
 * @param {string} cid
 * @param {string | null | undefined} parent
 */
function ours(state, cid, parent) {
  return cid === state.cid && (parent || null) === state.parent;
}

/**
 * @param {SuggestionsState} state
 * @param {Action} action
 * @param {State} root the state before this action
 * @returns {SuggestionsState}
 */
export function suggestions(state, action, root) {
  if (action.type === 'channel/opened') return open({ ...state, cid: action.cid, parent: null }, enabledFor(action, root), action.at);
  return conversation(state, action, root);
}

/**
 * What one row (the channel's or a thread's) answers.
 *
 * @param {SuggestionsState} state
 * @param {Action} action
 * @param {State} root the state before this action
 * @returns {SuggestionsState}
 */
function conversation(state, action, root) {
  const enabled = enabledFor(action, root);
  switch (action.type) {
    case 'suggestions/tone':
      return state.cid ? open({ ...state, tone: action.tone }, enabled, action.at) : { ...state, tone: action.tone };
    case 'suggestions/reopen':
      return state.cid ? open(state, enabled, action.at) : state;
    case 'session/suggestionsWanted':
      return enabled ? state : { ...state, shown: null };
    case 'session/signedOut':
      return { ...initialSuggestions(state.tone), timings: state.timings };
    case 'suggestions/snapshot':
      return enabled ? apply(state, action.snapshot, action.at) : state;
    case 'suggestions/failed':
      return ours(state, action.cid, action.parent) ? { ...state, shown: null } : state;
    case 'suggestions/clear':
      return ours(state, action.cid, action.parent) ? clear(state, action.cid) : state;
    case 'server/event': {
      const event = action.event;
      if (!enabled) return state;
      if (event.type === 'suggestions.updated') return apply(state, event, action.at);
      if (event.type === 'suggestions.partial') return partial(state, event, action.at);
      if (event.type === 'message.new' && ours(state, event.message.cid, event.message.parent_id)) {
        const mine = root.session.me !== null && event.message.user_id === root.session.me.id;
        return mine ? clear(state, event.message.cid) : expect(state, action.at);
      }
      return state;
    }
    default:
      return state;
  }
}

/**
 * A channel (or tone) is opened: nothing shown until the server says where its suggestions stand.
 *
 * @param {SuggestionsState} state
 * @param {boolean} enabled
 * @param {number} at
 * @returns {SuggestionsState}
 */
function open(state, enabled, at) {
  return { ...state, last: null, shown: null, waitingSince: enabled ? at : null, firstChipAt: null };
}

/**
 * Someone else wrote: fresh suggestions are on their way.
 *
 * @param {SuggestionsState} state
 * @param {number} at
 * @returns {SuggestionsState}
 */
function expect(state, at) {
  return {
    ...state,
    last: { cid: /** @type {string} */ (state.cid), status: 'pending', signature: null, parent_id: state.parent },
    shown: row(state, 'pending', [], ''),
    waitingSince: at,
    firstChipAt: null,
  };
}

/**
 * The reader wrote: nothing to suggest until someone answers.
 *
 * @param {SuggestionsState} state
 * @param {string} cid
 * @returns {SuggestionsState}
 */
function clear(state, cid) {
  if (cid !== state.cid) return state;
  return { ...state, last: { cid, status: 'none', signature: null, parent_id: state.parent }, shown: null };
}

/**
 * The chips so far for the conversation as it is now (`suggestions.partial`).
 *
 * @param {SuggestionsState} state
 * @param {{ cid: string, signature: string, suggestions: string[], parent_id?: string | null }} frame
 * @param {number} at
 * @returns {SuggestionsState}
 */
function partial(state, frame, at) {
  const last = state.last;
  if (!ours(state, frame.cid, frame.parent_id) || !last || last.status !== 'pending') return state;
  if (last.signature && frame.signature !== last.signature) return state; // another state's chips
  const chips = (frame.suggestions || []).slice(0, MAX_CHIPS);
  if (chips.length === 0) return state;
  const firstChipAt = state.waitingSince !== null && !state.firstChipAt ? at : state.firstChipAt;
  return { ...state, firstChipAt, shown: row(state, 'streaming', chips, frame.signature) };
}

/**
 * A snapshot from GET …/suggestions or a `suggestions.updated` event.
 *
 * @param {SuggestionsState} state
 * @param {SuggestionSnapshot} snapshot
 * @param {number} at
 * @returns {SuggestionsState}
 */
function apply(state, snapshot, at) {
  if (!snapshot || !ours(state, snapshot.cid, snapshot.parent_id)) return state;
  const last = state.last;
  // A late "pending" answer must not hide chips that already arrived for the same state.
  if (snapshot.status === 'pending' && last && last.signature === snapshot.signature && last.status !== 'pending') {
    return state;
  }
  const shown = state.shown;
  const streaming = shown !== null && shown.status === 'streaming' && snapshot.status === 'pending' &&
    shown.signature === snapshot.signature;
  const next = { ...state, last: snapshot };
  const chips = (snapshot.suggestions || []).slice(0, MAX_CHIPS);
  if (snapshot.status === 'ready' && chips.length > 0) {
    return { ...noteTiming(next, snapshot.signature, at), shown: row(next, 'ready', chips, snapshot.signature || '') };
  }
  if (snapshot.status === 'pending') return streaming ? next : { ...next, shown: row(next, 'pending', [], '') };
  return { ...next, shown: null };
}

/**
 * @param {SuggestionsState} state
 * @param {string | null | undefined} signature
 * @param {number} at
 * @returns {SuggestionsState}
 */
function noteTiming(state, signature, at) {
  if (state.waitingSince === null) return state;
  const timing = {
    signature,
    firstChipMs: Math.round((state.firstChipAt || at) - state.waitingSince),
    setMs: Math.round(at - state.waitingSince),
    streamed: Boolean(state.firstChipAt),
  };
  return { ...state, timings: [...state.timings, timing], waitingSince: null, firstChipAt: null };
}

/**
 * @param {SuggestionsState} state
 * @param {ShownRow['status']} status
 * @param {string[]} chips
 * @param {string} signature
 * @returns {ShownRow}
 */
function row(state, status, chips, signature) {
  return { status, chips, signature, tone: state.tone, model: (state.last && state.last.model) || null };
}
