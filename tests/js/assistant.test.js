import test from 'node:test';
import assert from 'node:assert/strict';
import { signedIn } from './helpers.js';
import { meterText, modelLine } from '../../Sources/Server/Web/assistant.js';
import { MODEL } from './helpers.js';

/** @typedef {import('../../Sources/Server/Web/types.js').AssistantMessage} AssistantMessage */

const conversation = { id: 'c1', title: 'New chat', persona: 'general', instructions: '', temperature: 0.7 };
/** @type {AssistantMessage} */
const question = { id: 'q1', role: 'user', text: 'Dragons?' };

/** A store with conversation c1 open. */
function opened() {
  const store = signedIn({ open: false });
  store.dispatch({ type: 'assistant/list', conversations: [conversation] });
  store.dispatch({ type: 'assistant/opening', seq: 1 });
  store.dispatch({ type: 'assistant/opened', seq: 1, detail: { conversation, messages: [], context: { used: 10, size: 4096 } }, scrollTo: null });
  return store;
}

/**
 * @param {import('../../Sources/Server/Web/types.js').Turn} turn
 * @param {{ conversation_id?: string, context?: { used: number, size: number } }} [extra]
 */
const updated = (turn, extra = {}) => ({
  type: /** @type {const} */ ('server/event'), at: 0,
  event: { type: /** @type {const} */ ('assistant.updated'), conversation_id: 'c1', turn, ...extra },
});

test('an answer streams, then becomes a stored message; the context follows', () => {
  const store = opened();
  store.dispatch({ type: 'assistant/sent', message: question, turn: { id: 't1', kind: 'answer', status: 'streaming', html: '' } });
  store.dispatch(updated({ id: 't1', kind: 'answer', status: 'streaming', html: '<p>Drag</p>', output_tokens: 2 }));
  assert.equal(store.getState().assistant.turn?.html, '<p>Drag</p>');
  /** @type {AssistantMessage} */
  const answer = { id: 'a1', role: 'assistant', text: 'Dragons fly.', html: '<p>Dragons fly.</p>' };
  store.dispatch(updated({ id: 't1', kind: 'answer', status: 'done', message: answer }, { context: { used: 80, size: 4096 } }));
  const state = store.getState().assistant;
  assert.equal(state.turn, null);
  assert.deepEqual(state.messages.map((one) => one.id), ['q1', 'a1']);
  assert.deepEqual(state.context, { used: 80, size: 4096 });
  assert.equal(meterText(/** @type {any} */ (state.context)), '80 / 4,096 tokens');
  // Frames after Stop are not shown twice: the stored message is.
  store.dispatch(updated({ id: 't1', kind: 'answer', status: 'streaming', html: '<p>late</p>' }));
  assert.equal(store.getState().assistant.turn, null);
});

test('a failed answer stays shown; a full context says so with its own notice', () => {
  const store = opened();
  store.dispatch({ type: 'assistant/sent', message: question, turn: { id: 't1', kind: 'answer', status: 'streaming' } });
  store.dispatch(updated({ id: 't1', kind: 'answer', status: 'failed', error: 'Too long.', error_code: 'context_full' }));
  const state = store.getState().assistant;
  assert.equal(state.turn, null);
  assert.equal(state.failed?.error, 'Too long.');
  assert.deepEqual(state.notice, { kind: 'context_full', message: 'Too long.' });
  store.dispatch({ type: 'assistant/turnBegan', turn: { id: 't2', kind: 'continuation', status: 'streaming' }, replacesLast: false });
  assert.equal(store.getState().assistant.failed, null);
  assert.equal(store.getState().assistant.notice, null);
});

test('smart replies follow the last answer only, and never while answering', () => {
  const store = opened();
  /** @type {AssistantMessage} */
  const answer = { id: 'a1', role: 'assistant', text: 'Hi' };
  store.dispatch({ type: 'assistant/stopped', messages: [question, answer], context: null });
  const replies = (/** @type {string} */ messageId) => ({
    type: /** @type {const} */ ('server/event'), at: 0,
    event: { type: /** @type {const} */ ('assistant.replies'), conversation_id: 'c1', message_id: messageId, replies: [' Tell me more ', '', 'Thanks'] },
  });
  store.dispatch(replies('q1'));
  assert.deepEqual(store.getState().assistant.replies, []);
  store.dispatch(replies('a1'));
  assert.deepEqual(store.getState().assistant.replies, ['Tell me more', 'Thanks']);
  store.dispatch({ type: 'assistant/turnBegan', turn: { id: 't', kind: 'answer', status: 'streaming' }, replacesLast: true });
  assert.deepEqual(store.getState().assistant.replies, []);
  assert.deepEqual(store.getState().assistant.messages.map((one) => one.id), ['q1']); // Regenerate replaces the answer
  store.dispatch(replies('a1'));
  assert.deepEqual(store.getState().assistant.replies, []);
});

test('the latest conversation asked for wins over a slower answer', () => {
  const store = opened();
  store.dispatch({ type: 'assistant/opening', seq: 2 });
  store.dispatch({ type: 'assistant/opening', seq: 3 });
  const other = { ...conversation, id: 'c3', title: 'Third' };
  store.dispatch({ type: 'assistant/opened', seq: 3, detail: { conversation: other, messages: [], answering: true }, scrollTo: 'm9' });
  store.dispatch({ type: 'assistant/opened', seq: 2, detail: { conversation: { ...conversation, id: 'c2' }, messages: [] }, scrollTo: null });
  const state = store.getState().assistant;
  assert.equal(state.current?.id, 'c3');
  assert.equal(state.scroll.to, 'm9');
  // Opened while answering: the answer's frames are taken once they come.
  assert.equal(state.turn?.id, null);
  store.dispatch(updated({ id: 't9', kind: 'answer', status: 'streaming', html: 'x' }, { conversation_id: 'c3' }));
  assert.equal(store.getState().assistant.turn?.id, 't9');
});

test('a title from the model renames the conversation in the list and the header', () => {
  const store = opened();
  store.dispatch({ type: 'server/event', at: 0, event: { type: 'assistant.conversation', conversation: { ...conversation, title: 'Dragons' } } });
  assert.equal(store.getState().assistant.current?.title, 'Dragons');
  assert.deepEqual(store.getState().assistant.conversations.map((one) => one.title), ['Dragons']);
});

test('the summary streams into its panel; other conversations\' frames are ignored', () => {
  const store = opened();
  store.dispatch({ type: 'assistant/summaryStarted' });
  store.dispatch(updated({ id: 's', kind: 'summary', status: 'streaming', html: '<p>So far</p>' }));
  store.dispatch(updated({ id: 's', kind: 'summary', status: 'streaming', html: '<p>other</p>' }, { conversation_id: 'c2' }));
  assert.deepEqual(store.getState().assistant.summary, { open: true, html: '<p>So far</p>', status: 'streaming', error: '' });
});

test('images wait with the conversation until a message takes them', () => {
  const store = opened();
  store.dispatch({ type: 'assistant/pendingAdded', image: { id: 'i1', name: 'a.png' } });
  store.dispatch({ type: 'assistant/pendingAdded', image: { id: 'i2', name: 'b.png' } });
  store.dispatch({ type: 'assistant/pendingRemoved', id: 'i1' });
  assert.deepEqual(store.getState().assistant.pending, [{ id: 'i2', name: 'b.png' }]);
  store.dispatch({ type: 'assistant/sent', message: question, turn: { id: 't', kind: 'answer', status: 'streaming' } });
  assert.deepEqual(store.getState().assistant.pending, []);
});

test('the model line: ready, loading, a fallback, or why not', () => {
  const info = { settings: { stream_responses: true, show_token_counts: true, appearance: 'system' }, personas: [], languages: [], model: MODEL };
  assert.equal(modelLine(info).state, 'ready');
  assert.equal(modelLine({ ...info, model_loading: true }).text, 'Loading the model qwen2.5-coder-0.5b…');
  assert.equal(modelLine({ ...info, model: { ...MODEL, fallback: true, name: 'm at http://h/v1' } }).state, 'fallback');
  const pooled = modelLine({ ...info, model: { ...MODEL, pool: true, name: 'q here and m on a pool of 2 servers' } });
  assert.equal(pooled.state, 'pool');
  assert.match(pooled.text, /q here and m on a pool of 2 servers: what you write here may be sent to those servers/);
  assert.deepEqual(modelLine({ ...info, model: { ...MODEL, available: false, reason: 'not_downloaded', message: 'Pull it.' } }),
    { text: 'The model is unavailable: Pull it.', state: 'not_downloaded' });
});
