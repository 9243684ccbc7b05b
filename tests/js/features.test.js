import test from 'node:test';
import assert from 'node:assert/strict';
import { signedIn } from './helpers.js';
import { preview, toolBlocker, unfinishedJob } from '../../Sources/Server/Web/tools.js';
import { calendarView, translationView } from '../../Sources/Server/Web/actions.js';
import { summaryChoices, summaryRequest, summaryView } from '../../Sources/Server/Web/summary.js';
import { highlightPieces, searchNote, suggestedSearches, suggesting } from '../../Sources/Server/Web/search.js';
import { downloadView } from '../../Sources/Server/Web/download.js';
import { translationLanguage } from '../../Sources/Server/Web/session.js';

const tool = { id: 'proofread', title: 'Proofread' };

test('a job never goes back: a finished one stays, a poll cannot undo a running one', () => {
  const store = signedIn();
  store.dispatch({ type: 'job/updated', job: { id: 'j', status: 'running', result: { text: 'Hel' } } });
  store.dispatch({ type: 'job/updated', job: { id: 'j', status: 'queued' } });
  assert.equal(store.getState().jobs.j.status, 'running');
  store.dispatch({ type: 'server/event', event: { type: 'job.updated', job: { id: 'j', status: 'done', result: { text: 'Hello' } } }, at: 0 });
  store.dispatch({ type: 'job/updated', job: { id: 'j', status: 'running', result: { text: 'Hel' } } });
  assert.deepEqual(store.getState().jobs.j, { id: 'j', status: 'done', result: { text: 'Hello' } });
});

test('a writing tool: the preview streams its job; an answer for an earlier session is ignored', () => {
  const store = signedIn();
  const session = { nonce: 1, key: 'c', tool, original: 'teh draft', attempt: 0, jobId: null, error: null };
  store.dispatch({ type: 'tools/started', composer: 'channel', session });
  let shown = preview(/** @type {any} */ (store.getState().tools.channel), store.getState().jobs);
  assert.deepEqual(shown, { status: 'running', text: '', note: 'Writing…', model: null, canReplace: false });
  store.dispatch({ type: 'tools/started', composer: 'channel', session: { ...session, nonce: 2, attempt: 1 } });
  store.dispatch({ type: 'tools/job', composer: 'channel', nonce: 1, jobId: 'old' });
  assert.equal(store.getState().tools.channel?.jobId, null);
  store.dispatch({ type: 'tools/job', composer: 'channel', nonce: 2, jobId: 'j2' });
  store.dispatch({ type: 'job/updated', job: { id: 'j2', status: 'running', result: { text: 'the' } } });
  const current = /** @type {import('../../Sources/Server/Web/tools.js').ToolSession} */ (store.getState().tools.channel);
  assert.equal(unfinishedJob(current, store.getState().jobs), 'j2');
  store.dispatch({ type: 'job/updated', job: { id: 'j2', status: 'done', result: { text: 'the draft', model: 'm' } } });
  shown = preview(current, store.getState().jobs);
  assert.deepEqual(shown, { status: 'done', text: 'the draft', note: '', model: 'm', canReplace: true });
  assert.equal(unfinishedJob(current, store.getState().jobs), null);
  // The assistant's composer has its own session.
  assert.equal(store.getState().tools.assistant, null);
  store.dispatch({ type: 'tools/closed', composer: 'channel' });
  assert.equal(store.getState().tools.channel, null);
});

test('a tool that could not start says why, and offers no Replace', () => {
  const session = { nonce: 1, key: 'c', tool, original: 'x', attempt: 0, jobId: null, error: 'The model is busy.' };
  assert.deepEqual(preview(session, {}), { status: 'failed', text: '', note: 'The model is busy.', model: null, canReplace: false });
  assert.equal(preview({ ...session, error: null, jobId: 'j' }, { j: { id: 'j', status: 'failed' } }).note,
    'The model could not finish this request.');
  assert.equal(preview({ ...session, error: null, jobId: 'j' }, { j: { id: 'j', status: 'done', result: { text: '  ' } } }).canReplace, false);
});

test('the tool buttons say why they are off', () => {
  assert.equal(toolBlocker({ unavailable: 'No model.', paused: '', draft: 'x', busy: false }), 'No model.');
  assert.equal(toolBlocker({ unavailable: '', paused: 'Wait for the answer to finish', draft: 'x', busy: false }), 'Wait for the answer to finish');
  assert.equal(toolBlocker({ unavailable: '', paused: '', draft: '  ', busy: false }), 'Write something first');
  assert.equal(toolBlocker({ unavailable: '', paused: '', draft: 'x', busy: true }), 'busy');
  assert.equal(toolBlocker({ unavailable: '', paused: '', draft: 'x', busy: false }), '');
});

test('translations and date actions follow their jobs, keyed by message', () => {
  const store = signedIn();
  store.dispatch({ type: 'translate/started', messageId: 'm1', request: { nonce: 1, code: 'fr', name: 'French', jobId: null, error: null } });
  store.dispatch({ type: 'translate/job', messageId: 'm1', nonce: 1, jobId: 't1' });
  store.dispatch({ type: 'job/updated', job: { id: 't1', status: 'running', result: { text: 'Bon' } } });
  const request = store.getState().actions.translations.m1;
  assert.deepEqual(translationView(request, store.getState().jobs), { status: 'running', label: 'Translating to French…', text: 'Bon', model: null });
  store.dispatch({ type: 'job/updated', job: { id: 't1', status: 'done', result: { text: 'Bonjour', model: 'm' } } });
  assert.deepEqual(translationView(request, store.getState().jobs), { status: 'done', label: 'Translated to French', text: 'Bonjour', model: 'm' });
  // A second Translate replaces the first; the first's late job id is not taken.
  store.dispatch({ type: 'translate/started', messageId: 'm1', request: { nonce: 2, code: 'de', name: 'German', jobId: null, error: null } });
  store.dispatch({ type: 'translate/job', messageId: 'm1', nonce: 1, jobId: 'late' });
  assert.equal(store.getState().actions.translations.m1.jobId, null);
  store.dispatch({ type: 'translate/failed', messageId: 'm1', nonce: 2, error: 'No.' });
  assert.equal(translationView(store.getState().actions.translations.m1, store.getState().jobs).label, 'No.');

  store.dispatch({ type: 'calendar/started', messageId: 'm2', request: { nonce: 3, zone: 'UTC', jobId: null, error: null } });
  assert.equal(calendarView(store.getState().actions.calendars.m2, store.getState().jobs).note, 'Reading the date…');
  store.dispatch({ type: 'calendar/job', messageId: 'm2', nonce: 3, jobId: 'c1' });
  const event = { title: 'Hike', start: '2025-12-06T08:00:00Z', end: '2025-12-06T10:00:00Z' };
  store.dispatch({ type: 'job/updated', job: { id: 'c1', status: 'done', result: { event, ics: 'BEGIN:VCALENDAR', filename: 'hike.ics', model: 'm' } } });
  const shown = calendarView(store.getState().actions.calendars.m2, store.getState().jobs);
  assert.deepEqual([shown.status, shown.event, shown.filename, shown.model], ['done', event, 'hike.ics', 'm']);
});

test('the summary: what was unread when the channel opened, or the last N', () => {
  const store = signedIn();
  store.dispatch({ type: 'summary/unread', cid: 'messaging:weekend-hike', unread: { after: 'm7', count: 3 } });
  const summary = store.getState().summary;
  assert.equal(summary.choice, 'unread');
  assert.deepEqual(summaryChoices(summary.unread).map((one) => one.label), ['Unread messages (3)', 'Last 20 messages', 'Last 50 messages']);
  assert.deepEqual(summaryRequest('unread', summary.unread), { after: 'm7' });
  assert.deepEqual(summaryRequest('unread', { after: null, count: 80 }), { last: 50 });
  assert.deepEqual(summaryRequest('20', summary.unread), { last: 20 });
  store.dispatch({ type: 'summary/started', nonce: 9 });
  store.dispatch({ type: 'summary/job', nonce: 9, jobId: 's' });
  store.dispatch({ type: 'job/updated', job: { id: 's', status: 'running', result: { text: 'Alice and Bob' } } });
  assert.deepEqual(summaryView(store.getState().summary, store.getState().jobs), { status: 'running', text: 'Alice and Bob', note: 'Summarizing…', model: null });
  // Another channel: the panel closes, and the old job's id is not taken.
  store.dispatch({ type: 'channel/opened', cid: 'messaging:other', at: 1 });
  store.dispatch({ type: 'summary/job', nonce: 9, jobId: 'late' });
  assert.equal(store.getState().summary.open, false);
  assert.equal(store.getState().summary.jobId, null);
  assert.equal(store.getState().summary.choice, '20');
});

test('search: results for the query asked last; suggested terms offered once done', () => {
  const store = signedIn();
  store.dispatch({ type: 'search/started', query: 'hike' });
  store.dispatch({ type: 'search/started', query: 'trailhead' });
  store.dispatch({ type: 'search/done', query: 'hike', results: [] });
  assert.equal(store.getState().search.status, 'searching');
  store.dispatch({ type: 'search/done', query: 'trailhead', results: [] });
  assert.equal(store.getState().search.status, 'done');
  assert.equal(store.getState().search.field, 'trailhead');

  store.dispatch({ type: 'search/suggestStarted', nonce: 1, topic: 'hike' });
  assert.equal(suggesting(store.getState().search, store.getState().jobs), true);
  store.dispatch({ type: 'search/suggestJob', nonce: 1, jobId: 'q' });
  store.dispatch({ type: 'job/updated', job: { id: 'q', status: 'running', result: { terms: ['trail'] } } });
  const suggest = /** @type {NonNullable<import('../../Sources/Server/Web/search.js').SearchState['suggest']>} */ (store.getState().search.suggest);
  assert.deepEqual(suggestedSearches(suggest, store.getState().jobs).terms, ['trail']);
  store.dispatch({ type: 'job/updated', job: { id: 'q', status: 'done', result: { terms: ['trail', 'snacks', 'water', 'map'], model: 'm' } } });
  assert.equal(suggesting(store.getState().search, store.getState().jobs), false);
  assert.deepEqual(suggestedSearches(suggest, store.getState().jobs), { status: 'done', terms: ['trail', 'snacks', 'water', 'map'], note: '', model: 'm' });
  assert.equal(searchNote('', ''), 'Type a topic to search, or to get suggested searches.');
  assert.equal(searchNote('hike', 'No model.'), 'Suggest searches is off: No model.');
});

test('highlights cut the text at valid ranges only', () => {
  assert.deepEqual(highlightPieces('meet at the trailhead', [[12, 21]]),
    [{ text: 'meet at the ', mark: false }, { text: 'trailhead', mark: true }]);
  assert.deepEqual(highlightPieces('abc', [[1, 2], [0, 3], [2, 9]]),
    [{ text: 'a', mark: false }, { text: 'b', mark: true }, { text: 'c', mark: false }]);
  assert.deepEqual(highlightPieces('<b>x</b>', undefined), [{ text: '<b>x</b>', mark: false }]);
});

test('the download box: offered, running, installed, restarting', () => {
  const progress = { status: /** @type {const} */ ('idle'), model: 'smollm2-135m', bytes: 98566144, message: 'm' };
  assert.deepEqual(downloadView({ progress, restarting: false, error: '' }),
    { status: 'idle', button: 'Download smollm2-135m (94 MB)', showButton: true, showBar: false, fraction: null, text: '' });
  const running = downloadView({ progress: { ...progress, status: 'downloading', fraction: 0.5 }, restarting: false, error: '' });
  assert.deepEqual([running?.showButton, running?.showBar, running?.fraction], [false, true, 0.5]);
  assert.equal(downloadView({ progress: { ...progress, status: 'failed' }, restarting: false, error: '' })?.button, 'Try the download again');
  assert.equal(downloadView({ progress, restarting: true, error: '' })?.status, 'restarting');
  assert.equal(downloadView({ progress: null, restarting: false, error: '' }), null);
});

test('the translation language: the preference the model offers, else the first, else English', () => {
  const store = signedIn();
  assert.deepEqual(translationLanguage(store.getState().session), { code: 'en', name: 'English' });
  store.dispatch({ type: 'session/language', code: 'fr' });
  assert.deepEqual(translationLanguage(store.getState().session), { code: 'fr', name: 'French' });
  store.dispatch({ type: 'session/language', code: 'xx' });
  assert.deepEqual(translationLanguage(store.getState().session), { code: 'en', name: 'English' });
});
