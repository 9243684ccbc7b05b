// The private assistant: conversations with the local model, kept on the server per user.
// Model output is inserted only as the server's sanitized HTML (`html`, rendered by cmark-gfm in
// safe mode); everything else (the user's text, titles, errors) with textContent.

import { ApiError } from './api.js';
import { appendModelLabel, jobError } from './jobs.js';
import { WritingTools } from './tools.js';
import { ModelDownloadView } from './download.js';

const VIEW_KEY = 'sotto.view';
const numberFormat = new Intl.NumberFormat('en-US');
const MAX_IMAGES = 4; // on one message (the store's limit)

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(label, onClick, className) {
  const node = element('button', className, label);
  node.type = 'button';
  node.addEventListener('click', onClick);
  return node;
}

export class Assistant {
  /// `jobs` follows the model jobs (writing tools, translations); `language()` is the language
  /// the user translates into (picked in "Translate to", remembered per user).
  constructor({ root, navButton, channelView, api, jobs, language }) {
    this.root = root;
    this.navButton = navButton;
    this.channelView = channelView;
    this.api = api;
    this.jobs = jobs;
    this.language = language;
    this.translations = new Map(); // message id → { code, name, status, text, error }
    this.state = null; // GET /api/assistant
    this.conversations = [];
    this.current = null; // conversation
    this.messages = [];
    this.turn = null; // the answer being written: { id, kind }
    this.context = null;
    this.pendingScrollTo = null;
    this.pending = []; // images attached to the current conversation, not sent yet: { id, url }
    this.imageURLs = new Map(); // image id -> blob: URL of the current conversation's images
    this.$ = (name) => root.querySelector(`[data-part="${name}"]`);
    this.download = new ModelDownloadView(api);
    this.$('model-state').after(this.download.node);
    this.wire();
  }

  wire() {
    this.navButton.addEventListener('click', () => this.show());
    this.$('new').addEventListener('click', () => this.newChat());
    this.$('search-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.search();
    });
    this.$('rename').addEventListener('click', () => this.rename());
    this.$('delete').addEventListener('click', () => this.remove());
    this.$('export').addEventListener('click', () => this.exportMarkdown());
    this.$('summarize').addEventListener('click', () => this.summarize());
    this.$('settings-toggle').addEventListener('click', () => {
      const panel = this.$('settings');
      panel.hidden = !panel.hidden;
      if (!panel.hidden) this.fillSettings();
    });
    this.$('settings').addEventListener('submit', (event) => {
      event.preventDefault();
      this.saveSettings();
    });
    this.$('persona').addEventListener('change', () => {
      const preset = this.state.personas.find((persona) => persona.id === this.$('persona').value);
      if (preset) this.$('instructions').value = preset.instructions;
    });
    this.$('instructions').addEventListener('input', () => {
      const preset = this.state.personas.find((persona) => persona.id === this.$('persona').value);
      if (preset && this.$('instructions').value !== preset.instructions) this.$('persona').value = 'custom';
    });
    this.$('appearance').addEventListener('change', () => this.applyAppearance(this.$('appearance').value));
    const input = this.$('input');
    this.composing = false;
    input.addEventListener('compositionstart', () => { this.composing = true; });
    input.addEventListener('compositionend', () => { this.composing = false; });
    input.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter' || event.shiftKey) return;
      // An IME composing text (Japanese, Chinese…) uses Enter to confirm: never send then.
      if (event.isComposing || this.composing || event.keyCode === 229) return;
      event.preventDefault();
      this.$('composer').requestSubmit();
    });
    this.$('attach').addEventListener('click', () => this.$('image-input').click());
    this.$('image-input').addEventListener('change', () => {
      const files = [...this.$('image-input').files];
      this.$('image-input').value = '';
      for (const file of files) this.attach(file);
    });
    this.$('composer').addEventListener('submit', (event) => {
      event.preventDefault();
      if (this.turn) this.stop();
      else this.send();
    });
    // The writing tools of the channels' composer, on this one too. Stop stays a click away
    // while a preview is open.
    this.tools = new WritingTools({
      composer: this.$('composer'),
      textarea: input,
      after: this.$('composer'),
      start: (tool, text, attempt) => this.api().writingTool(tool, text, attempt),
      jobs: this.jobs,
      letsThrough: () => Boolean(this.turn),
    });
  }

  /// Whether the assistant was the view open last (reload comes back to it).
  static wasOpen() {
    return localStorage.getItem(VIEW_KEY) === 'assistant';
  }

  /// Called when a channel is opened: the assistant steps aside.
  hide() {
    this.root.hidden = true;
    this.channelView.hidden = false;
    this.navButton.removeAttribute('aria-current');
    localStorage.setItem(VIEW_KEY, 'channels');
  }

  async show() {
    this.root.hidden = false;
    this.channelView.hidden = true;
    this.navButton.setAttribute('aria-current', 'true');
    localStorage.setItem(VIEW_KEY, 'assistant');
    try {
      this.state = await this.api().assistant();
      this.applyAppearance(this.state.settings.appearance);
      const model = this.state.model;
      this.tools.configure(model.tools, model.available ? '' : model.message);
      this.renderModelState();
      const opened = this.openSeq;
      await this.loadList();
      // The conversation opened last, on any browser; else the newest; else the introduction.
      // A conversation the user clicked meanwhile wins.
      if (this.openSeq !== opened) return;
      const last = this.state.last_conversation_id || (this.conversations[0] && this.conversations[0].id);
      if (last) await this.open(last);
      else this.showIntro();
    } catch (error) {
      this.showError(error);
    }
  }

  renderModelState() {
    const model = this.state.model;
    const line = this.$('model-state');
    if (model.available && model.fallback) {
      line.textContent = `The local model is unavailable, so the assistant uses the fallback ${model.name}: what you write here is sent there.`;
      line.dataset.state = 'fallback';
    } else if (model.available) {
      line.textContent = this.state.model_loading
        ? `Loading the model ${model.name}…`
        : `Model ${model.name} is ready. It runs on this computer: nothing you write leaves it.`;
      line.dataset.state = this.state.model_loading ? 'loading' : 'ready';
      if (this.state.model_loading) this.followLoading();
    } else {
      line.textContent = `The model is unavailable: ${model.message}`;
      line.dataset.state = model.reason || 'unavailable';
      if (model.reason === 'not_downloaded') this.download.offer();
    }
  }

  /// While the model loads, asks again every two seconds, so the line says when it is ready.
  followLoading() {
    clearTimeout(this.loadingTimer);
    this.loadingTimer = setTimeout(async () => {
      try {
        const state = await this.api().assistant();
        this.state.model = state.model;
        this.state.model_loading = state.model_loading;
      } catch {
        return; // signed out or the server gone: the next action says so
      }
      this.renderModelState();
    }, 2000);
  }

  showIntro() {
    this.current = null;
    this.messages = [];
    this.$('title').textContent = 'Assistant';
    this.$('intro').hidden = false;
    this.$('actions').hidden = true;
    this.$('messages').replaceChildren();
    this.$('meter').hidden = true;
    this.$('composer').hidden = true;
    this.tools.reset();
    this.tools.toolbar.hidden = true;
  }

  async loadList() {
    this.conversations = (await this.api().assistantConversations()).conversations;
    this.renderList();
  }

  renderList() {
    const items = this.conversations.map((conversation) => {
      const item = element('li');
      const open = button(conversation.title, () => this.open(conversation.id));
      open.dataset.id = conversation.id;
      if (this.current && conversation.id === this.current.id) open.setAttribute('aria-current', 'true');
      item.append(open);
      return item;
    });
    this.$('list').replaceChildren(...items);
  }

  async newChat() {
    try {
      const conversation = await this.api().createAssistantConversation({});
      await this.loadList();
      await this.open(conversation.id);
      this.$('input').focus();
    } catch (error) {
      this.showError(error);
    }
  }

  async open(id, { scrollTo = null } = {}) {
    // The latest click wins: a slower answer for an earlier one is dropped.
    const seq = (this.openSeq = (this.openSeq || 0) + 1);
    const detail = await this.api().assistantConversation(id);
    if (seq !== this.openSeq) return;
    if (!this.current || this.current.id !== detail.conversation.id) {
      this.forgetImages();
      this.tools.reset(); // the draft goes back as written
    }
    this.current = detail.conversation;
    this.messages = detail.messages;
    // Images attached and not sent yet wait on the server, with the conversation.
    this.pending = (detail.pending_images || []).map((image) => ({ id: image.id, name: 'image' }));
    this.renderPending();
    this.context = detail.context;
    this.turn = detail.answering ? { id: null, kind: 'answer' } : null;
    this.$('intro').hidden = true;
    this.$('composer').hidden = false;
    this.tools.toolbar.hidden = false;
    this.$('actions').hidden = false;
    this.$('summary-panel').hidden = true;
    this.$('settings').hidden = true;
    this.$('title').textContent = this.current.title;
    this.$('notice').replaceChildren();
    this.clearReplies();
    this.renderList();
    this.renderMessages();
    this.renderMeter();
    this.updateComposer();
    if (scrollTo) {
      const target = this.$('messages').querySelector(`[data-id="${CSS.escape(scrollTo)}"]`);
      if (target) {
        target.classList.add('found');
        target.scrollIntoView({ block: 'center' });
        return;
      }
    }
    this.scrollToBottom();
  }

  renderMessages() {
    this.$('messages').replaceChildren(...this.messages.map((message) => this.messageNode(message)));
  }

  messageNode(message) {
    if (message.role === 'divider') {
      const node = element('li', 'divider');
      node.dataset.id = message.id;
      node.setAttribute('role', 'separator');
      const label = message.summary
        ? 'New session: the model continues from a summary of the conversation.'
        : message.text;
      node.append(element('span', 'divider-label', label));
      if (message.summary) {
        const details = element('details', 'divider-summary');
        details.append(element('summary', null, 'Summary'));
        const body = element('div', 'markdown');
        body.innerHTML = message.html; // the server's sanitized HTML
        details.append(body);
        node.append(details);
      }
      return node;
    }
    const node = element('li', `assistant-message role-${message.role}`);
    node.dataset.id = message.id;
    node.dataset.role = message.role;
    node.append(element('span', 'author', message.role === 'user' ? 'You' : 'Assistant'));
    if (message.role === 'user') {
      if (message.images && message.images.length) {
        const images = element('div', 'message-images');
        for (const image of message.images) images.append(this.thumbnail(image.id, 'Attached image'));
        node.append(images);
      }
      node.append(element('div', 'text', message.text));
    } else {
      const body = element('div', 'markdown');
      body.innerHTML = message.html; // the server's sanitized HTML
      decorateCode(body);
      node.append(body);
      const footer = element('div', 'message-footer');
      if (message.stopped) footer.append(element('span', 'stopped', 'Stopped'));
      if (this.state.settings.show_token_counts && message.output_tokens != null) {
        footer.append(element('span', 'tokens', `${numberFormat.format(message.output_tokens)} tokens`));
      }
      appendModelLabel(footer, message.model);
      if (message === this.messages[this.messages.length - 1] && !this.turn) {
        footer.append(button('Regenerate', () => this.regenerate(), 'link'));
      }
      node.append(footer);
      this.appendTranslation(node, message);
    }
    return node;
  }

  /// "Translate" under an answer, and the translation once asked for (kept across re-renders),
  /// shown under the original, which stays.
  appendTranslation(node, message) {
    const row = element('div', 'message-actions');
    const model = this.state.model;
    const translate = button('Translate', () => this.translate(message), 'link');
    translate.title = model.available ? '' : model.message;
    row.append(translate);
    node.append(row);
    this.showTranslation(node, this.translations.get(message.id));
  }

  /// Fills the translation box of a shown answer (in place, so the text does not flicker).
  showTranslation(node, translation) {
    const translate = node.querySelector('.message-actions button');
    translate.disabled = !this.state.model.available || Boolean(translation && translation.status === 'running');
    if (!translation) return;
    let box = node.querySelector('.translation');
    if (!box) {
      box = element('div', 'translation');
      box.append(element('span', 'translation-label'), element('div', 'translation-text'));
      node.querySelector('.message-actions').before(box);
    }
    box.dataset.language = translation.code;
    box.dataset.status = translation.status;
    box.querySelector('.translation-label').textContent = translation.status === 'running'
      ? `Translating to ${translation.name}…`
      : translation.status === 'done' ? `Translated to ${translation.name}` : translation.error;
    const text = box.querySelector('.translation-text');
    text.lang = translation.code;
    text.textContent = translation.text;
    for (const label of box.querySelectorAll('.model-source')) label.remove();
    if (translation.status === 'done') appendModelLabel(box, translation.model);
  }

  async translate(message) {
    const language = this.language();
    const conversation = this.current.id;
    const translation = { code: language.code, name: language.name, status: 'running', text: '', error: '' };
    this.translations.set(message.id, translation);
    const redraw = () => {
      const node = this.$('messages').querySelector(`[data-id="${CSS.escape(message.id)}"]`);
      if (node && this.translations.get(message.id) === translation) this.showTranslation(node, translation);
    };
    redraw();
    let job;
    try {
      job = await this.jobs.run(
        () => this.api().translateAssistantMessage(conversation, message.id, language.code),
        (snapshot) => {
          if (snapshot.result && typeof snapshot.result.text === 'string') {
            translation.text = snapshot.result.text;
            redraw();
          }
        });
    } catch (error) {
      job = { status: 'failed', error: error.message };
    }
    translation.status = job.status;
    translation.model = job.result && job.result.model;
    if (job.status !== 'done') translation.error = jobError(job);
    redraw();
  }

  renderMeter() {
    const meter = this.$('meter');
    if (!this.context) {
      meter.hidden = true;
      return;
    }
    meter.hidden = false;
    const bar = this.$('meter-bar');
    bar.max = this.context.size;
    bar.value = this.context.used;
    this.$('meter-text').textContent =
      `${numberFormat.format(this.context.used)} / ${numberFormat.format(this.context.size)} tokens`;
  }

  updateComposer() {
    const submit = this.$('send');
    submit.textContent = this.turn ? 'Stop' : 'Send';
    submit.classList.toggle('stop', Boolean(this.turn));
    const unavailable = !this.state.model.available;
    this.$('input').disabled = unavailable;
    this.$('attach').disabled = unavailable || this.pending.length >= MAX_IMAGES;
    // While a writing tool's preview is open, Send sends nothing (Stop still stops).
    submit.disabled = !this.turn && (unavailable || Boolean(this.tools.session));
    this.tools.pause(this.turn ? 'Wait for the answer to finish' : '');
  }

  isAtBottom() {
    const scroller = this.$('scroller');
    return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 48;
  }

  scrollToBottom() {
    const scroller = this.$('scroller');
    scroller.scrollTop = scroller.scrollHeight;
  }

  async send() {
    const input = this.$('input');
    const text = input.value;
    // Images may go without text: the model is asked what they show.
    if ((!text.trim() && this.pending.length === 0) || !this.current) return;
    this.$('notice').replaceChildren();
    try {
      const started = await this.api().sendAssistantMessage(
        this.current.id, text, this.pending.map((image) => image.id));
      input.value = '';
      this.pending = [];
      this.renderPending();
      this.messages.push(started.message);
      this.$('messages').append(this.messageNode(started.message));
      this.beginTurn(started.turn);
      this.scrollToBottom();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'context_full') {
        this.showContextFull(error.message);
      } else {
        this.showError(error);
      }
    }
  }

  beginTurn(turn) {
    this.turn = turn;
    this.clearReplies();
    const node = element('li', 'assistant-message role-assistant streaming');
    node.dataset.turn = turn.id;
    node.append(element('span', 'author', turn.kind === 'continuation' ? 'Summary for the new session' : 'Assistant'));
    node.append(element('div', 'markdown'));
    node.append(element('div', 'message-footer'));
    this.$('messages').append(node);
    // The previous answer loses its Regenerate while this one is written.
    for (const old of this.$('messages').querySelectorAll('.message-footer .link')) old.remove();
    this.updateComposer();
  }

  async stop() {
    if (!this.current) return;
    try {
      const result = await this.api().stopAssistant(this.current.id);
      this.turn = null;
      this.messages = result.conversation.messages;
      this.context = result.conversation.context;
      this.renderMessages();
      this.renderMeter();
      this.updateComposer();
      this.$('input').focus();
    } catch (error) {
      this.showError(error);
    }
  }

  async regenerate() {
    try {
      const started = await this.api().regenerateAssistant(this.current.id);
      const last = this.messages[this.messages.length - 1];
      if (last && last.role === 'assistant') {
        this.messages.pop();
        const node = this.$('messages').querySelector(`[data-id="${CSS.escape(last.id)}"]`);
        if (node) node.remove();
      }
      this.beginTurn(started.turn);
    } catch (error) {
      this.showError(error);
    }
  }

  /// Smart replies as chips: a tap puts the text in the composer, and never sends it.
  showReplies(replies) {
    const chips = replies.map((text) => text.trim()).filter(Boolean).map((text) => button(text, () => {
      const input = this.$('input');
      input.value = text;
      input.focus();
    }, 'reply-chip'));
    this.$('replies').replaceChildren(...chips);
    this.$('replies').hidden = chips.length === 0;
  }

  clearReplies() {
    this.$('replies').replaceChildren();
    this.$('replies').hidden = true;
  }

  showContextFull(message) {
    const notice = this.$('notice');
    const box = element('div', 'context-full');
    box.setAttribute('role', 'alert');
    box.append(element('p', null, message));
    box.append(button('Continue in a new session', () => this.continueInNewSession()));
    notice.replaceChildren(box);
  }

  async continueInNewSession() {
    this.$('notice').replaceChildren();
    try {
      const started = await this.api().continueAssistant(this.current.id);
      this.beginTurn(started.turn);
      this.scrollToBottom();
    } catch (error) {
      this.showError(error);
    }
  }

  async summarize() {
    const panel = this.$('summary-panel');
    panel.hidden = false;
    this.$('summary-text').innerHTML = '';
    this.$('summary-status').textContent = 'Summarizing…';
    try {
      await this.api().summarizeAssistant(this.current.id);
    } catch (error) {
      this.$('summary-status').textContent = error.message;
    }
  }

  /// A frame from /api/connect.
  handle(event) {
    if (event.type === 'assistant.conversation') {
      const index = this.conversations.findIndex((conversation) => conversation.id === event.conversation.id);
      if (index >= 0) this.conversations[index] = event.conversation;
      if (this.current && this.current.id === event.conversation.id) {
        this.current = event.conversation;
        this.$('title').textContent = this.current.title;
      }
      this.renderList();
      return;
    }
    if (event.type === 'assistant.replies') {
      const last = this.messages[this.messages.length - 1];
      if (!this.current || event.conversation_id !== this.current.id || this.turn || !last || last.id !== event.message_id) {
        return;
      }
      this.showReplies(event.replies);
      return;
    }
    if (event.type !== 'assistant.updated' || !this.current || event.conversation_id !== this.current.id) return;
    const turn = event.turn;
    if (turn.kind === 'summary') {
      this.$('summary-text').innerHTML = turn.html; // the server's sanitized HTML
      this.$('summary-status').textContent =
        turn.status === 'streaming' ? 'Summarizing…' : turn.status === 'failed' ? turn.error : '';
      return;
    }
    if (!this.turn) return; // stopped here already: the stored message is shown
    const follow = this.isAtBottom();
    let node = this.$('messages').querySelector(`[data-turn="${CSS.escape(turn.id)}"]`);
    if (!node) {
      this.beginTurn(turn);
      node = this.$('messages').querySelector(`[data-turn="${CSS.escape(turn.id)}"]`);
    }
    if (turn.status === 'streaming') {
      node.querySelector('.markdown').innerHTML = turn.html; // the server's sanitized HTML
      decorateCode(node.querySelector('.markdown'));
      const footer = node.querySelector('.message-footer');
      footer.textContent = this.state.settings.show_token_counts ? `${numberFormat.format(turn.output_tokens)} tokens` : '';
    } else {
      this.turn = null;
      if (turn.status === 'failed') {
        node.classList.remove('streaming');
        node.classList.add('failed');
        const error = element('p', 'error', turn.error);
        error.setAttribute('role', 'alert');
        node.querySelector('.message-footer').replaceChildren(error);
        if (turn.error_code === 'context_full') this.showContextFull(turn.error);
      } else if (turn.message) {
        this.messages.push(turn.message);
        node.replaceWith(this.messageNode(turn.message));
        this.renderMessages();
      } else {
        node.remove();
      }
      if (event.context) {
        this.context = event.context;
        this.renderMeter();
      }
      this.updateComposer();
    }
    if (follow) this.scrollToBottom();
  }

  async search() {
    const query = this.$('search-input').value.trim();
    const results = this.$('search-results');
    if (!query) {
      results.hidden = true;
      return;
    }
    try {
      const found = (await this.api().searchAssistant(query)).results;
      results.hidden = false;
      if (found.length === 0) {
        results.replaceChildren(element('li', 'note', 'No chats match.'));
        return;
      }
      results.replaceChildren(...found.map((hit) => {
        const item = element('li');
        const open = button('', () => {
          results.hidden = true;
          this.open(hit.message.conversation_id, { scrollTo: hit.message.id });
        });
        open.append(element('span', 'result-title', hit.conversation_title));
        open.append(highlighted(hit.message.text, hit.highlights));
        item.append(open);
        return item;
      }));
    } catch (error) {
      results.hidden = false;
      results.replaceChildren(element('li', 'error', error.message));
    }
  }

  async rename() {
    const title = window.prompt('Rename this chat', this.current.title);
    if (title === null || !title.trim()) return;
    try {
      this.current = await this.api().renameAssistantConversation(this.current.id, title);
      this.$('title').textContent = this.current.title;
      await this.loadList();
    } catch (error) {
      this.showError(error);
    }
  }

  async remove() {
    if (!window.confirm(`Delete “${this.current.title}” with all its messages and images?`)) return;
    try {
      await this.api().deleteAssistantConversation(this.current.id);
      this.current = null;
      await this.loadList();
      if (this.conversations[0]) await this.open(this.conversations[0].id);
      else this.showIntro();
    } catch (error) {
      this.showError(error);
    }
  }

  async exportMarkdown() {
    try {
      const { blob, filename } = await this.api().exportAssistantConversation(this.current.id);
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = filename;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10000);
    } catch (error) {
      this.showError(error);
    }
  }

  fillSettings() {
    const personas = this.$('persona');
    personas.replaceChildren(
      ...this.state.personas.map((persona) => new Option(persona.title, persona.id)),
      new Option('Custom instructions', 'custom'));
    personas.value = this.current ? this.current.persona : 'general';
    this.$('instructions').value = this.current ? this.current.instructions : '';
    this.$('temperature').value = String(this.current ? this.current.temperature : 0.7);
    const languages = this.$('language');
    languages.replaceChildren(new Option('The language I write in', ''),
      ...this.state.languages.map((language) => new Option(language.name, language.code)));
    languages.value = (this.current && this.current.language) || '';
    this.$('stream').checked = this.state.settings.stream_responses;
    this.$('show-tokens').checked = this.state.settings.show_token_counts;
    this.$('appearance').value = this.state.settings.appearance;
    this.$('settings-status').textContent = '';
  }

  async saveSettings() {
    try {
      const language = this.$('language').value;
      this.state.settings = await this.api().setAssistantSettings({
        stream_responses: this.$('stream').checked,
        show_token_counts: this.$('show-tokens').checked,
        appearance: this.$('appearance').value,
        response_language: language,
      });
      this.applyAppearance(this.state.settings.appearance);
      if (this.current) {
        const change = await this.api().setAssistantConversationSettings(this.current.id, {
          persona: this.$('persona').value,
          instructions: this.$('instructions').value,
          temperature: Number(this.$('temperature').value),
          language,
        });
        this.current = change.conversation;
        if (change.divider) this.messages.push(change.divider);
        const detail = await this.api().assistantConversation(this.current.id);
        this.messages = detail.messages;
        this.context = detail.context;
        this.renderMessages();
        this.renderMeter();
        this.scrollToBottom();
      }
      this.$('settings-status').textContent = 'Saved.';
      this.$('settings').hidden = true;
    } catch (error) {
      this.$('settings-status').textContent = error.message;
    }
  }

  applyAppearance(appearance) {
    if (appearance === 'light' || appearance === 'dark') document.documentElement.dataset.theme = appearance;
    else delete document.documentElement.dataset.theme;
  }

  /// Attaches a chosen file to the current conversation: it waits, as a thumbnail with
  /// "Remove", until the next message takes it. The server decides what the file is.
  async attach(file) {
    if (!this.current) return;
    this.$('notice').replaceChildren();
    const limit = this.state.max_image_bytes;
    if (limit && file.size > limit) {
      this.showError(new Error(`“${file.name}” is larger than ${Math.floor(limit / (1024 * 1024))} MB; attach a smaller image.`));
      return;
    }
    const conversation = this.current.id;
    try {
      const image = await this.api().attachAssistantImage(conversation, file);
      const url = URL.createObjectURL(file);
      if (!this.current || this.current.id !== conversation) {
        URL.revokeObjectURL(url);
        return;
      }
      this.imageURLs.set(image.id, url);
      this.pending.push({ id: image.id, name: file.name });
      this.renderPending();
      this.updateComposer();
    } catch (error) {
      const tooLarge = error instanceof ApiError && error.status === 413 && limit;
      this.showError(new Error(tooLarge
        ? `“${file.name}” is larger than ${Math.floor(limit / (1024 * 1024))} MB; attach a smaller image.`
        : `“${file.name}”: ${error.message}`));
    }
  }

  async removePending(image) {
    try {
      await this.api().removeAssistantImage(this.current.id, image.id);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) {
        this.showError(error);
        return;
      }
    }
    this.pending = this.pending.filter((other) => other.id !== image.id);
    this.renderPending();
    this.updateComposer();
  }

  renderPending() {
    const list = this.$('pending');
    list.replaceChildren(...this.pending.map((image) => {
      const item = element('li', 'pending-image');
      item.append(this.thumbnail(image.id, `Image to send: ${image.name}`));
      item.append(button('Remove', () => this.removePending(image), 'remove-image'));
      return item;
    }));
    list.hidden = this.pending.length === 0;
  }

  /// An <img> of one of the conversation's images, filled once its bytes are fetched.
  thumbnail(id, alt) {
    const image = element('img', 'thumbnail');
    image.alt = alt;
    image.dataset.imageId = id;
    const known = this.imageURLs.get(id);
    if (known) {
      image.src = known;
    } else if (this.current) {
      const conversation = this.current.id;
      this.api().assistantImage(conversation, id).then((blob) => {
        if (!this.current || this.current.id !== conversation) return;
        let url = this.imageURLs.get(id);
        if (!url) {
          url = URL.createObjectURL(blob);
          this.imageURLs.set(id, url);
        }
        image.src = url;
      }, () => {
        image.alt = `${alt} (it cannot be shown)`;
        image.classList.add('missing');
      });
    }
    return image;
  }

  /// Another conversation opens: the images of this one are let go (a pending one stays
  /// stored with its conversation until it is removed or the conversation deleted).
  forgetImages() {
    for (const url of this.imageURLs.values()) URL.revokeObjectURL(url);
    this.imageURLs.clear();
    this.pending = [];
    this.renderPending();
  }

  showError(error) {
    const box = element('p', 'error', error && error.message ? error.message : String(error));
    box.setAttribute('role', 'alert');
    this.$('notice').replaceChildren(box);
  }
}

/// Code blocks get their language as a label and a Copy button.
function decorateCode(container) {
  for (const code of container.querySelectorAll('pre > code')) {
    const pre = code.parentElement;
    if (pre.parentElement.classList.contains('code-block')) continue;
    const wrapper = element('div', 'code-block');
    const bar = element('div', 'code-bar');
    const match = /(?:^|\s)language-([\w+#.-]+)/.exec(code.className);
    bar.append(element('span', 'code-language', match ? match[1] : 'code'));
    const copy = button('Copy', async () => {
      try {
        await navigator.clipboard.writeText(code.textContent);
        copy.textContent = 'Copied';
      } catch {
        copy.textContent = 'Copy failed';
      }
      setTimeout(() => { copy.textContent = 'Copy'; }, 1500);
    }, 'copy');
    bar.append(copy);
    pre.replaceWith(wrapper);
    wrapper.append(bar, pre);
  }
}

/// `text` with the `[start, end)` UTF-16 ranges in <mark>, as text nodes only.
function highlighted(text, ranges) {
  const node = element('span', 'result-text');
  let at = 0;
  for (const [start, end] of ranges) {
    if (start < at) continue;
    node.append(document.createTextNode(text.slice(at, start)));
    node.append(element('mark', null, text.slice(start, end)));
    at = end;
  }
  node.append(document.createTextNode(text.slice(at)));
  return node;
}
