// The open assistant conversation's images as blob: URLs: a file just attached is shown from
// the file itself; a stored one is fetched once with the token (never in a URL). Let go when
// another conversation opens. A cache of bytes, not app state: the store holds image ids.

export class ImageCache {
  /** @param {(conversationId: string, imageId: string) => Promise<Blob>} fetchImage */
  constructor(fetchImage) {
    this.fetchImage = fetchImage;
    /** @type {Map<string, Promise<string>>} */
    this.urls = new Map();
    /** @type {string[]} */
    this.made = [];
    this.conversation = '';
  }

  /**
   * The images from now on are of this conversation; the URLs of another's are let go.
   *
   * @param {string} conversationId
   */
  use(conversationId) {
    if (conversationId === this.conversation) return;
    for (const url of this.made) URL.revokeObjectURL(url);
    this.made = [];
    this.urls.clear();
    this.conversation = conversationId;
  }

  /**
   * A URL for a file just attached as `imageId`.
   *
   * @param {string} imageId
   * @param {Blob} file
   */
  remember(imageId, file) {
    const url = URL.createObjectURL(file);
    this.made.push(url);
    this.urls.set(imageId, Promise.resolve(url));
  }

  /**
   * The URL of one of the conversation's images (rejects when it cannot be fetched).
   *
   * @param {string} imageId
   * @returns {Promise<string>}
   */
  url(imageId) {
    let url = this.urls.get(imageId);
    if (!url) {
      url = this.fetchImage(this.conversation, imageId).then((blob) => {
        const made = URL.createObjectURL(blob);
        this.made.push(made);
        return made;
      });
      url.catch(() => this.urls.delete(imageId));
      this.urls.set(imageId, url);
    }
    return url;
  }
}
