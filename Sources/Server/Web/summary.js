// "Summarize channel": a panel under the channel's header that a short summary streams into, of
// the part that was unread when the channel was opened, or of the last N messages.

import { jobError, jobModel, jobPhase, jobText } from './jobs.js';

/**
 * @typedef {import('./jobs.js').JobsState} JobsState
 * @typedef {import('./state.js').Action} Action
 *
 * @typedef {{ after: string | null, count: number }} Unread what was unread when the channel was opened
 * @typedef {object} SummaryState
 * @property {string | null} cid
 * @property {Unread | null} unread
 * @property {string} choice `unread`, `20` or `50`
 * @property {boolean} open
 * @property {number} nonce
 * @property {string | null} jobId
 * @property {string | null} error
 *
 * @typedef {{ type: 'summary/unread', cid: string, unread: Unread | null }
 *   | { type: 'summary/choice', choice: string }
 *   | { type: 'summary/started', nonce: number }
 *   | { type: 'summary/job', nonce: number, jobId: string }
 *   | { type: 'summary/failed', nonce: number, error: string }
 *   | { type: 'summary/closed' }} SummaryAction
 */

/** @type {SummaryState} */
export const initialSummary = { cid: null, unread: null, choice: '20', open: false, nonce: 0, jobId: null, error: null };

/**
 * @param {SummaryState} state
 * @param {Action} action
 * @returns {SummaryState}
 */
export function summary(state, action) {
  switch (action.type) {
    case 'channel/opened':
      return { ...initialSummary, cid: action.cid, nonce: state.nonce + 1 };
    case 'summary/unread': {
      if (action.cid !== state.cid) return state;
      const unread = action.unread && action.unread.count > 0 ? action.unread : null;
      return { ...state, unread, choice: unread ? 'unread' : '20' };
    }
    case 'summary/choice':
      return { ...state, choice: action.choice };
    case 'summary/started':
      return { ...state, open: true, nonce: action.nonce, jobId: null, error: null };
    case 'summary/job':
      return action.nonce === state.nonce ? { ...state, jobId: action.jobId } : state;
    case 'summary/failed':
      return action.nonce === state.nonce ? { ...state, error: action.error } : state;
    case 'summary/closed':
      return { ...state, open: false, jobId: null, error: null, nonce: state.nonce + 1 };
    case 'session/signedOut':
      return initialSummary;
    default:
      return state;
  }
}

/**
 * The options of the range picker.
 *
 * @param {Unread | null} unread
 * @returns {Array<{ value: string, label: string }>}
 */
export function summaryChoices(unread) {
  const choices = unread ? [{ value: 'unread', label: `Unread messages (${unread.count})` }] : [];
  return [...choices, { value: '20', label: 'Last 20 messages' }, { value: '50', label: 'Last 50 messages' }];
}

/**
 * What POST …/summary is asked for the choice.
 *
 * @param {string} choice
 * @param {Unread | null} unread
 * @returns {{ last: number } | { after: string }}
 */
export function summaryRequest(choice, unread) {
  if (choice === 'unread' && unread) return unread.after ? { after: unread.after } : { last: Math.min(unread.count, 50) };
  return { last: Number(choice) || 20 };
}

/**
 * What the panel shows (the channel's, or the thread panel's: any summary with a job).
 *
 * @param {{ jobId: string | null, error: string | null }} state
 * @param {JobsState} jobs
 */
export function summaryView(state, jobs) {
  if (state.error) return { status: 'failed', text: '', note: state.error, model: null };
  const job = state.jobId ? jobs[state.jobId] : undefined;
  const status = jobPhase(job);
  const note = status === 'running' ? 'Summarizing…' : status === 'failed' && job ? jobError(job) : '';
  return { status, text: jobText(job), note, model: status === 'done' ? jobModel(job) : null };
}
