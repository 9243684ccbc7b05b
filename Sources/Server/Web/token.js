// When to refresh the sign-in token: a JWT's expiry, read from its claims.

/**
 * Seconds since 1970 at which a JWT expires, or null (never, or not readable).
 *
 * @param {string} token
 * @returns {number | null}
 */
export function expiryOf(token) {
  try {
    const part = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const claims = JSON.parse(atob(part + '='.repeat((4 - (part.length % 4)) % 4)));
    return typeof claims.exp === 'number' ? claims.exp : null;
  } catch {
    return null;
  }
}

/**
 * How long to wait before asking for a fresh token: until four fifths of this one's life are
 * gone (at least a second), so requests and the next socket never carry an expired one. Null
 * for a token that never expires.
 *
 * @param {string} token
 * @param {number} nowMs
 * @returns {number | null}
 */
export function refreshDelay(token, nowMs) {
  const exp = expiryOf(token);
  if (exp === null) return null;
  return Math.max(1000, (exp * 1000 - nowMs) * 0.8);
}
