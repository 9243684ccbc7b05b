// Writing tools for a composer (Proofread, Rewrite, Make friendly, Make professional, Make
// concise, Summarize, Key points): a preview under the composer that the result streams into,
// with Replace, Try again and Dismiss. Nothing is ever sent: the composer is read-only while the
// preview is open, Replace puts the result in the draft, Dismiss puts back exactly what the user
// wrote. One session per composer (the channels' and the assistant's).

import { FINISHED, jobError, jobModel, jobPhase, jobText } from './jobs.js';

/**
 * @typedef {import('./types.js').WritingToolInfo} WritingToolInfo
 * @typedef {import('./jobs.js').JobsState} JobsState
 * @typedef {import('./state.js').Action} Action
 *
 * @typedef {'channel' | 'assistant' | 'thread'} ToolComposer the thread panel's composer has no
 *   writing tools yet: its session stays null
 * @typedef {object} ToolSession
 * @property {number} nonce tells this session's answers from an earlier one's
 * @property {string} key the draft it works on (composer.js)
 * @property {WritingToolInfo} tool
 * @property {string} original exactly what the user wrote
 * @property {number} attempt how many times Try again was pressed
 * @property {string | null} jobId
 * @property {string | null} error why the job could not start
 * @typedef {Record<ToolComposer, ToolSession | null>} ToolsState
 *
 * @typedef {{ type: 'tools/started', composer: ToolComposer, session: ToolSession }
 *   | { type: 'tools/job', composer: ToolComposer, nonce: number, jobId: string }
 *   | { type: 'tools/failed', composer: ToolComposer, nonce: number, error: string }
 *   | { type: 'tools/closed', composer: ToolComposer }} ToolsAction
 *
 * @typedef {object} Preview what the preview shows
 * @property {'running' | 'done' | 'failed' | 'cancelled'} status
 * @property {string} text the result so far
 * @property {string} note "Writing…", the error, or ''
 * @property {string | null} model who wrote it, once done
 * @property {boolean} canReplace
 */

/** @type {ToolsState} */
export const initialTools = { channel: null, assistant: null, thread: null };

/**
 * @param {ToolsState} state
 * @param {Action} action
 * @returns {ToolsState}
 */
export function tools(state, action) {
  switch (action.type) {
    case 'tools/started':
      return { ...state, [action.composer]: action.session };
    case 'tools/job':
    case 'tools/failed': {
      const session = state[action.composer];
      if (!session || session.nonce !== action.nonce) return state;
      const change = action.type === 'tools/job' ? { jobId: action.jobId } : { error: action.error };
      return { ...state, [action.composer]: { ...session, ...change } };
    }
    case 'tools/closed':
      return state[action.composer] ? { ...state, [action.composer]: null } : state;
    case 'session/signedOut':
      return initialTools;
    default:
      return state;
  }
}

/**
 * The preview of a session, from its job.
 *
 * @param {ToolSession} session
 * @param {JobsState} jobs
 * @returns {Preview}
 */
export function preview(session, jobs) {
  const job = session.jobId ? jobs[session.jobId] : undefined;
  if (session.error) return { status: 'failed', text: '', note: session.error, model: null, canReplace: false };
  const status = jobPhase(job);
  const text = jobText(job);
  const note = status === 'running' ? 'Writing…' : status === 'failed' && job ? jobError(job) : '';
  return { status, text, note, model: status === 'done' ? jobModel(job) : null, canReplace: status === 'done' && Boolean(text.trim()) };
}

/**
 * Whether the session's job may still be running (Try again and Dismiss cancel it).
 *
 * @param {ToolSession} session
 * @param {JobsState} jobs
 */
export function unfinishedJob(session, jobs) {
  const job = session.jobId ? jobs[session.jobId] : undefined;
  return session.jobId && !(job && FINISHED.has(job.status)) ? session.jobId : null;
}

/**
 * Why a tool button is off ('' when it can run): no model, an answer being written, an empty
 * draft, or a preview already open.
 *
 * @param {{ unavailable: string, paused: string, draft: string, busy: boolean }} facts
 */
export function toolBlocker({ unavailable, paused, draft, busy }) {
  if (unavailable) return unavailable;
  if (paused) return paused;
  if (!draft.trim()) return 'Write something first';
  return busy ? 'busy' : '';
}
