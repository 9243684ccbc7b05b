import test from 'node:test';
import assert from 'node:assert/strict';
import { CID, signedIn } from './helpers.js';
import {
  MAX_FILE_BYTES, MAX_FILES, filesOf, humanSize, isImage, isUploading, outgoing, pendingFile, readyFiles, textToSend, uploadError,
} from '../../Sources/Server/Web/attachments.js';
import { threadComposerKey } from '../../Sources/Server/Web/threads.js';

/** @typedef {import('../../Sources/Server/Web/types.js').AttachmentInfo} AttachmentInfo */

/** @type {AttachmentInfo} */
const PHOTO = { id: 'a1', name: 'photo.png', mime_type: 'image/png', size: 2048, width: 640, height: 480, thumbnail: true };
/** @type {AttachmentInfo} */
const NOTES = { id: 'a2', name: 'notes.txt', mime_type: 'text/plain', size: 12, thumbnail: false };

const file = (/** @type {string} */ name, size = 100, type = 'text/plain') => ({ name, size, type });

/** @param {number} at */
const message = (text = '', at = 0) => ({ id: `m${at}`, cid: CID, user_id: 'alice', text, created_at: '2026-01-01T00:00:00Z' });

test('a chosen file uploads, becomes ready with the server\'s id, and goes with the message', () => {
  const store = signedIn();
  store.dispatch({ type: 'attachments/added', key: CID, file: pendingFile(1, file('photo.png', 2048, 'image/png'), []) });
  assert.equal(filesOf(store.getState().attachments, CID)[0].status, 'uploading');
  assert.equal(isUploading(filesOf(store.getState().attachments, CID)), true);
  // Nothing goes while a file uploads.
  assert.equal(outgoing(store.getState(), CID, message('look')), null);

  store.dispatch({ type: 'attachments/uploaded', key: CID, local: 1, attachment: PHOTO });
  const files = filesOf(store.getState().attachments, CID);
  assert.deepEqual(files.map((one) => [one.status, one.attachment && one.attachment.id]), [['ready', 'a1']]);
  assert.deepEqual(readyFiles(files), [PHOTO]);
  const sent = outgoing(store.getState(), CID, message('look'));
  assert.deepEqual(sent && [sent.text, sent.attachments], ['look', [PHOTO]]);

  store.dispatch({ type: 'attachments/sent', key: CID });
  assert.deepEqual(filesOf(store.getState().attachments, CID), []);
  assert.deepEqual(store.getState().attachments.byKey, {});
});

test('a refused upload shows why; removing a file takes it off; each composer keeps its own', () => {
  const store = signedIn();
  const thread = threadComposerKey('m1');
  store.dispatch({ type: 'attachments/added', key: CID, file: pendingFile(1, file('fake.png', 30, 'image/png'), []) });
  store.dispatch({ type: 'attachments/added', key: CID, file: pendingFile(2, file('notes.txt'), []) });
  store.dispatch({ type: 'attachments/added', key: thread, file: pendingFile(3, file('reply.txt'), []) });
  const error = uploadError('fake.png', { status: 400, message: 'That file says it is an image (image/png) but its bytes are not one.' });
  store.dispatch({ type: 'attachments/failed', key: CID, local: 1, error });
  store.dispatch({ type: 'attachments/uploaded', key: CID, local: 2, attachment: NOTES });
  let files = filesOf(store.getState().attachments, CID);
  assert.deepEqual(files.map((one) => one.status), ['failed', 'ready']);
  assert.equal(files[0].error, '“fake.png”: That file says it is an image (image/png) but its bytes are not one.');
  // A refused file is not sent; the ready one is.
  assert.deepEqual(readyFiles(files), [NOTES]);

  store.dispatch({ type: 'attachments/removed', key: CID, local: 2 });
  files = filesOf(store.getState().attachments, CID);
  assert.deepEqual(files.map((one) => one.local), [1]);
  assert.equal(outgoing(store.getState(), CID, message('  ')), null); // nothing typed, nothing ready
  // An upload that ends after its chip was removed changes nothing.
  const before = store.getState();
  store.dispatch({ type: 'attachments/uploaded', key: CID, local: 2, attachment: NOTES });
  assert.equal(store.getState(), before);

  // Sending clears the refused chips too; the thread's file waits in its own composer.
  store.dispatch({ type: 'attachments/sent', key: CID });
  assert.deepEqual(filesOf(store.getState().attachments, CID), []);
  assert.equal(filesOf(store.getState().attachments, thread).length, 1);
  store.dispatch({ type: 'session/signedOut', message: '' });
  assert.deepEqual(store.getState().attachments.byKey, {});
});

test('a file over 10 MB, or an eleventh, is refused before it is uploaded', () => {
  const big = pendingFile(1, file('movie.mp4', MAX_FILE_BYTES + 1, 'video/mp4'), []);
  assert.equal(big.status, 'failed');
  assert.equal(big.error, '“movie.mp4” is 10 MB; files can be at most 10 MB.');
  assert.equal(pendingFile(2, file('edge.bin', MAX_FILE_BYTES), []).status, 'uploading');
  const ten = Array.from({ length: MAX_FILES }, (_, index) => pendingFile(index, file(`f${index}.txt`), []));
  const eleventh = pendingFile(11, file('one-more.txt'), ten);
  assert.equal(eleventh.status, 'failed');
  assert.match(eleventh.error, /at most 10 files/);
  // Refused ones do not count.
  assert.equal(pendingFile(12, file('ok.txt'), [...ten.slice(1), big]).status, 'uploading');
  assert.equal(uploadError('huge.bin', { status: 413, message: 'HTTP 413' }), '“huge.bin” is too large; files can be at most 10 MB.');
});

test('sizes read as people read them', () => {
  assert.equal(humanSize(0), '0 bytes');
  assert.equal(humanSize(1), '1 byte');
  assert.equal(humanSize(1023), '1023 bytes');
  assert.equal(humanSize(1024), '1 KB');
  assert.equal(humanSize(1536), '1.5 KB');
  assert.equal(humanSize(20 * 1024 + 300), '20 KB');
  assert.equal(humanSize(MAX_FILE_BYTES), '10 MB');
  assert.equal(humanSize(3.25 * 1024 * 1024), '3.3 MB');
  assert.equal(humanSize(5 * 1024 ** 3), '5 GB');
});

test('with nothing typed, the files\' names are the text; typed text goes as it is', () => {
  assert.equal(textToSend('', [PHOTO]), 'photo.png');
  assert.equal(textToSend(' \n ', [PHOTO, NOTES]), 'photo.png, notes.txt');
  assert.equal(textToSend('see these', [PHOTO, NOTES]), 'see these');
  assert.equal(textToSend('  ', []), '');
  assert.equal(textToSend('hi', []), 'hi');
  const store = signedIn();
  store.dispatch({ type: 'attachments/added', key: CID, file: pendingFile(1, file('photo.png', 2048, 'image/png'), []) });
  store.dispatch({ type: 'attachments/uploaded', key: CID, local: 1, attachment: PHOTO });
  const sent = outgoing(store.getState(), CID, message(''));
  assert.equal(sent && sent.text, 'photo.png');
  // Without files, a message is what it was.
  assert.deepEqual(outgoing(signedIn().getState(), CID, message('plain')), message('plain'));
});

test('pictures are the types the server shows inline', () => {
  assert.equal(isImage(PHOTO), true);
  assert.equal(isImage({ ...PHOTO, mime_type: 'image/webp' }), true);
  assert.equal(isImage({ ...PHOTO, mime_type: 'image/svg+xml' }), false);
  assert.equal(isImage(NOTES), false);
});
