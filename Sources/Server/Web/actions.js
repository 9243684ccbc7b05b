// Actions on a message, in the channels and the assistant alike: "Translate" (into the language
// picked in "Translate to", shown under the original, which stays) and, in the channels, when
// the message mentions a day or time, "Add to calendar" (the model reads the event; the page
// shows what it read and offers the .ics file). Keyed by message id.

import { jobError, jobModel, jobPhase, jobText } from './jobs.js';

/**
 * @typedef {import('./jobs.js').JobsState} JobsState
 * @typedef {import('./state.js').Action} Action
 *
 * @typedef {{ nonce: number, code: string, name: string, jobId: string | null, error: string | null }} TranslationRequest
 * @typedef {{ nonce: number, zone: string, jobId: string | null, error: string | null }} CalendarRequest
 * @typedef {{ translations: Record<string, TranslationRequest>, calendars: Record<string, CalendarRequest> }} ActionsState
 *
 * @typedef {{ type: 'translate/started', messageId: string, request: TranslationRequest }
 *   | { type: 'calendar/started', messageId: string, request: CalendarRequest }
 *   | { type: 'translate/job' | 'calendar/job', messageId: string, nonce: number, jobId: string }
 *   | { type: 'translate/failed' | 'calendar/failed', messageId: string, nonce: number, error: string }} ActionsAction
 */

/** @type {ActionsState} */
export const initialActions = { translations: {}, calendars: {} };

/**
 * @param {ActionsState} state
 * @param {Action} action
 * @returns {ActionsState}
 */
export function actions(state, action) {
  switch (action.type) {
    case 'translate/started':
      return { ...state, translations: { ...state.translations, [action.messageId]: action.request } };
    case 'calendar/started':
      return { ...state, calendars: { ...state.calendars, [action.messageId]: action.request } };
    case 'translate/job':
    case 'translate/failed':
      return { ...state, translations: follow(state.translations, action) };
    case 'calendar/job':
    case 'calendar/failed':
      return { ...state, calendars: follow(state.calendars, action) };
    case 'session/signedOut':
      return initialActions;
    default:
      return state;
  }
}

/**
 * @template {{ nonce: number, jobId: string | null, error: string | null }} R
 * @param {Record<string, R>} requests
 * @param {{ messageId: string, nonce: number, jobId?: string, error?: string }} action
 * @returns {Record<string, R>}
 */
function follow(requests, action) {
  const request = requests[action.messageId];
  if (!request || request.nonce !== action.nonce) return requests;
  const change = action.jobId !== undefined ? { jobId: action.jobId } : { error: action.error || null };
  return { ...requests, [action.messageId]: { ...request, ...change } };
}

/**
 * What a translation box shows.
 *
 * @param {TranslationRequest} request
 * @param {JobsState} jobs
 */
export function translationView(request, jobs) {
  const job = request.jobId ? jobs[request.jobId] : undefined;
  const status = request.error ? 'failed' : jobPhase(job);
  const label = status === 'running'
    ? `Translating to ${request.name}…`
    : status === 'done' ? `Translated to ${request.name}` : request.error || jobError(job || {});
  return { status, label, text: jobText(job), model: status === 'done' ? jobModel(job) : null };
}

/**
 * What a calendar box shows: where it stands, and once read, the event and its file.
 *
 * @param {CalendarRequest} request
 * @param {JobsState} jobs
 */
export function calendarView(request, jobs) {
  const job = request.jobId ? jobs[request.jobId] : undefined;
  const status = request.error ? 'failed' : jobPhase(job);
  if (status !== 'done' || !job) {
    const note = status === 'running' ? 'Reading the date…' : request.error || jobError(job || {});
    return { status, note, event: null, ics: '', filename: '', model: null, jobId: request.jobId };
  }
  const { event, ics, filename, model } = job.result;
  return { status, note: '', event, ics, filename, model: model || null, jobId: request.jobId };
}

/**
 * "Saturday 5 December, 08:00–10:00" (or the day alone for an all-day event), in `zone`.
 *
 * @param {{ start: string, end: string, all_day?: boolean, time_zone?: string }} event
 * @param {string} zone
 */
export function describeEvent(event, zone) {
  const start = new Date(event.start);
  const end = new Date(event.end);
  const day = start.toLocaleDateString([], { weekday: 'long', day: 'numeric', month: 'long', timeZone: event.all_day ? event.time_zone : zone });
  if (event.all_day) return `${day}, all day`;
  /** @param {Date} date */
  const time = (date) => date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hour12: false, timeZone: zone });
  return `${day}, ${time(start)}–${time(end)}`;
}
