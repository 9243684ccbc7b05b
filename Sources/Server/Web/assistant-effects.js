// The assistant's requests: the assistant's state and list, opening a conversation (the latest
// click wins), sending with images, Stop, Regenerate, continuing in a new session, the summary,
// settings, search, rename, delete, export, and following the model while it loads.

import { ApiError } from './api.js';
import { ASSISTANT_COMPOSER } from './composer.js';
import { messageOf } from './context.js';

/**
 * @typedef {import('./context.js').AppContext} AppContext
 * @typedef {import('./assistant.js').PendingImage} PendingImage
 * @typedef {import('./images.js').ImageCache} ImageCache
 */

/**
 * @param {AppContext} ctx
 * @param {{ images: ImageCache, setView: (view: 'channels' | 'assistant') => void, dismissTool: () => void, offerDownload: () => void }} deps
 */
export function assistantEffects(ctx, deps) {
  const { store } = ctx;
  const state = () => store.getState().assistant;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let loadingTimer;
  let openSeq = 0;

  /** @param {unknown} error */
  function showError(error) {
    store.dispatch({ type: 'assistant/notice', notice: { kind: 'error', message: messageOf(error) } });
  }

  async function show() {
    deps.setView('assistant');
    try {
      const info = await ctx.api().assistant();
      store.dispatch({ type: 'assistant/info', info });
      if (info.model_loading) followLoading();
      if (!info.model.available && info.model.reason === 'not_downloaded') deps.offerDownload();
      const opened = openSeq;
      await loadList();
      // The conversation opened last, on any browser; else the newest; else the introduction.
      // A conversation the user clicked meanwhile wins.
      if (openSeq !== opened) return;
      const conversations = state().conversations;
      const last = info.last_conversation_id || (conversations[0] && conversations[0].id);
      if (last) await open(last);
      else store.dispatch({ type: 'assistant/intro' });
    } catch (error) {
      showError(error);
    }
  }

  /** While the model loads, asks again every two seconds, so the line says when it is ready. */
  function followLoading() {
    clearTimeout(loadingTimer);
    loadingTimer = setTimeout(async () => {
      let info;
      try {
        info = await ctx.api().assistant();
      } catch {
        return; // signed out or the server gone: the next action says so
      }
      store.dispatch({ type: 'assistant/model', model: info.model, loading: Boolean(info.model_loading) });
      if (info.model_loading) followLoading();
    }, 2000);
  }

  async function loadList() {
    store.dispatch({ type: 'assistant/list', conversations: (await ctx.api().assistantConversations()).conversations });
  }

  async function newChat() {
    try {
      const conversation = await ctx.api().createAssistantConversation({});
      await loadList();
      await open(conversation.id);
    } catch (error) {
      showError(error);
    }
  }

  /**
   * @param {string} id
   * @param {{ scrollTo?: string | null }} [options] a message to show (a search result)
   */
  async function open(id, options = {}) {
    const scrollTo = options.scrollTo || null;
    const seq = (openSeq += 1);
    store.dispatch({ type: 'assistant/opening', seq });
    let detail;
    try {
      detail = await ctx.api().assistantConversation(id);
    } catch (error) {
      showError(error);
      return;
    }
    if (seq !== openSeq) return;
    const current = state().current;
    if (!current || current.id !== detail.conversation.id) deps.dismissTool(); // the draft goes back as written
    deps.images.use(detail.conversation.id);
    store.dispatch({ type: 'assistant/opened', seq, detail, scrollTo });
    focus();
  }

  function focus() {
    const draft = store.getState().composer.drafts[ASSISTANT_COMPOSER] || '';
    store.dispatch({ type: 'composer/insert', key: ASSISTANT_COMPOSER, text: draft });
  }

  async function send() {
    const current = state().current;
    const text = store.getState().composer.drafts[ASSISTANT_COMPOSER] || '';
    const pending = state().pending;
    // Images may go without text: the model is asked what they show.
    if ((!text.trim() && pending.length === 0) || !current) return;
    store.dispatch({ type: 'assistant/notice', notice: null });
    try {
      const started = await ctx.api().sendAssistantMessage(current.id, text, pending.map((image) => image.id));
      store.dispatch({ type: 'composer/draft', key: ASSISTANT_COMPOSER, text: '' });
      store.dispatch({ type: 'assistant/sent', message: started.message, turn: started.turn });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'context_full') {
        store.dispatch({ type: 'assistant/notice', notice: { kind: 'context_full', message: error.message } });
      } else {
        showError(error);
      }
    }
  }

  async function stop() {
    const current = state().current;
    if (!current) return;
    try {
      const result = await ctx.api().stopAssistant(current.id);
      store.dispatch({ type: 'assistant/stopped', messages: result.conversation.messages, context: result.conversation.context || null });
      focus();
    } catch (error) {
      showError(error);
    }
  }

  async function regenerate() {
    const current = state().current;
    if (!current) return;
    try {
      const started = await ctx.api().regenerateAssistant(current.id);
      store.dispatch({ type: 'assistant/turnBegan', turn: started.turn, replacesLast: true });
    } catch (error) {
      showError(error);
    }
  }

  async function continueInNewSession() {
    const current = state().current;
    if (!current) return;
    store.dispatch({ type: 'assistant/notice', notice: null });
    try {
      const started = await ctx.api().continueAssistant(current.id);
      store.dispatch({ type: 'assistant/turnBegan', turn: started.turn, replacesLast: false });
    } catch (error) {
      showError(error);
    }
  }

  async function summarize() {
    const current = state().current;
    if (!current) return;
    store.dispatch({ type: 'assistant/summaryStarted' });
    try {
      await ctx.api().summarizeAssistant(current.id);
    } catch (error) {
      store.dispatch({ type: 'assistant/summaryFailed', error: messageOf(error) });
    }
  }

  /** @param {string} query */
  async function search(query) {
    if (!query.trim()) {
      store.dispatch({ type: 'assistant/searchHidden' });
      return;
    }
    try {
      const found = (await ctx.api().searchAssistant(query.trim())).results;
      store.dispatch({ type: 'assistant/searchResults', results: found, error: '' });
    } catch (error) {
      store.dispatch({ type: 'assistant/searchResults', results: [], error: messageOf(error) });
    }
  }

  /** @param {string} title */
  async function rename(title) {
    const current = state().current;
    if (!current || !title.trim()) return;
    try {
      store.dispatch({ type: 'assistant/renamed', conversation: await ctx.api().renameAssistantConversation(current.id, title) });
      await loadList();
    } catch (error) {
      showError(error);
    }
  }

  async function remove() {
    const current = state().current;
    if (!current) return;
    try {
      await ctx.api().deleteAssistantConversation(current.id);
      store.dispatch({ type: 'assistant/deleted' });
      await loadList();
      const first = state().conversations[0];
      if (first) await open(first.id);
      else store.dispatch({ type: 'assistant/intro' });
    } catch (error) {
      showError(error);
    }
  }

  async function exportMarkdown() {
    const current = state().current;
    if (!current) return;
    try {
      const { blob, filename } = await ctx.api().exportAssistantConversation(current.id);
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = filename;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10000);
    } catch (error) {
      showError(error);
    }
  }

  /**
   * @param {{ stream: boolean, showTokens: boolean, appearance: string, language: string, persona: string, instructions: string, temperature: number }} form
   */
  async function saveSettings(form) {
    try {
      const settings = await ctx.api().setAssistantSettings({
        stream_responses: form.stream, show_token_counts: form.showTokens, appearance: form.appearance,
        response_language: form.language,
      });
      const current = state().current;
      if (!current) {
        store.dispatch({ type: 'assistant/settingsSaved', settings, conversation: null, messages: null, context: null });
        return;
      }
      const change = await ctx.api().setAssistantConversationSettings(current.id, {
        persona: form.persona, instructions: form.instructions, temperature: form.temperature, language: form.language,
      });
      const detail = await ctx.api().assistantConversation(current.id);
      store.dispatch({ type: 'assistant/settingsSaved', settings, conversation: change.conversation, messages: detail.messages, context: detail.context || null });
    } catch (error) {
      store.dispatch({ type: 'assistant/settingsStatus', text: messageOf(error) });
    }
  }

  /**
   * Attaches a chosen file to the open conversation: it waits, as a thumbnail with "Remove",
   * until the next message takes it. The server decides what the file is.
   *
   * @param {File} file
   */
  async function attach(file) {
    const current = state().current;
    if (!current) return;
    store.dispatch({ type: 'assistant/notice', notice: null });
    const info = state().info;
    const limit = info && info.max_image_bytes;
    const tooLarge = `“${file.name}” is larger than ${Math.floor((limit || 0) / (1024 * 1024))} MB; attach a smaller image.`;
    if (limit && file.size > limit) {
      showError(new Error(tooLarge));
      return;
    }
    try {
      const image = await ctx.api().attachAssistantImage(current.id, file);
      const now = state().current;
      if (!now || now.id !== current.id) return;
      deps.images.remember(image.id, file);
      store.dispatch({ type: 'assistant/pendingAdded', image: { id: image.id, name: file.name } });
    } catch (error) {
      const refused = error instanceof ApiError && error.status === 413 && limit;
      showError(new Error(refused ? tooLarge : `“${file.name}”: ${messageOf(error)}`));
    }
  }

  /** @param {PendingImage} image */
  async function removePending(image) {
    const current = state().current;
    if (!current) return;
    try {
      await ctx.api().removeAssistantImage(current.id, image.id);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) {
        showError(error);
        return;
      }
    }
    store.dispatch({ type: 'assistant/pendingRemoved', id: image.id });
  }

  return {
    show, newChat, open, send, stop, regenerate, continueInNewSession, summarize, search, rename, remove,
    exportMarkdown, saveSettings, attach, removePending,
  };
}
