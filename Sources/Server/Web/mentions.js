// `@user-id` mentions, by the server's rule (ChatStore's `Mentions`): an id stands as a word of
// its own (not inside an e-mail address or a longer id; a full stop may end the sentence after
// it), compared without case. The text's pieces for highlighting, whether it mentions someone,
// and the members the composer offers for the `@…` being typed.

const ID_CHARACTER = /[A-Za-z0-9_.@-]/;

/**
 * The text in pieces, each `@id` found a piece of its own with the id.
 *
 * @param {string} text
 * @returns {Array<{ text: string, mention: string | null }>}
 */
export function mentionPieces(text) {
  /** @type {Array<{ text: string, mention: string | null }>} */
  const pieces = [];
  let plain = '';
  let index = 0;
  while (index < text.length) {
    const at = text[index] === '@' && (index === 0 || !ID_CHARACTER.test(text[index - 1]));
    let end = index + 1;
    if (at) {
      while (end < text.length && ID_CHARACTER.test(text[end])) end += 1;
      // A full stop (or several) at the end belongs to the sentence.
      while (end > index + 1 && text[end - 1] === '.') end -= 1;
    }
    if (at && end - index > 1 && end - index <= 65) {
      if (plain) pieces.push({ text: plain, mention: null });
      plain = '';
      pieces.push({ text: text.slice(index, end), mention: text.slice(index + 1, end) });
      index = end;
    } else {
      plain += text[index];
      index += 1;
    }
  }
  if (plain) pieces.push({ text: plain, mention: null });
  return pieces;
}

/**
 * Whether `text` mentions `user`.
 *
 * @param {string} user
 * @param {string} text
 */
export function mentions(user, text) {
  const wanted = user.toLowerCase();
  return mentionPieces(text).some((piece) => piece.mention !== null && piece.mention.toLowerCase() === wanted);
}

/**
 * The `@…` being typed just before the caret, without its `@`, or null.
 *
 * @param {string} text
 * @param {number} caret
 */
export function mentionQuery(text, caret) {
  const match = /(^|[^A-Za-z0-9_.@-])@([A-Za-z0-9_.-]{0,64})$/.exec(text.slice(0, caret));
  return match ? match[2] : null;
}

/**
 * Members whose id or name starts with `query` (any case), at most five, for the composer.
 *
 * @param {string} query
 * @param {Array<{ id: string, name: string }>} members
 * @param {string | null} me left out
 */
export function mentionChoices(query, members, me) {
  const wanted = query.toLowerCase();
  return members
    .filter((member) => member.id !== me)
    .filter((member) => member.id.toLowerCase().startsWith(wanted) || member.name.toLowerCase().startsWith(wanted))
    .slice(0, 5);
}

/**
 * The text with the `@…` before the caret replaced by `@id `, and where the caret goes.
 *
 * @param {string} text
 * @param {number} caret
 * @param {string} id
 */
export function completeMention(text, caret, id) {
  const query = mentionQuery(text, caret);
  if (query === null) return { text, caret };
  const start = caret - query.length - 1;
  const inserted = `@${id} `;
  return { text: text.slice(0, start) + inserted + text.slice(caret), caret: start + inserted.length };
}

/**
 * The browser notification a new message deserves while the page is hidden: a mention of the
 * reader, or anything in a direct message (a channel of two), in a thread's replies as well.
 * Null for the rest.
 *
 * @param {import('./types.js').Message} message
 * @param {import('./types.js').ChannelSummary | undefined} summary its channel, if listed
 * @param {string | null} me
 * @returns {{ title: string, body: string } | null}
 */
export function notificationFor(message, summary, me) {
  if (!me || message.user_id === me || message.deleted_at) return null;
  const direct = Boolean(summary && summary.members.length === 2);
  if (!direct && !mentions(me, message.text)) return null;
  const author = (summary && summary.members.find((member) => member.id === message.user_id)) || null;
  const name = author ? author.name : message.user_id;
  const body = message.text.length > 200 ? `${message.text.slice(0, 199)}…` : message.text;
  const title = direct || !summary ? name : `${name} in ${summary.channel.name}`;
  // A reply in a thread says so: it is not in the channel's list.
  return { title: message.parent_id ? `${title} (thread)` : title, body };
}
