// JSON API client. Every call sends the bearer token; errors become ApiError.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/// The JSON body of a response, or its error as an ApiError.
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

export function createApi(token) {
  async function request(method, path, body) {
    const options = { method, headers: { Authorization: `Bearer ${token}` } };
    if (body !== undefined) {
      options.headers['Content-Type'] = 'application/json';
      options.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, options);
    } catch (error) {
      throw new ApiError(0, 'network', 'The server cannot be reached.');
    }
    return readJSON(response);
  }

  const channelPath = (cid) => `/api/channels/${encodeURIComponent(cid)}`;

  return {
    me: () => request('GET', '/api/me'),
    channels: () => request('GET', '/api/channels'),
    channel: (cid) => request('GET', channelPath(cid)),
    messages: (cid, before) => {
      const query = new URLSearchParams({ limit: '50' });
      if (before) query.set('before', before);
      return request('GET', `${channelPath(cid)}/messages?${query}`);
    },
    send: (cid, id, text) => request('POST', `${channelPath(cid)}/messages`, { id, text }),
    markRead: (cid, messageId) => request('POST', `${channelPath(cid)}/read`, messageId ? { message_id: messageId } : {}),
    typing: (cid, typing) => request('POST', `${channelPath(cid)}/typing`, { typing }),
    suggestions: (cid, tone) => request('GET', `${channelPath(cid)}/suggestions${tone ? `?tone=${tone}` : ''}`),
    refreshToken: () => request('POST', '/api/token'),
    writingTool: (tool, text, attempt) => request('POST', '/api/tools/writing', { tool, text, attempt }),
    translate: (messageId, language) =>
      request('POST', `/api/messages/${encodeURIComponent(messageId)}/translation`, language ? { language } : {}),
    model: () => request('GET', '/api/model'),
    modelDownload: () => request('GET', '/api/model/download'),
    startModelDownload: () => request('POST', '/api/model/download'),
    preferences: () => request('GET', '/api/me/preferences'),
    setPreferences: (changes) => request('PUT', '/api/me/preferences', changes),
    summarize: (cid, options) => request('POST', `${channelPath(cid)}/summary`, options),
    event: (messageId, timeZone) =>
      request('POST', `/api/messages/${encodeURIComponent(messageId)}/event`, { time_zone: timeZone }),
    search: (query) => request('GET', `/api/search?${new URLSearchParams({ q: query, limit: '20' })}`),
    suggestSearches: (topic) => request('POST', '/api/search/suggestions', { topic }),
    job: (id) => request('GET', `/api/jobs/${encodeURIComponent(id)}`),
    cancelJob: (id) => request('DELETE', `/api/jobs/${encodeURIComponent(id)}`),
    ...assistantCalls(request, token),
  };
}

/// The assistant's routes (assistant.js).
function assistantCalls(request, token) {
  const path = (id, rest = '') => `/api/assistant/conversations/${encodeURIComponent(id)}${rest}`;
  return {
    assistant: () => request('GET', '/api/assistant'),
    setAssistantSettings: (changes) => request('PUT', '/api/assistant/settings', changes),
    assistantConversations: () => request('GET', '/api/assistant/conversations'),
    createAssistantConversation: (settings) => request('POST', '/api/assistant/conversations', settings),
    assistantConversation: (id) => request('GET', path(id)),
    renameAssistantConversation: (id, title) => request('PATCH', path(id), { title }),
    setAssistantConversationSettings: (id, settings) => request('PUT', path(id, '/settings'), settings),
    deleteAssistantConversation: (id) => request('DELETE', path(id)),
    sendAssistantMessage: (id, text, imageIds = []) =>
      request('POST', path(id, '/messages'), imageIds.length ? { text, image_ids: imageIds } : { text }),
    // An image goes as the file itself (the server reads its first bytes to know what it is).
    attachAssistantImage: async (id, file) => {
      let response;
      try {
        response = await fetch(path(id, '/images'), {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': file.type || 'application/octet-stream' },
          body: file,
        });
      } catch {
        throw new ApiError(0, 'network', 'The server cannot be reached.');
      }
      return readJSON(response);
    },
    // Fetched with the token in a header (never in a URL), shown through a blob: URL.
    assistantImage: async (id, imageId) => {
      const response = await fetch(path(id, `/images/${encodeURIComponent(imageId)}`),
        { headers: { Authorization: `Bearer ${token}` } });
      if (!response.ok) throw new ApiError(response.status, 'http_error', `The image cannot be shown (HTTP ${response.status}).`);
      return response.blob();
    },
    removeAssistantImage: (id, imageId) => request('DELETE', path(id, `/images/${encodeURIComponent(imageId)}`)),
    stopAssistant: (id) => request('POST', path(id, '/stop')),
    regenerateAssistant: (id) => request('POST', path(id, '/regenerate')),
    continueAssistant: (id) => request('POST', path(id, '/continue')),
    summarizeAssistant: (id) => request('POST', path(id, '/summary')),
    translateAssistantMessage: (id, messageId, language) =>
      request('POST', path(id, `/messages/${encodeURIComponent(messageId)}/translation`), { language }),
    searchAssistant: (query) => request('GET', `/api/assistant/search?${new URLSearchParams({ q: query, limit: '20' })}`),
    exportAssistantConversation: async (id) => {
      const response = await fetch(path(id, '/export'), { headers: { Authorization: `Bearer ${token}` } });
      if (!response.ok) throw new ApiError(response.status, 'http_error', `Export failed (HTTP ${response.status}).`);
      const disposition = response.headers.get('Content-Disposition') || '';
      const match = /filename="([^"]+)"/.exec(disposition);
      return { blob: await response.blob(), filename: match ? match[1] : 'conversation.md' };
    },
  };
}
