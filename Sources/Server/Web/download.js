// "Download model" for a server whose default model is not downloaded: the progress the server
// reports while it fetches the model (as `sotto model pull` would), then the wait while it
// starts again with the model. Offered only when the server says so.

/**
 * @typedef {import('./types.js').DownloadProgress} DownloadProgress
 * @typedef {import('./state.js').Action} Action
 *
 * @typedef {object} DownloadState
 * @property {DownloadProgress | null} progress null: none offered (the page shows the command instead)
 * @property {boolean} restarting downloaded; the server is starting again with the model
 * @property {string} error why the download could not start
 *
 * @typedef {{ type: 'download/progress', progress: DownloadProgress | null }
 *   | { type: 'download/restarting' }
 *   | { type: 'download/failed', error: string }} DownloadAction
 */

/** @type {DownloadState} */
export const initialDownload = { progress: null, restarting: false, error: '' };

/**
 * @param {DownloadState} state
 * @param {Action} action
 * @returns {DownloadState}
 */
export function download(state, action) {
  switch (action.type) {
    case 'download/progress':
      return { ...state, progress: action.progress, error: '' };
    case 'download/restarting':
      return { ...state, restarting: true };
    case 'download/failed':
      return { ...state, error: action.error };
    case 'session/signedOut':
      return initialDownload;
    default:
      return state;
  }
}

/**
 * Whether the server is still fetching or assembling the model.
 *
 * @param {DownloadProgress} progress
 */
export function downloading(progress) {
  return progress.status === 'downloading' || progress.status === 'assembling';
}

/**
 * What the download box shows.
 *
 * @param {DownloadState} state
 */
export function downloadView(state) {
  const progress = state.progress;
  if (!progress) return null;
  if (state.restarting) {
    return { status: 'restarting', button: '', showButton: false, showBar: true, fraction: null,
      text: 'Downloaded. The server is starting again with the model…' };
  }
  const running = downloading(progress);
  const megabytes = Math.round(progress.bytes / 1048576);
  return {
    status: progress.status,
    button: progress.status === 'failed' ? 'Try the download again' : `Download ${progress.model} (${megabytes} MB)`,
    showButton: !running && progress.status !== 'installed',
    showBar: running || progress.status === 'installed',
    fraction: progress.fraction === undefined ? null : progress.fraction,
    text: state.error || (progress.status === 'idle' ? '' : progress.message),
  };
}
