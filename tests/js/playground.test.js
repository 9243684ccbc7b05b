import test from 'node:test';
import assert from 'node:assert/strict';
import { signedIn } from './helpers.js';
import { createContext } from '../../Sources/Server/Web/context.js';
import { ApiError } from '../../Sources/Server/Web/api.js';
import { MAX_IMAGES } from '../../Sources/Server/Web/assistant.js';
import {
  DEFAULT_IMAGE_SIZE, IMAGE_SIZES, MAX_PROMPT_CHARACTERS, buttonTitle, characterCount, imageError, imageSizes, imagesModel,
  madeByLabel, progressText, promptProblem, sizeLabel,
} from '../../Sources/Server/Web/playground.js';
import { playgroundEffects } from '../../Sources/Server/Web/playground-effects.js';

const IMAGES = { available: true, model: 'fake-diffusion', sizes: ['256x256', '512x512', '1024x1024'] };
const conversation = { id: 'c1', title: 'New chat', persona: 'general', instructions: '', temperature: 0.7 };
const other = { ...conversation, id: 'c2', title: 'Other chat' };

/**
 * A store signed in (images as /api/me says), with conversation `open` open.
 *
 * @param {{ images?: import('../../Sources/Server/Web/types.js').ImagesState, open?: typeof conversation }} [options]
 */
function opened(options = {}) {
  const store = signedIn({ open: false, images: 'images' in options ? options.images : IMAGES });
  store.dispatch({ type: 'assistant/list', conversations: [conversation, other] });
  openConversation(store, options.open || conversation);
  return store;
}

/**
 * @param {import('../../Sources/Server/Web/state.js').AppStore} store
 * @param {typeof conversation} which
 * @param {import('../../Sources/Server/Web/types.js').ImageInfo[]} [pending]
 */
function openConversation(store, which, pending = []) {
  const seq = store.getState().assistant.openSeq + 1;
  store.dispatch({ type: 'assistant/opening', seq });
  store.dispatch({ type: 'assistant/opened', seq, detail: { conversation: which, messages: [], pending_images: pending }, scrollTo: null });
}

// ---- State ------------------------------------------------------------------------------------

test('images are offered only when /api/me says so, with the model named', () => {
  assert.equal(imagesModel(undefined), null); // a server older than Image Playground
  assert.equal(imagesModel({ available: false }), null);
  assert.equal(imagesModel({ available: true, model: 'fake-diffusion' }), 'fake-diffusion');
  assert.equal(opened().getState().playground.model, 'fake-diffusion');
  // The sizes the server lists (the usual three from one that lists none); 512×512 when it takes it.
  assert.deepEqual(imageSizes({ available: true, model: 'm' }), IMAGE_SIZES);
  assert.deepEqual(imageSizes({ available: true, model: 'm', sizes: ['1024x1024', 'huge'] }), ['1024x1024']);
  const large = opened({ images: { available: true, model: 'm', sizes: ['1024x1024', '1792x1024'] } });
  assert.equal(large.getState().playground.size, '1024x1024');
  large.dispatch({ type: 'playground/size', size: '256x256' }); // not one it takes
  assert.equal(large.getState().playground.size, '1024x1024');

  const off = opened({ images: { available: false } });
  assert.equal(off.getState().playground.model, null);
  off.dispatch({ type: 'playground/open', prompt: 'a lighthouse' });
  off.dispatch({ type: 'playground/started', id: 1, conversationId: 'c1' });
  assert.equal(off.getState().playground.open, false);
  assert.equal(off.getState().playground.status, 'idle');

  const store = opened();
  store.dispatch({ type: 'session/signedOut', message: '' });
  assert.equal(store.getState().playground.model, null);
});

test('the prompt row opens with the composer\'s text, else the last description, at 512×512', () => {
  const store = opened();
  assert.equal(store.getState().playground.size, DEFAULT_IMAGE_SIZE);
  assert.equal(DEFAULT_IMAGE_SIZE, '512x512');
  store.dispatch({ type: 'playground/open', prompt: 'a lighthouse at dusk, watercolour' });
  assert.deepEqual([store.getState().playground.open, store.getState().playground.prompt], [true, 'a lighthouse at dusk, watercolour']);
  store.dispatch({ type: 'playground/prompt', text: 'a lighthouse at night' });
  store.dispatch({ type: 'playground/size', size: '1024x1024' });
  store.dispatch({ type: 'playground/close' });
  assert.equal(store.getState().playground.open, false);
  store.dispatch({ type: 'playground/open', prompt: '  ' }); // an empty composer keeps the last description
  assert.deepEqual([store.getState().playground.prompt, store.getState().playground.size], ['a lighthouse at night', '1024x1024']);
  store.dispatch({ type: 'playground/close' });
  store.dispatch({ type: 'playground/open', prompt: 'a harbour' });
  assert.equal(store.getState().playground.prompt, 'a harbour');
});

test('a request goes idle → generating → done, one at a time; the row closes and the description stays', () => {
  const store = opened();
  store.dispatch({ type: 'playground/open', prompt: 'a lighthouse' });
  assert.equal(store.getState().playground.status, 'idle');
  store.dispatch({ type: 'playground/started', id: 1, conversationId: 'c1' });
  store.dispatch({ type: 'playground/started', id: 2, conversationId: 'c1' }); // one at a time
  assert.deepEqual(pick(store), { status: 'generating', requestId: 1, conversationId: 'c1', open: true, error: '' });
  store.dispatch({ type: 'playground/close' }); // Cancel is not offered while it is being made
  assert.equal(store.getState().playground.open, true);
  store.dispatch({ type: 'playground/done', id: 2 }); // another request's answer changes nothing
  assert.equal(store.getState().playground.status, 'generating');
  store.dispatch({ type: 'playground/done', id: 1 });
  assert.deepEqual(pick(store), { status: 'done', requestId: 1, conversationId: 'c1', open: false, error: '' });
  assert.equal(store.getState().playground.prompt, 'a lighthouse');
  store.dispatch({ type: 'playground/failed', id: 1, message: 'late', off: false }); // finished already
  assert.equal(store.getState().playground.status, 'done');
});

test('a failed request keeps the row open with its description; a server with images off loses the button', () => {
  const store = opened();
  store.dispatch({ type: 'playground/open', prompt: 'a lighthouse' });
  store.dispatch({ type: 'playground/started', id: 1, conversationId: 'c1' });
  store.dispatch({ type: 'playground/failed', id: 1, message: 'No image: the image server answered 500', off: false });
  assert.deepEqual(pick(store), { status: 'failed', requestId: 1, conversationId: 'c1', open: true, error: 'No image: the image server answered 500' });
  assert.equal(store.getState().playground.prompt, 'a lighthouse');
  store.dispatch({ type: 'playground/started', id: 2, conversationId: 'c1' }); // tried again
  assert.equal(store.getState().playground.error, '');
  store.dispatch({ type: 'playground/failed', id: 2, message: 'Making images is turned off on this server.', off: true });
  assert.equal(store.getState().playground.model, null);
  assert.equal(store.getState().playground.open, false);
});

test('the description is checked as the server checks it: not empty, at most 1000 characters', () => {
  assert.equal(MAX_PROMPT_CHARACTERS, 1000);
  assert.equal(promptProblem(''), 'Describe the image to make.');
  assert.equal(promptProblem(' \n\t'), 'Describe the image to make.');
  assert.equal(promptProblem('a lighthouse at dusk, watercolour'), '');
  assert.equal(promptProblem('x'.repeat(1000)), '');
  assert.equal(promptProblem(`  ${'x'.repeat(1000)}  `), ''); // the spaces around are not sent
  assert.equal(promptProblem('x'.repeat(1001)), 'The description is 1001 characters long; the image server takes at most 1000.');
  // An emoji with its skin tone is one character, as a reader (and Swift's String) counts it.
  assert.equal(characterCount('👍🏽'), 1);
  assert.equal(promptProblem('👍🏽'.repeat(1000)), '');
  assert.match(promptProblem('👍🏽'.repeat(1001)), /^The description is 1001 characters/);
});

test('the words: the button\'s title, the progress, the label, the sizes', () => {
  assert.equal(buttonTitle('fake-diffusion'), 'Make an image with fake-diffusion (sent to the configured image server)');
  assert.equal(progressText('fake-diffusion'), 'Making an image with fake-diffusion…');
  assert.equal(madeByLabel('fake-diffusion'), 'Made by fake-diffusion');
  assert.deepEqual(IMAGE_SIZES.map(sizeLabel), ['256 × 256', '512 × 512', '1024 × 1024']);
});

test('a failed request in words', () => {
  assert.deepEqual(imageError(new ApiError(502, 'image_endpoint_failed', 'No image: the image server answered 500: out of memory')),
    { message: 'No image: the image server answered 500: out of memory', off: false });
  assert.match(imageError(new ApiError(413, 'image_too_large', 'That image is larger than 8 MB; attach a smaller one.')).message, /^No image was made: the image server sent an image larger/);
  assert.deepEqual(imageError(new ApiError(404, 'images_off', 'not configured')), { message: 'Making images is turned off on this server.', off: true });
  assert.deepEqual(imageError(new ApiError(429, 'image_in_progress', 'one at a time')),
    { message: 'An image is already being made: wait for it, then try again.', off: false });
  assert.equal(imageError(new ApiError(0, 'network', 'x')).message, 'The server cannot be reached: no image was made.');
  assert.equal(imageError(new ApiError(400, 'invalid_argument', 'prompt is empty')).message, 'No image was made: prompt is empty');
});

test('a conversation\'s waiting images carry the model that made them', () => {
  const store = opened();
  openConversation(store, other, [{ id: 'i1' }, { id: 'i2', mime_type: 'image/png', byte_count: 70, generated_by: 'fake-diffusion' }]);
  assert.deepEqual(store.getState().assistant.pending, [
    { id: 'i1', name: 'image', generatedBy: null }, { id: 'i2', name: 'image', generatedBy: 'fake-diffusion' },
  ]);
});

/** @param {import('../../Sources/Server/Web/state.js').AppStore} store */
function pick(store) {
  const { status, requestId, conversationId, open, error } = store.getState().playground;
  return { status, requestId, conversationId, open, error };
}

// ---- Effects ----------------------------------------------------------------------------------

/** The playground's effects over an API whose image requests the test answers. */
function harness(options = /** @type {Parameters<typeof opened>[0]} */ ({})) {
  const store = opened(options);
  const storage = { getItem: () => null, setItem: () => {}, removeItem: () => {} };
  const ctx = createContext(store, { local: storage });
  /** @type {unknown[]} */
  const failed = [];
  ctx.fail = (error) => { failed.push(error); };
  /** @type {Array<{ conversation: string, prompt: string, size: string, answer: (info: object) => void, refuse: (error: unknown) => void }>} */
  const requests = [];
  ctx.setApi(/** @type {any} */ ({
    generateAssistantImage: (/** @type {string} */ conversation, /** @type {string} */ prompt, /** @type {string} */ size) =>
      new Promise((resolve, reject) => { requests.push({ conversation, prompt, size, answer: resolve, refuse: reject }); }),
  }));
  return { store, requests, failed, effects: playgroundEffects(ctx) };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

test('making an image sends the description and size, and the image waits in the composer labelled', async () => {
  const { store, requests, effects } = harness();
  store.dispatch({ type: 'assistant/notice', notice: { kind: 'error', message: 'an older error' } });
  store.dispatch({ type: 'playground/open', prompt: '  a lighthouse at dusk, watercolour \n' });
  store.dispatch({ type: 'playground/size', size: '256x256' });
  const making = effects.make();
  assert.equal(store.getState().playground.status, 'generating');
  assert.equal(store.getState().assistant.notice, null);
  effects.make(); // pressed again: nothing more is asked
  assert.deepEqual(requests.map(({ conversation, prompt, size }) => ({ conversation, prompt, size })),
    [{ conversation: 'c1', prompt: 'a lighthouse at dusk, watercolour', size: '256x256' }]);
  requests[0].answer({ id: 'img1', mime_type: 'image/png', byte_count: 70, generated_by: 'fake-diffusion' });
  await making;
  assert.equal(store.getState().playground.status, 'done');
  assert.equal(store.getState().playground.open, false);
  assert.deepEqual(store.getState().assistant.pending, [{ id: 'img1', name: 'a lighthouse at dusk, watercolour', generatedBy: 'fake-diffusion' }]);
});

test('a failure is said where attach errors are, and the description stays', async () => {
  const { store, requests, effects, failed } = harness();
  store.dispatch({ type: 'composer/draft', key: 'assistant', text: 'a lighthouse' });
  store.dispatch({ type: 'playground/open', prompt: 'a lighthouse' });
  const making = effects.make();
  requests[0].refuse(new ApiError(502, 'image_endpoint_failed', 'No image: the image server answered 500: boom'));
  await making;
  assert.deepEqual(store.getState().assistant.notice, { kind: 'error', message: 'No image: the image server answered 500: boom' });
  assert.deepEqual([store.getState().playground.status, store.getState().playground.open, store.getState().playground.prompt], ['failed', true, 'a lighthouse']);
  assert.equal(store.getState().composer.drafts.assistant, 'a lighthouse');
  assert.deepEqual(store.getState().assistant.pending, []);
  assert.deepEqual(failed, []);

  const signedOut = harness();
  signedOut.store.dispatch({ type: 'playground/open', prompt: 'a lighthouse' });
  const refused = signedOut.effects.make();
  signedOut.requests[0].refuse(new ApiError(401, 'unauthorized', 'token expired'));
  await refused;
  assert.equal(signedOut.failed.length, 1); // signs out, as every request's 401 does
});

test('a description the server would refuse is not sent; a full composer takes no more', async () => {
  const { store, requests, effects } = harness();
  store.dispatch({ type: 'playground/open', prompt: '' });
  await effects.make();
  assert.equal(requests.length, 0);
  assert.equal(store.getState().assistant.notice?.message, 'Describe the image to make.');
  assert.equal(store.getState().playground.status, 'idle');
  store.dispatch({ type: 'playground/prompt', text: 'y'.repeat(1001) });
  await effects.make();
  assert.equal(requests.length, 0);
  assert.match(store.getState().assistant.notice?.message || '', /1001 characters/);

  for (let index = 0; index < MAX_IMAGES; index += 1) store.dispatch({ type: 'assistant/pendingAdded', image: { id: `i${index}`, name: 'a.png' } });
  store.dispatch({ type: 'playground/prompt', text: 'a lighthouse' });
  await effects.make();
  assert.equal(requests.length, 0);
  assert.equal(store.getState().assistant.notice?.message, `A message takes at most ${MAX_IMAGES} images: remove one first.`);
});

test('an image made for a conversation no longer open waits there, not in the open one', async () => {
  const { store, requests, effects } = harness();
  store.dispatch({ type: 'playground/open', prompt: 'a lighthouse' });
  const making = effects.make();
  openConversation(store, other);
  assert.equal(store.getState().playground.status, 'generating'); // one at a time, whichever is open
  requests[0].answer({ id: 'img1', mime_type: 'image/png', byte_count: 70, generated_by: 'fake-diffusion' });
  await making;
  await settle();
  assert.equal(store.getState().playground.status, 'done');
  assert.deepEqual(store.getState().assistant.pending, []);
  // Opened again, the server lists it among the conversation's waiting images.
  openConversation(store, conversation, [{ id: 'img1', generated_by: 'fake-diffusion' }]);
  assert.deepEqual(store.getState().assistant.pending, [{ id: 'img1', name: 'image', generatedBy: 'fake-diffusion' }]);
});
