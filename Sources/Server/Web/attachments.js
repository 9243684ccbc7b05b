// Files waiting to go with a message, per composer (a channel's by cid, a thread's as
// `thread:<root>`): each is uploaded as soon as it is chosen (POST …/attachments), and waits as
// a chip — uploading, ready with the server's id, or refused with the reason — until Send takes
// the ready ones. Also the words the chips and messages show: sizes, and the text a message
// carries when the person typed none (the server wants some).

/**
 * @typedef {import('./state.js').Action} Action
 * @typedef {import('./types.js').AttachmentInfo} AttachmentInfo
 *
 * @typedef {object} PendingFile
 * @property {number} local the page's number for it (the server's id comes later)
 * @property {string} name
 * @property {number} size in bytes
 * @property {string} type what the browser says it is ('' when it does not know)
 * @property {'uploading' | 'ready' | 'failed'} status
 * @property {AttachmentInfo | null} attachment the server's, once uploaded
 * @property {string} error why it was refused ('' otherwise)
 *
 * @typedef {object} AttachmentsState
 * @property {Record<string, PendingFile[]>} byKey by composer key, in the order chosen
 *
 * @typedef {{ type: 'attachments/added', key: string, file: PendingFile }
 *   | { type: 'attachments/uploaded', key: string, local: number, attachment: AttachmentInfo }
 *   | { type: 'attachments/failed', key: string, local: number, error: string }
 *   | { type: 'attachments/removed', key: string, local: number }
 *   | { type: 'attachments/sent', key: string }} AttachmentsAction
 */

/** The largest file the server takes (its `maxAttachmentBytes`). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** At most this many files go with one message. */
export const MAX_FILES = 10;

/** @type {AttachmentsState} */
export const initialAttachments = { byKey: {} };

/** @type {PendingFile[]} */
const NONE = [];

/**
 * @param {AttachmentsState} state
 * @param {Action} action
 * @returns {AttachmentsState}
 */
export function attachments(state, action) {
  switch (action.type) {
    case 'attachments/added':
      return put(state, action.key, [...filesOf(state, action.key), action.file]);
    case 'attachments/uploaded':
      return change(state, action.key, action.local, (file) => ({ ...file, status: 'ready', attachment: action.attachment, error: '' }));
    case 'attachments/failed':
      return change(state, action.key, action.local, (file) => ({ ...file, status: 'failed', attachment: null, error: action.error }));
    case 'attachments/removed': {
      const files = filesOf(state, action.key);
      const kept = files.filter((file) => file.local !== action.local);
      return kept.length === files.length ? state : put(state, action.key, kept);
    }
    case 'attachments/sent': {
      // The ready ones went with the message; the refused ones go with them (their reason was
      // read). Sending waits while one is uploading, so none is.
      const files = filesOf(state, action.key);
      const kept = files.filter((file) => file.status === 'uploading');
      return kept.length === files.length ? state : put(state, action.key, kept);
    }
    case 'session/signedOut':
      return initialAttachments;
    default:
      return state;
  }
}

/**
 * @param {AttachmentsState} state
 * @param {string} key
 * @param {PendingFile[]} files
 * @returns {AttachmentsState}
 */
function put(state, key, files) {
  const byKey = { ...state.byKey };
  if (files.length) byKey[key] = files;
  else delete byKey[key];
  return { byKey };
}

/**
 * @param {AttachmentsState} state
 * @param {string} key
 * @param {number} local
 * @param {(file: PendingFile) => PendingFile} update
 */
function change(state, key, local, update) {
  const files = filesOf(state, key);
  if (!files.some((file) => file.local === local)) return state; // removed meanwhile
  return put(state, key, files.map((file) => (file.local === local ? update(file) : file)));
}

/**
 * A composer's waiting files.
 *
 * @param {AttachmentsState} state
 * @param {string | null} key
 * @returns {PendingFile[]}
 */
export function filesOf(state, key) {
  return (key && state.byKey[key]) || NONE;
}

/**
 * A chosen file as it starts: uploading, or refused at once when the server would refuse it
 * (too large, or one more than a message takes), so that it is never sent.
 *
 * @param {number} local
 * @param {{ name: string, size: number, type: string }} file
 * @param {PendingFile[]} waiting the composer's files so far
 * @returns {PendingFile}
 */
export function pendingFile(local, file, waiting) {
  const start = { local, name: file.name, size: file.size, type: file.type, attachment: null };
  const counted = waiting.filter((one) => one.status !== 'failed').length;
  const error = file.size > MAX_FILE_BYTES
    ? `“${file.name}” is ${humanSize(file.size)}; files can be at most ${humanSize(MAX_FILE_BYTES)}.`
    : counted >= MAX_FILES ? `“${file.name}”: at most ${MAX_FILES} files go with one message.` : '';
  return { ...start, status: error ? 'failed' : 'uploading', error };
}

/**
 * Why an upload was refused, in words: the server's own for a file it read and refused
 * (`mislabelled_file`, `unreadable_image`), the limit for one too large.
 *
 * @param {string} name
 * @param {{ status: number, message: string }} error
 */
export function uploadError(name, error) {
  if (error.status === 413) return `“${name}” is too large; files can be at most ${humanSize(MAX_FILE_BYTES)}.`;
  return `“${name}”: ${error.message}`;
}

/** @param {PendingFile[]} files */
export function readyFiles(files) {
  return files.filter((file) => file.status === 'ready' && file.attachment)
    .map((file) => /** @type {AttachmentInfo} */ (file.attachment));
}

/** @param {PendingFile[]} files */
export function isUploading(files) {
  return files.some((file) => file.status === 'uploading');
}

/**
 * The text a message goes with: what the person typed, or, when they typed nothing and files go
 * with it, the files' names ('' when there is nothing to send).
 *
 * @param {string} text
 * @param {AttachmentInfo[]} files
 */
export function textToSend(text, files) {
  if (text.trim()) return text;
  return files.map((file) => file.name).join(', ');
}

/**
 * A composer's message as it goes: its text (the files' names when none was typed) and its
 * uploaded files; null when there is nothing to send or a file is still uploading.
 *
 * @param {{ attachments: AttachmentsState }} state the app's
 * @param {string} key the composer's
 * @param {import('./types.js').Message} message
 * @returns {import('./types.js').Message | null}
 */
export function outgoing(state, key, message) {
  const waiting = filesOf(state.attachments, key);
  if (isUploading(waiting)) return null;
  const files = readyFiles(waiting);
  const text = textToSend(message.text, files);
  if (!text) return null;
  return files.length ? { ...message, text, attachments: files } : { ...message, text };
}

/**
 * A size as people read it: "512 bytes", "2 KB", "1.5 MB" (powers of 1024, one decimal under 10).
 *
 * @param {number} bytes
 */
export function humanSize(bytes) {
  if (bytes < 1024) return bytes === 1 ? '1 byte' : `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const shown = value < 10 ? Math.round(value * 10) / 10 : Math.round(value);
  return `${shown} ${units[unit]}`;
}

/**
 * Whether a message shows the file as a picture (the server serves these inline).
 *
 * @param {AttachmentInfo} attachment
 */
export function isImage(attachment) {
  return /^image\/(png|jpeg|gif|webp)$/.test(attachment.mime_type);
}

/**
 * The file's route, which the browser opens (an image) or downloads (anything else) with the
 * session's cookie.
 *
 * @param {string} id
 */
export function fileURL(id) {
  return `/api/attachments/${encodeURIComponent(id)}`;
}
