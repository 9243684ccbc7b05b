// JSON API client. The page is signed in by its session cookie (HttpOnly: no script here can
// read it); every request carries the session's CSRF token, which the sign-in answer gave and
// the page keeps in memory only. Errors become ApiError.

export class ApiError extends Error {
  /**
   * @param {number} status the HTTP status (0: the server could not be reached)
   * @param {string} code the server's stable error code
   * @param {string} message words for the user
   */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * The JSON body of a response, or its error as an ApiError.
 *
 * @param {Response} response
 * @returns {Promise<any>}
 */
async function readJSON(response) {
  let payload = null;
  try {
    payload = await response.json();
  } catch {
    payload = null;
  }
  if (!response.ok) {
    const detail = payload && payload.error ? payload.error : {};
    throw new ApiError(response.status, detail.code || 'http_error', detail.message || `HTTP ${response.status}`);
  }
  return payload;
}

/**
 * One request: the cookie goes by itself (same origin), `headers` beside it.
 *
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @param {Record<string, string>} [headers]
 * @returns {Promise<any>}
 */
async function call(method, path, body, headers = {}) {
  /** @type {RequestInit} */
  const options = body === undefined
    ? { method, headers, credentials: 'same-origin' }
    : { method, headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin' };
  let response;
  try {
    response = await fetch(path, options);
  } catch {
    throw new ApiError(0, 'network', 'The server cannot be reached.');
  }
  if (response.status === 204) return null;
  return readJSON(response);
}

/**
 * Signing in and out, and one-time links: what the page does before it has a session.
 * Each sign-in answers with the session (`Session`: user, csrf_token, expires_at, admin).
 */
export const sessions = {
  /** The session this browser's cookie holds (401 when there is none). */
  current: () => call('GET', '/api/session'),
  withPassword: (/** @type {string} */ user, /** @type {string} */ password) => call('POST', '/api/session', { user, password }),
  withToken: (/** @type {string} */ token) => call('POST', '/api/session', { token }),
  signOut: () => call('DELETE', '/api/session'),
  link: (/** @type {string} */ secret) => call('GET', `/api/links/${encodeURIComponent(secret)}`),
  useLink: (/** @type {string} */ secret, /** @type {string} */ password, /** @type {string | undefined} */ name) =>
    call('POST', `/api/links/${encodeURIComponent(secret)}`, name ? { password, name } : { password }),
};

/**
 * The API as the signed-in page calls it: the cookie goes by itself, the CSRF token with every
 * request.
 *
 * @param {string} csrf the session's CSRF token
 */
export function createApi(csrf) {
  // Sent with GETs too, though only other methods need it: when another window of this browser
  // signs in as someone else, the cookie changes under this page, and the server says so (403
  // csrf_rejected) instead of answering with the other person's data.
  /** @param {Record<string, string>} [headers] */
  const withCSRF = (headers = {}) => ({ ...headers, 'X-CSRF-Token': csrf });

  /**
   * @param {string} method
   * @param {string} path
   * @param {unknown} [body]
   * @returns {Promise<any>}
   */
  const request = (method, path, body) => call(method, path, body, withCSRF());

  /** @param {string} cid */
  const channelPath = (cid) => `/api/channels/${encodeURIComponent(cid)}`;

  return {
    me: () => request('GET', '/api/me'),
    channels: () => request('GET', '/api/channels'),
    channel: (/** @type {string} */ cid) => request('GET', channelPath(cid)),
    messages: (/** @type {string} */ cid, /** @type {string | undefined} */ before) => {
      const query = new URLSearchParams({ limit: '50' });
      if (before) query.set('before', before);
      return request('GET', `${channelPath(cid)}/messages?${query}`);
    },
    // A reply names its thread's root (`parent_id`); files uploaded before go by their ids.
    send: (/** @type {string} */ cid, /** @type {string} */ id, /** @type {string} */ text, /** @type {string | null | undefined} */ parentId,
      /** @type {string[]} */ attachmentIds = []) =>
      request('POST', `${channelPath(cid)}/messages`, {
        id, text, ...(parentId ? { parent_id: parentId } : {}), ...(attachmentIds.length ? { attachment_ids: attachmentIds } : {}),
      }),
    // A file for the reader's next message in the channel: the body is the file, with its own
    // type (the server trusts the bytes, and refuses an "image" whose bytes are not one).
    uploadAttachment: async (/** @type {string} */ cid, /** @type {File} */ file) => {
      let response;
      try {
        response = await fetch(`${channelPath(cid)}/attachments?${new URLSearchParams({ name: file.name || 'file' })}`, {
          method: 'POST',
          headers: withCSRF({ 'Content-Type': file.type || 'application/octet-stream' }),
          body: file,
          credentials: 'same-origin',
        });
      } catch {
        throw new ApiError(0, 'network', 'The server cannot be reached.');
      }
      return readJSON(response);
    },
    // Takes back an uploaded file that no message carries yet.
    removeAttachment: (/** @type {string} */ id) => request('DELETE', `/api/attachments/${encodeURIComponent(id)}`),
    // A message's file (or its thumbnail), fetched with the session and shown through a blob: URL.
    attachmentFile: async (/** @type {string} */ id, /** @type {boolean} */ thumbnail) => {
      const response = await fetch(`/api/attachments/${encodeURIComponent(id)}${thumbnail ? '/thumbnail' : ''}`, { headers: withCSRF(), credentials: 'same-origin' });
      if (!response.ok) throw new ApiError(response.status, 'http_error', `The file cannot be shown (HTTP ${response.status}).`);
      return response.blob();
    },
    // A thread: its root and a page of replies, oldest first (a reply's id stands for its thread).
    thread: (/** @type {string} */ id, /** @type {string | undefined} */ before) => {
      const query = new URLSearchParams({ limit: '50' });
      if (before) query.set('before', before);
      return request('GET', `/api/messages/${encodeURIComponent(id)}/thread?${query}`);
    },
    markThreadRead: (/** @type {string} */ id) => request('POST', `/api/messages/${encodeURIComponent(id)}/thread/read`),
    markRead: (/** @type {string} */ cid, /** @type {string | undefined} */ messageId) => request('POST', `${channelPath(cid)}/read`, messageId ? { message_id: messageId } : {}),
    typing: (/** @type {string} */ cid, /** @type {boolean} */ typing) => request('POST', `${channelPath(cid)}/typing`, { typing }),
    suggestions: (/** @type {string} */ cid, /** @type {string | undefined} */ tone, /** @type {string | undefined} */ thread) => {
      const query = new URLSearchParams();
      if (tone) query.set('tone', tone);
      if (thread) query.set('thread', thread);
      const text = query.toString();
      return request('GET', `${channelPath(cid)}/suggestions${text ? `?${text}` : ''}`);
    },
    refreshSession: () => request('POST', '/api/session/refresh'),
    signOutEverywhere: () => request('POST', '/api/session/everywhere'),
    changePassword: (/** @type {string} */ current, /** @type {string} */ next) =>
      request('PUT', '/api/me/password', current ? { current_password: current, new_password: next } : { new_password: next }),
    invite: (/** @type {string} */ user, /** @type {string} */ name, /** @type {'invite' | 'reset'} */ kind) =>
      request('POST', '/api/invites', name ? { user, name, kind } : { user, kind }),
    writingTool: (/** @type {string} */ tool, /** @type {string} */ text, /** @type {number} */ attempt) => request('POST', '/api/tools/writing', { tool, text, attempt }),
    createChannel: (/** @type {string} */ name, /** @type {string} */ topic, /** @type {boolean} */ isPublic) =>
      request('POST', '/api/team-channels', { name, topic, public: isPublic }),
    publicChannels: () => request('GET', '/api/team-channels'),
    joinChannel: (/** @type {string} */ cid) => request('POST', `${channelPath(cid)}/join`),
    // The channel of exactly the reader and `members`: one other is a direct message, several a group's.
    directMessage: (/** @type {string[]} */ members) => request('POST', '/api/channels', { members }),
    addMembers: (/** @type {string} */ cid, /** @type {string[]} */ members) => request('POST', `${channelPath(cid)}/members`, { members }),
    updateChannel: (/** @type {string} */ cid, /** @type {{ name?: string, topic?: string }} */ changes) => request('PATCH', channelPath(cid), changes),
    leaveChannel: (/** @type {string} */ cid) => request('POST', `${channelPath(cid)}/leave`),
    removeMember: (/** @type {string} */ cid, /** @type {string} */ user) => request('DELETE', `${channelPath(cid)}/members/${encodeURIComponent(user)}`),
    editMessage: (/** @type {string} */ id, /** @type {string} */ text) => request('PATCH', `/api/messages/${encodeURIComponent(id)}`, { text }),
    deleteMessage: (/** @type {string} */ id) => request('DELETE', `/api/messages/${encodeURIComponent(id)}`),
    messageEdits: (/** @type {string} */ id) => request('GET', `/api/messages/${encodeURIComponent(id)}/edits`),
    react: (/** @type {string} */ id, /** @type {string} */ emoji, /** @type {boolean} */ adding) =>
      request(adding ? 'PUT' : 'DELETE', `/api/messages/${encodeURIComponent(id)}/reactions/${encodeURIComponent(emoji)}`),
    translate: (/** @type {string} */ messageId, /** @type {string} */ language) =>
      request('POST', `/api/messages/${encodeURIComponent(messageId)}/translation`, language ? { language } : {}),
    model: () => request('GET', '/api/model'),
    modelDownload: () => request('GET', '/api/model/download'),
    startModelDownload: () => request('POST', '/api/model/download'),
    preferences: () => request('GET', '/api/me/preferences'),
    setPreferences: (/** @type {object} */ changes) => request('PUT', '/api/me/preferences', changes),
    summarize: (/** @type {string} */ cid, /** @type {object} */ options) => request('POST', `${channelPath(cid)}/summary`, options),
    event: (/** @type {string} */ messageId, /** @type {string} */ timeZone) =>
      request('POST', `/api/messages/${encodeURIComponent(messageId)}/event`, { time_zone: timeZone }),
    search: (/** @type {string} */ query) => request('GET', `/api/search?${new URLSearchParams({ q: query, limit: '20' })}`),
    suggestSearches: (/** @type {string} */ topic) => request('POST', '/api/search/suggestions', { topic }),
    job: (/** @type {string} */ id) => request('GET', `/api/jobs/${encodeURIComponent(id)}`),
    // OpenAI's transcription route on the server's Whisper: a multipart form, the audio a WAV file.
    transcribe: async (/** @type {Blob} */ audio) => {
      const form = new FormData();
      form.append('file', audio, 'dictation.wav');
      form.append('model', 'whisper-1');
      form.append('response_format', 'json');
      let response;
      try {
        response = await fetch('/v1/audio/transcriptions', { method: 'POST', headers: withCSRF(), body: form });
      } catch {
        throw new ApiError(0, 'network', 'The server cannot be reached.');
      }
      return /** @type {Promise<{ text: string }>} */ (readJSON(response));
    },
    cancelJob: (/** @type {string} */ id) => request('DELETE', `/api/jobs/${encodeURIComponent(id)}`),
    ...assistantCalls(request, withCSRF),
  };
}

/**
 * The assistant's routes.
 *
 * @param {(method: string, path: string, body?: unknown) => Promise<any>} request
 * @param {(headers?: Record<string, string>) => Record<string, string>} withCSRF
 */
function assistantCalls(request, withCSRF) {
  /** @param {string} id @param {string} [rest] */
  const path = (id, rest = '') => `/api/assistant/conversations/${encodeURIComponent(id)}${rest}`;
  return {
    assistant: () => request('GET', '/api/assistant'),
    setAssistantSettings: (/** @type {object} */ changes) => request('PUT', '/api/assistant/settings', changes),
    assistantConversations: () => request('GET', '/api/assistant/conversations'),
    createAssistantConversation: (/** @type {object} */ settings) => request('POST', '/api/assistant/conversations', settings),
    assistantConversation: (/** @type {string} */ id) => request('GET', path(id)),
    renameAssistantConversation: (/** @type {string} */ id, /** @type {string} */ title) => request('PATCH', path(id), { title }),
    setAssistantConversationSettings: (/** @type {string} */ id, /** @type {object} */ settings) => request('PUT', path(id, '/settings'), settings),
    deleteAssistantConversation: (/** @type {string} */ id) => request('DELETE', path(id)),
    sendAssistantMessage: (/** @type {string} */ id, /** @type {string} */ text, /** @type {string[]} */ imageIds = []) =>
      request('POST', path(id, '/messages'), imageIds.length ? { text, image_ids: imageIds } : { text }),
    // An image goes as the file itself (the server reads its first bytes to know what it is).
    attachAssistantImage: async (/** @type {string} */ id, /** @type {File} */ file) => {
      let response;
      try {
        response = await fetch(path(id, '/images'), {
          method: 'POST',
          headers: withCSRF({ 'Content-Type': file.type || 'application/octet-stream' }),
          body: file,
        });
      } catch {
        throw new ApiError(0, 'network', 'The server cannot be reached.');
      }
      return readJSON(response);
    },
    // Fetched with the session, shown through a blob: URL.
    assistantImage: async (/** @type {string} */ id, /** @type {string} */ imageId) => {
      const response = await fetch(path(id, `/images/${encodeURIComponent(imageId)}`), { headers: withCSRF() });
      if (!response.ok) throw new ApiError(response.status, 'http_error', `The image cannot be shown (HTTP ${response.status}).`);
      return response.blob();
    },
    // Image Playground: the server asks its image server and keeps the image as one waiting to
    // be sent (201 with its ImageInfo, `generated_by` the model); it may take tens of seconds.
    generateAssistantImage: (/** @type {string} */ id, /** @type {string} */ prompt, /** @type {string} */ size) =>
      request('POST', path(id, '/images/generations'), { prompt, size }),
    removeAssistantImage: (/** @type {string} */ id, /** @type {string} */ imageId) => request('DELETE', path(id, `/images/${encodeURIComponent(imageId)}`)),
    stopAssistant: (/** @type {string} */ id) => request('POST', path(id, '/stop')),
    regenerateAssistant: (/** @type {string} */ id) => request('POST', path(id, '/regenerate')),
    continueAssistant: (/** @type {string} */ id) => request('POST', path(id, '/continue')),
    summarizeAssistant: (/** @type {string} */ id) => request('POST', path(id, '/summary')),
    translateAssistantMessage: (/** @type {string} */ id, /** @type {string} */ messageId, /** @type {string} */ language) =>
      request('POST', path(id, `/messages/${encodeURIComponent(messageId)}/translation`), { language }),
    searchAssistant: (/** @type {string} */ query) => request('GET', `/api/assistant/search?${new URLSearchParams({ q: query, limit: '20' })}`),
    exportAssistantConversation: async (/** @type {string} */ id) => {
      const response = await fetch(path(id, '/export'), { headers: withCSRF() });
      if (!response.ok) throw new ApiError(response.status, 'http_error', `Export failed (HTTP ${response.status}).`);
      const disposition = response.headers.get('Content-Disposition') || '';
      const match = /filename="([^"]+)"/.exec(disposition);
      return { blob: await response.blob(), filename: match ? match[1] : 'conversation.md' };
    },
  };
}

/** @typedef {ReturnType<typeof createApi>} Api */
