// Files in the chat: a composer's Attach button (several files at once; a dropped file or a
// pasted image too) and its chips above the text — a preview or the file's kind, the name, the
// size, "Uploading…" or why it was refused, and × — and a message's files: pictures as their
// thumbnail, which opens the full image in a new tab, anything else as a download link with its
// name and size. Names are text, always.

import { button, el, icon, setText } from './dom.js';
import { watch } from './store.js';
import { filesOf, fileURL, humanSize, isImage, isUploading } from './attachments.js';

/**
 * @typedef {import('./state.js').State} State
 * @typedef {import('./attachments.js').PendingFile} PendingFile
 * @typedef {import('./types.js').AttachmentInfo} AttachmentInfo
 *
 * @typedef {object} AttachHandlers
 * @property {(key: string, files: File[]) => void} attach
 * @property {(key: string, local: number) => void} remove
 * @property {(local: number) => string | null} preview a chosen image's blob: URL
 */

/**
 * The Attach button before Send, and the chips above the composer.
 *
 * @param {import('./state.js').AppStore} store
 * @param {{ form: HTMLFormElement, textarea: HTMLTextAreaElement, key: (state: State) => string | null, handlers: AttachHandlers }} binding
 */
export function mountAttachments(store, binding) {
  const { form, textarea, handlers } = binding;
  const key = () => binding.key(store.getState());
  const input = el('input');
  input.type = 'file';
  input.multiple = true;
  input.hidden = true;
  input.className = 'attach-input';
  const attach = button('', () => input.click(), 'attach');
  attach.append(paperclip());
  attach.setAttribute('aria-label', 'Attach files');
  attach.title = 'Attach files (up to 10 MB each)';
  /** @param {File[]} files */
  const take = (files) => {
    const current = key();
    if (current && files.length) handlers.attach(current, files);
  };
  input.addEventListener('change', () => {
    const files = Array.from(input.files || []);
    input.value = '';
    take(files);
  });
  form.insertBefore(attach, form.querySelector('button[type="submit"]'));
  form.append(input);

  // A file dropped on the composer, or an image pasted into its text.
  form.addEventListener('dragover', (event) => {
    if (!event.dataTransfer || !Array.from(event.dataTransfer.types).includes('Files')) return;
    event.preventDefault();
    form.classList.add('dropping');
  });
  form.addEventListener('dragleave', () => form.classList.remove('dropping'));
  form.addEventListener('drop', (event) => {
    form.classList.remove('dropping');
    const files = Array.from((event.dataTransfer && event.dataTransfer.files) || []);
    if (!files.length) return;
    event.preventDefault();
    take(files);
  });
  textarea.addEventListener('paste', (event) => {
    const files = Array.from((event.clipboardData && event.clipboardData.files) || []);
    if (!files.length) return;
    event.preventDefault();
    take(files);
  });

  const list = el('ul', 'pending-files');
  list.setAttribute('aria-label', 'Files to send');
  list.hidden = true;
  form.prepend(list);
  const note = el('p', 'pending-note');
  note.setAttribute('role', 'status');
  note.hidden = true;
  list.after(note);

  watch(store, (state) => filesOf(state.attachments, binding.key(state)), (files) => {
    const current = key();
    list.replaceChildren(...files.map((file) => chip(file, handlers, current)));
    list.hidden = files.length === 0;
    const uploading = isUploading(files);
    setText(note, uploading ? 'Send waits until the files are uploaded.' : '');
    note.hidden = !uploading;
  });
  watch(store, (state) => binding.key(state), (current) => { attach.disabled = !current; });
}

/** A paperclip, drawn in the button's text colour (an emoji has no font on some systems). */
function paperclip() {
  return icon([['path', {
    d: 'M20.5 11.5l-8.6 8.6a5.5 5.5 0 0 1-7.8-7.8l8.9-8.9a3.7 3.7 0 0 1 5.2 5.2l-8.9 8.9a1.8 1.8 0 0 1-2.6-2.6l8.2-8.2',
    fill: 'none', stroke: 'currentColor', 'stroke-width': '2', 'stroke-linecap': 'round', 'stroke-linejoin': 'round',
  }]]);
}

/**
 * One waiting file.
 *
 * @param {PendingFile} file
 * @param {AttachHandlers} handlers
 * @param {string | null} key
 */
function chip(file, handlers, key) {
  const item = el('li', `pending-file ${file.status}`);
  item.dataset.status = file.status;
  // A refused "image" may be no image at all: it shows its kind, as a picture that cannot be
  // drawn does.
  const preview = file.status === 'failed' ? null : handlers.preview(file.local);
  const kind = el('span', 'file-kind', kindOf(file.name));
  if (preview) {
    const image = el('img', 'pending-thumbnail');
    image.alt = '';
    image.addEventListener('error', () => image.replaceWith(kind));
    image.src = preview;
    item.append(image);
  } else {
    item.append(kind);
  }
  const about = el('span', 'pending-about');
  about.append(el('span', 'file-name', file.name), el('span', 'file-size', humanSize(file.size)));
  if (file.status === 'uploading') about.append(el('span', 'pending-status', 'Uploading…'));
  if (file.status === 'failed') {
    const error = el('span', 'pending-error', file.error);
    error.setAttribute('role', 'alert');
    about.append(error);
  }
  const remove = button('×', () => { if (key) handlers.remove(key, file.local); }, 'remove-file');
  remove.setAttribute('aria-label', `Remove ${file.name}`);
  remove.title = 'Remove';
  item.append(about, remove);
  return item;
}

/**
 * A file's extension as a small label ("PDF", "TXT"; "FILE" without one).
 *
 * @param {string} name
 */
function kindOf(name) {
  const match = /\.([A-Za-z0-9]{1,5})$/.exec(name);
  return match ? match[1].toUpperCase() : 'FILE';
}

/**
 * A message's files, drawn again only when they change.
 *
 * @param {HTMLElement} node the message's `.attachments` box
 * @param {AttachmentInfo[]} attachments
 * @param {(attachment: AttachmentInfo) => Promise<string>} picture a picture's blob: URL
 */
export function drawAttachments(node, attachments, picture) {
  const key = attachments.map((attachment) => attachment.id).join(' ');
  if (node.dataset.drawn === key) return;
  node.dataset.drawn = key;
  node.replaceChildren(...attachments.map((attachment) => (isImage(attachment) ? pictureLink(attachment, picture) : downloadLink(attachment))));
}

/**
 * A picture: its thumbnail, a link that opens the full image in a new tab (the file's route,
 * with the session's cookie).
 *
 * @param {AttachmentInfo} attachment
 * @param {(attachment: AttachmentInfo) => Promise<string>} picture
 */
function pictureLink(attachment, picture) {
  const link = el('a', 'attachment-image');
  link.href = fileURL(attachment.id);
  link.target = '_blank';
  link.rel = 'noopener';
  link.title = `${attachment.name} · ${humanSize(attachment.size)}: open the full image`;
  link.dataset.attachmentId = attachment.id;
  const image = el('img', 'attachment-thumbnail');
  image.alt = attachment.name;
  if (attachment.width && attachment.height) {
    // The space it takes before it loads (a thumbnail is at most 320 pixels a side).
    const scale = Math.min(1, 240 / Math.max(attachment.width, attachment.height));
    image.width = Math.max(1, Math.round(attachment.width * scale));
    image.height = Math.max(1, Math.round(attachment.height * scale));
  }
  picture(attachment).then((url) => { image.src = url; }, () => {
    image.alt = `${attachment.name} (it cannot be shown)`;
    image.classList.add('missing');
  });
  link.append(image);
  return link;
}

/**
 * Any other file: a download link with its name and size.
 *
 * @param {AttachmentInfo} attachment
 */
function downloadLink(attachment) {
  const link = el('a', 'attachment-file');
  link.href = fileURL(attachment.id);
  link.download = attachment.name;
  link.dataset.attachmentId = attachment.id;
  link.append(el('span', 'file-kind', kindOf(attachment.name)), el('span', 'file-name', attachment.name),
    el('span', 'file-size', humanSize(attachment.size)));
  link.setAttribute('aria-label', `Download ${attachment.name}, ${humanSize(attachment.size)}`);
  return link;
}
