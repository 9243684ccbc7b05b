// Files in the channels' composers and messages: a chosen file is uploaded at once (one request
// each, side by side) and its chip follows the upload; and the blob: URLs the chips and messages
// show pictures through — a file just chosen from the file itself, a message's from the server,
// fetched once with the session. The URLs are a cache of bytes, not app state: the store holds
// the files' names and ids.

import { ApiError } from './api.js';
import { filesOf, isImage, pendingFile, uploadError } from './attachments.js';

/**
 * @typedef {import('./context.js').AppContext} AppContext
 * @typedef {import('./types.js').AttachmentInfo} AttachmentInfo
 */

/**
 * @param {AppContext} ctx
 * @param {{ cidOf: (key: string) => string | null }} composers the channel a composer key sends to
 */
export function attachmentEffects(ctx, composers) {
  const { store } = ctx;
  // Previews of chosen files, by their local number; pictures of messages' files, by attachment id.
  /** @type {Map<number, string>} */
  const previews = new Map();
  /** @type {Map<string, Promise<string>>} */
  const pictures = new Map();

  /**
   * Uploads files chosen (or dropped, or pasted) into a composer.
   *
   * @param {string} key the composer's
   * @param {File[]} files
   */
  function attach(key, files) {
    const cid = composers.cidOf(key);
    if (!cid) return;
    for (const file of files) {
      const local = ctx.nonce();
      const pending = pendingFile(local, file, filesOf(store.getState().attachments, key));
      if (pending.status !== 'failed' && file.type.startsWith('image/')) previews.set(local, URL.createObjectURL(file));
      store.dispatch({ type: 'attachments/added', key, file: pending });
      if (pending.status === 'uploading') upload(key, cid, local, file);
    }
  }

  /**
   * @param {string} key
   * @param {string} cid
   * @param {number} local
   * @param {File} file
   */
  async function upload(key, cid, local, file) {
    try {
      const result = await ctx.api().uploadAttachment(cid, file);
      /** @type {AttachmentInfo} */
      const attachment = result.attachment;
      // The sender's own message shows the picture from the file they chose.
      const preview = previews.get(local);
      if (preview && isImage(attachment)) pictures.set(attachment.id, Promise.resolve(preview));
      store.dispatch({ type: 'attachments/uploaded', key, local, attachment });
    } catch (error) {
      const shown = error instanceof ApiError ? error : new ApiError(0, 'network', String(error));
      store.dispatch({ type: 'attachments/failed', key, local, error: uploadError(file.name, shown) });
      if (shown.status === 401) ctx.fail(error);
    }
  }

  /**
   * Takes a waiting file off the composer, and an uploaded one back from the server (best
   * effort: one left there is never sent, as a message carries only the ids it names).
   *
   * @param {string} key
   * @param {number} local
   */
  function remove(key, local) {
    const uploaded = filesOf(store.getState().attachments, key).find((file) => file.local === local)?.attachment;
    store.dispatch({ type: 'attachments/removed', key, local });
    if (uploaded) ctx.api().removeAttachment(uploaded.id).catch(() => {});
  }

  /**
   * The preview of a chosen image (null for other files).
   *
   * @param {number} local
   */
  function preview(local) {
    return previews.get(local) || null;
  }

  /**
   * The URL a message shows one of its pictures through: its thumbnail when the server made one,
   * else the file (rejects when it cannot be fetched).
   *
   * @param {AttachmentInfo} attachment
   * @returns {Promise<string>}
   */
  function picture(attachment) {
    let url = pictures.get(attachment.id);
    if (!url) {
      url = ctx.api().attachmentFile(attachment.id, attachment.thumbnail).then((blob) => URL.createObjectURL(blob));
      url.catch(() => pictures.delete(attachment.id));
      pictures.set(attachment.id, url);
    }
    return url;
  }

  store.listen((action) => {
    if (action.type !== 'session/signedOut') return;
    for (const url of previews.values()) URL.revokeObjectURL(url);
    previews.clear();
    for (const url of pictures.values()) url.then((made) => URL.revokeObjectURL(made), () => {});
    pictures.clear();
  });

  return { attach, remove, preview, picture };
}
