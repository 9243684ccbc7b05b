// "Search messages" over the user's channels, and "Suggest searches": four terms from the
// model for the topic in the search field, each a click away from running.

import { jobError, jobModel, jobPhase } from './jobs.js';

/**
 * @typedef {import('./types.js').SearchHit} SearchHit
 * @typedef {import('./jobs.js').JobsState} JobsState
 * @typedef {import('./state.js').Action} Action
 *
 * @typedef {object} SearchState
 * @property {string} field what the search field holds
 * @property {'' | 'searching' | 'done' | 'failed'} status
 * @property {string} query the query the results are for
 * @property {SearchHit[]} results
 * @property {string} error
 * @property {{ nonce: number, topic: string, jobId: string | null, error: string | null } | null} suggest
 *
 * @typedef {{ type: 'search/field', text: string }
 *   | { type: 'search/started', query: string }
 *   | { type: 'search/done', query: string, results: SearchHit[] }
 *   | { type: 'search/failed', query: string, error: string }
 *   | { type: 'search/suggestStarted', nonce: number, topic: string }
 *   | { type: 'search/suggestJob', nonce: number, jobId: string }
 *   | { type: 'search/suggestFailed', nonce: number, error: string }} SearchAction
 */

/** @type {SearchState} */
export const initialSearch = { field: '', status: '', query: '', results: [], error: '', suggest: null };

/**
 * @param {SearchState} state
 * @param {Action} action
 * @returns {SearchState}
 */
export function search(state, action) {
  switch (action.type) {
    case 'search/field':
      return state.field === action.text ? state : { ...state, field: action.text };
    case 'search/started':
      return { ...state, field: action.query, status: 'searching', query: action.query, error: '' };
    case 'search/done':
      return action.query === state.query ? { ...state, status: 'done', results: action.results } : state;
    case 'search/failed':
      return action.query === state.query ? { ...state, status: 'failed', results: [], error: action.error } : state;
    case 'search/suggestStarted':
      return { ...state, suggest: { nonce: action.nonce, topic: action.topic, jobId: null, error: null } };
    case 'search/suggestJob':
    case 'search/suggestFailed': {
      const suggest = state.suggest;
      if (!suggest || suggest.nonce !== action.nonce) return state;
      const change = action.type === 'search/suggestJob' ? { jobId: action.jobId } : { error: action.error };
      return { ...state, suggest: { ...suggest, ...change } };
    }
    case 'session/signedOut':
      return initialSearch;
    default:
      return state;
  }
}

/**
 * The suggested terms so far, where they stand, and the line under them.
 *
 * @param {NonNullable<SearchState['suggest']>} suggest
 * @param {JobsState} jobs
 */
export function suggestedSearches(suggest, jobs) {
  const job = suggest.jobId ? jobs[suggest.jobId] : undefined;
  if (suggest.error) return { status: 'failed', terms: [], note: suggest.error, model: null };
  const status = jobPhase(job);
  /** @type {string[]} */
  const terms = (job && job.result && job.result.terms) || [];
  const note = status === 'running' ? 'Suggesting searches…' : status === 'failed' && job ? jobError(job) : '';
  return { status, terms, note, model: status === 'done' ? jobModel(job) : null };
}

/**
 * Whether "Suggest searches" is busy (a job started and not finished).
 *
 * @param {SearchState} state
 * @param {JobsState} jobs
 */
export function suggesting(state, jobs) {
  const suggest = state.suggest;
  if (!suggest || suggest.error) return false;
  return jobPhase(suggest.jobId ? jobs[suggest.jobId] : undefined) === 'running';
}

/**
 * The note under the search field: why Suggest searches is off, or what to type.
 *
 * @param {string} field
 * @param {string} unavailable
 */
export function searchNote(field, unavailable) {
  if (unavailable) return `Suggest searches is off: ${unavailable}`;
  return field.trim() ? '' : 'Type a topic to search, or to get suggested searches.';
}

/**
 * `text` cut at the `[start, end)` ranges (UTF-16 units) to highlight, as pieces in order; bad
 * or overlapping ranges are skipped.
 *
 * @param {string} text
 * @param {Array<[number, number]> | undefined} ranges
 * @returns {Array<{ text: string, mark: boolean }>}
 */
export function highlightPieces(text, ranges) {
  /** @type {Array<{ text: string, mark: boolean }>} */
  const pieces = [];
  let at = 0;
  for (const [start, end] of ranges || []) {
    if (start < at || end > text.length || start >= end) continue;
    if (start > at) pieces.push({ text: text.slice(at, start), mark: false });
    pieces.push({ text: text.slice(start, end), mark: true });
    at = end;
  }
  if (at < text.length) pieces.push({ text: text.slice(at), mark: false });
  return pieces;
}
