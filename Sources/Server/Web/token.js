// When to refresh the session: before its cookie expires, so requests and the next socket
// never carry an expired one.

/**
 * How long to wait before asking for a fresh session: until four fifths of what is left of this
 * one are gone (at least a second). Null for a session that never expires.
 *
 * @param {number | null | undefined} expiresAt seconds since 1970, as the server says
 * @param {number} nowMs the wall clock (Date.now())
 * @returns {number | null}
 */
export function refreshDelay(expiresAt, nowMs) {
  if (typeof expiresAt !== 'number') return null;
  return Math.max(1000, (expiresAt * 1000 - nowMs) * 0.8);
}
