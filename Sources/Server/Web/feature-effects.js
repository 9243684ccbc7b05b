// The model features' requests: each starts a job on the server and keeps its id in the store,
// where the job's snapshots arrive (`job.updated` frames, or the poll below); a request that
// comes back after the user moved on cancels its job.

import { FINISHED } from './jobs.js';
import { translationLanguage, unavailability } from './session.js';
import { summaryRequest } from './summary.js';
import { suggesting } from './search.js';
import { preview, unfinishedJob } from './tools.js';
import { messageOf } from './context.js';
import { downloading } from './download.js';

/**
 * @typedef {import('./context.js').AppContext} AppContext
 * @typedef {import('./tools.js').ToolComposer} ToolComposer
 * @typedef {import('./types.js').WritingToolInfo} WritingToolInfo
 * @typedef {import('./types.js').Job} Job
 */

/** A slow poll of each unfinished job covers a socket that is down. */
const POLL_MS = 2000;

/** @param {AppContext} ctx */
export function featureEffects(ctx) {
  const { store } = ctx;
  const state = () => store.getState();

  /** @param {string} id */
  async function cancelJob(id) {
    try {
      store.dispatch({ type: 'job/updated', job: (await ctx.api().cancelJob(id)).job });
    } catch {
      store.dispatch({ type: 'job/updated', job: { id, status: 'cancelled' } });
    }
  }

  /**
   * Starts a job with `start()` and hands its id to `took(jobId)`, which says whether the
   * feature still wants it (else it is cancelled).
   *
   * @param {() => Promise<{ job: Job }>} start
   * @param {(jobId: string) => boolean} took
   * @param {(error: string) => void} failed
   */
  async function startJob(start, took, failed) {
    let started;
    try {
      started = await start();
    } catch (error) {
      failed(messageOf(error));
      return;
    }
    store.dispatch({ type: 'job/updated', job: started.job });
    if (!took(started.job.id)) cancelJob(started.job.id);
  }

  /**
   * @param {ToolComposer} composer
   * @param {string} key the draft it works on
   * @param {string} unavailable why the model cannot run ('' when it can)
   * @param {WritingToolInfo} tool
   * @param {number} [attempt]
   * @param {string} [original]
   */
  async function runTool(composer, key, unavailable, tool, attempt = 0, original = state().composer.drafts[key] || '') {
    if (!original.trim() || unavailable) return;
    const nonce = ctx.nonce();
    store.dispatch({ type: 'tools/started', composer, session: { nonce, key, tool, original, attempt, jobId: null, error: null } });
    await startJob(
      () => ctx.api().writingTool(tool.id, original, attempt),
      (jobId) => {
        store.dispatch({ type: 'tools/job', composer, nonce, jobId });
        const session = state().tools[composer];
        return Boolean(session && session.nonce === nonce);
      },
      (error) => store.dispatch({ type: 'tools/failed', composer, nonce, error }));
  }

  /** @param {ToolComposer} composer */
  function replaceWithTool(composer) {
    const session = state().tools[composer];
    if (!session) return;
    const shown = preview(session, state().jobs);
    if (!shown.canReplace) return;
    store.dispatch({ type: 'tools/closed', composer });
    store.dispatch({ type: 'composer/insert', key: session.key, text: shown.text });
  }

  /** @param {ToolComposer} composer @param {string} unavailable */
  function retryTool(composer, unavailable) {
    const session = state().tools[composer];
    if (!session) return;
    const running = unfinishedJob(session, state().jobs);
    if (running) cancelJob(running);
    runTool(composer, session.key, unavailable, session.tool, session.attempt + 1, session.original);
  }

  /**
   * Closes the preview and puts back exactly what the user wrote.
   *
   * @param {ToolComposer} composer
   */
  function dismissTool(composer) {
    const session = state().tools[composer];
    if (!session) return;
    const running = unfinishedJob(session, state().jobs);
    if (running) cancelJob(running);
    store.dispatch({ type: 'tools/closed', composer });
    store.dispatch({ type: 'composer/insert', key: session.key, text: session.original });
  }

  /**
   * Translates a message of a channel, or of an assistant conversation.
   *
   * @param {string} messageId
   * @param {string | null} [conversationId]
   */
  async function translate(messageId, conversationId = null) {
    const language = translationLanguage(state().session);
    const nonce = ctx.nonce();
    store.dispatch({ type: 'translate/started', messageId, request: { nonce, code: language.code, name: language.name, jobId: null, error: null } });
    await startJob(
      () => conversationId
        ? ctx.api().translateAssistantMessage(conversationId, messageId, language.code)
        : ctx.api().translate(messageId, language.code),
      (jobId) => {
        store.dispatch({ type: 'translate/job', messageId, nonce, jobId });
        return true;
      },
      (error) => store.dispatch({ type: 'translate/failed', messageId, nonce, error }));
  }

  /** @param {string} messageId */
  async function addToCalendar(messageId) {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
    const nonce = ctx.nonce();
    store.dispatch({ type: 'calendar/started', messageId, request: { nonce, zone, jobId: null, error: null } });
    await startJob(
      () => ctx.api().event(messageId, zone),
      (jobId) => {
        store.dispatch({ type: 'calendar/job', messageId, nonce, jobId });
        return true;
      },
      (error) => store.dispatch({ type: 'calendar/failed', messageId, nonce, error }));
  }

  async function summarize() {
    const summary = state().summary;
    const cid = summary.cid;
    if (!cid || unavailability(state().session)) return;
    if (summary.jobId && !FINISHED.has((state().jobs[summary.jobId] || { status: 'queued' }).status)) cancelJob(summary.jobId);
    const nonce = ctx.nonce();
    store.dispatch({ type: 'summary/started', nonce });
    await startJob(
      () => ctx.api().summarize(cid, summaryRequest(summary.choice, summary.unread)),
      (jobId) => {
        store.dispatch({ type: 'summary/job', nonce, jobId });
        return state().summary.nonce === nonce;
      },
      (error) => store.dispatch({ type: 'summary/failed', nonce, error }));
  }

  function closeSummary() {
    const { jobId } = state().summary;
    if (jobId && !FINISHED.has((state().jobs[jobId] || { status: 'queued' }).status)) cancelJob(jobId);
    store.dispatch({ type: 'summary/closed' });
  }

  /** "Summarize thread" in the thread panel: the open thread, its root and newest replies. */
  async function summarizeThread() {
    const open = state().threads.open;
    if (!open || unavailability(state().session)) return;
    const running = state().threads.summary.jobId;
    if (running && !FINISHED.has((state().jobs[running] || { status: 'queued' }).status)) cancelJob(running);
    const nonce = ctx.nonce();
    store.dispatch({ type: 'threadSummary/started', nonce });
    await startJob(
      () => ctx.api().summarize(open.cid, { thread: open.id }),
      (jobId) => {
        store.dispatch({ type: 'threadSummary/job', nonce, jobId });
        return state().threads.summary.nonce === nonce;
      },
      (error) => store.dispatch({ type: 'threadSummary/failed', nonce, error }));
  }

  function closeThreadSummary() {
    const { jobId } = state().threads.summary;
    if (jobId && !FINISHED.has((state().jobs[jobId] || { status: 'queued' }).status)) cancelJob(jobId);
    store.dispatch({ type: 'threadSummary/closed' });
  }

  /** @param {string} query */
  async function runSearch(query) {
    const text = query.trim();
    if (!text) return;
    store.dispatch({ type: 'search/started', query: text });
    try {
      const found = await ctx.api().search(text);
      store.dispatch({ type: 'search/done', query: text, results: found.results });
    } catch (error) {
      store.dispatch({ type: 'search/failed', query: text, error: messageOf(error) });
    }
  }

  async function suggestSearches() {
    const topic = state().search.field.trim();
    if (!topic || unavailability(state().session) || suggesting(state().search, state().jobs)) return;
    const nonce = ctx.nonce();
    store.dispatch({ type: 'search/suggestStarted', nonce, topic });
    await startJob(
      () => ctx.api().suggestSearches(topic),
      (jobId) => {
        store.dispatch({ type: 'search/suggestJob', nonce, jobId });
        return true;
      },
      (error) => store.dispatch({ type: 'search/suggestFailed', nonce, error }));
  }

  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let downloadTimer;

  /** Looks for a download on offer (the model is not downloaded) and follows it. */
  async function offerDownload() {
    try {
      followDownload(await ctx.api().modelDownload());
    } catch {
      store.dispatch({ type: 'download/progress', progress: null }); // none offered: the page shows the command instead
    }
  }

  async function startDownload() {
    try {
      followDownload(await ctx.api().startModelDownload());
    } catch (error) {
      store.dispatch({ type: 'download/failed', error: messageOf(error) });
    }
  }

  /** @param {import('./types.js').DownloadProgress} progress */
  function followDownload(progress) {
    store.dispatch({ type: 'download/progress', progress });
    clearTimeout(downloadTimer);
    if (downloading(progress)) {
      downloadTimer = setTimeout(async () => {
        try {
          followDownload(await ctx.api().modelDownload());
        } catch {
          waitForModel(); // the server is starting again with the model (it ended between two looks)
        }
      }, 500);
    } else if (progress.status === 'installed') {
      downloadTimer = setTimeout(waitForModel, 500);
    }
  }

  /** The server starts again to load the model: once it answers with the model, reload. */
  async function waitForModel() {
    store.dispatch({ type: 'download/restarting' });
    try {
      const model = await ctx.api().model();
      if (model.available) {
        location.reload();
        return;
      }
    } catch {
      // Not back yet.
    }
    downloadTimer = setTimeout(waitForModel, 500);
  }

  pollJobs(ctx);

  return {
    cancelJob, runTool, replaceWithTool, retryTool, dismissTool, translate, addToCalendar, summarize, closeSummary,
    summarizeThread, closeThreadSummary,
    runSearch, suggestSearches, offerDownload, startDownload,
  };
}

/**
 * Polls every unfinished job in the store until it finishes.
 *
 * @param {AppContext} ctx
 */
function pollJobs(ctx) {
  /** @type {Map<string, ReturnType<typeof setInterval>>} */
  const timers = new Map();
  ctx.store.subscribe((state, previous) => {
    if (state.jobs === previous.jobs) return;
    for (const [id, job] of Object.entries(state.jobs)) {
      const finished = FINISHED.has(job.status);
      if (finished && timers.has(id)) {
        clearInterval(timers.get(id));
        timers.delete(id);
      } else if (!finished && !timers.has(id)) {
        timers.set(id, setInterval(async () => {
          try {
            ctx.store.dispatch({ type: 'job/updated', job: (await ctx.api().job(id)).job });
          } catch {
            // The next frame or poll will tell.
          }
        }, POLL_MS));
      }
    }
    for (const [id, timer] of timers) {
      if (!state.jobs[id]) {
        clearInterval(timer);
        timers.delete(id);
      }
    }
  });
}
