// Model jobs (writing tools, translations, summaries, date actions, search suggestions): the
// server answers a request with a job at once, then streams its progress as `job.updated`
// frames on the event socket. Every snapshot goes into the store by id; each feature keeps the
// id of its job and reads its result from here. A slow poll of GET /api/jobs/{id} covers a
// socket that is down (jobs-poll.js).

/**
 * @typedef {import('./types.js').Job} Job
 * @typedef {import('./state.js').Action} Action
 *
 * @typedef {Record<string, Job>} JobsState
 * @typedef {{ type: 'job/updated', job: Job }} JobsAction
 */

export const FINISHED = new Set(['done', 'failed', 'cancelled']);

/**
 * A snapshot replaces the one known unless that one has finished, or the new one goes back
 * from running to queued (a poll's answer that crossed a newer frame).
 *
 * @param {JobsState} state
 * @param {Action} action
 * @returns {JobsState}
 */
export function jobs(state, action) {
  switch (action.type) {
    case 'job/updated':
      return withJob(state, action.job);
    case 'server/event':
      return action.event.type === 'job.updated' ? withJob(state, action.event.job) : state;
    case 'session/signedOut':
      return {};
    default:
      return state;
  }
}

/**
 * @param {JobsState} state
 * @param {Job} job
 * @returns {JobsState}
 */
function withJob(state, job) {
  if (!job || !job.id) return state;
  const known = state[job.id];
  if (known && (FINISHED.has(known.status) || (known.status === 'running' && job.status === 'queued'))) return state;
  return { ...state, [job.id]: job };
}

/**
 * Where a feature's job stands, in the words its views use: `running` until it finishes.
 *
 * @param {Job | undefined} job
 * @returns {'running' | 'done' | 'failed' | 'cancelled'}
 */
export function jobPhase(job) {
  if (!job || !FINISHED.has(job.status)) return 'running';
  return /** @type {'done' | 'failed' | 'cancelled'} */ (job.status);
}

/**
 * The words a failed job shows.
 *
 * @param {{ error?: string | null }} job
 */
export function jobError(job) {
  return job.error || 'The model could not finish this request.';
}

/**
 * The text a job has written so far ('' before any).
 *
 * @param {Job | undefined} job
 */
export function jobText(job) {
  return job && job.result && typeof job.result.text === 'string' ? job.result.text : '';
}

/**
 * The model that produced a finished job's result, if it says.
 *
 * @param {Job | undefined} job
 * @returns {string | null}
 */
export function jobModel(job) {
  return (job && job.result && job.result.model) || null;
}
