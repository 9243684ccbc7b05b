// The "Suggested replies" row above the composer: a "Suggesting replies…" indicator while the
// model works, then up to three chips, each filling in as the model writes it (streamed
// `suggestions.partial` frames), settled when the set is done. A chip fills the composer; it
// never sends. The row is absent from the page whenever there is nothing to show. Beside it, a
// "Formal" toggle asks for the other tone.
//
// Time to the first visible chip (from the moment suggestions were asked for or expected) and
// to the finished set are kept in `timings`, for the page's tests and anyone curious.

import { appendModelLabel } from './jobs.js';

const TONE_KEY = 'sotto.tone';

export class SuggestionsRow {
  constructor({ composer, textarea, load }) {
    this.composer = composer;
    this.textarea = textarea;
    this.load = load;
    this.enabled = false;
    this.cid = null;
    this.last = null; // last snapshot applied for this.cid
    this.element = null;
    this.timings = []; // { firstChipMs, setMs, signature }
    this.waitingSince = null;
    this.tone = localStorage.getItem(TONE_KEY) === 'formal' ? 'formal' : 'casual';
    this.toneLabel = document.createElement('label');
    this.toneLabel.className = 'tone-toggle';
    this.toneInput = document.createElement('input');
    this.toneInput.type = 'checkbox';
    this.toneInput.checked = this.tone === 'formal';
    this.toneLabel.append(this.toneInput, ' Formal');
    this.toneLabel.title = 'Suggest replies in a formal tone';
    this.toneInput.addEventListener('change', () => this.setTone(this.toneInput.checked ? 'formal' : 'casual'));
    this.bar = document.createElement('div');
    this.bar.className = 'suggestions-bar';
    this.bar.append(this.toneLabel);
  }

  /// Casual or formal: remembered in this browser, and asked of the server at once.
  setTone(tone) {
    this.tone = tone;
    this.toneInput.checked = tone === 'formal';
    localStorage.setItem(TONE_KEY, tone);
    if (this.cid) this.open(this.cid);
  }

  /// Switches to a channel and asks the server where its suggestions stand.
  async open(cid) {
    this.cid = cid;
    this.last = null;
    this.remove();
    if (!this.enabled) {
      this.bar.remove();
      return;
    }
    if (!this.bar.isConnected) this.composer.before(this.bar);
    this.waitingSince = performance.now();
    this.firstChipAt = null;
    try {
      this.apply(await this.load(cid, this.tone));
    } catch {
      this.remove();
    }
  }

  /// A `suggestions.partial` frame: the chips so far for the conversation as it is now.
  partial(frame) {
    if (!this.enabled || frame.cid !== this.cid || !this.last || this.last.status !== 'pending') return;
    if (this.last.signature && frame.signature !== this.last.signature) return;
    const chips = (frame.suggestions || []).slice(0, 3);
    if (chips.length === 0) return;
    if (this.waitingSince !== null && !this.firstChipAt) this.firstChipAt = performance.now();
    this.render('streaming', chips, frame.signature);
  }

  /// Someone else wrote: fresh suggestions are on their way.
  expect(cid) {
    if (!this.enabled || cid !== this.cid) return;
    this.last = { cid, status: 'pending', signature: null };
    this.waitingSince = performance.now();
    this.firstChipAt = null;
    this.render('pending', []);
  }

  /// The user wrote: nothing to suggest until someone answers.
  clear(cid) {
    if (cid !== this.cid) return;
    this.last = { cid, status: 'none', signature: null };
    this.remove();
  }

  /// Applies a snapshot from GET …/suggestions or a suggestions.updated event.
  apply(snapshot) {
    if (!this.enabled || !snapshot || snapshot.cid !== this.cid) return;
    // A late "pending" answer must not hide chips that already arrived for the same state.
    if (snapshot.status === 'pending' && this.last && this.last.signature === snapshot.signature &&
        this.last.status !== 'pending') return;
    const streaming = this.element && this.element.isConnected && this.element.dataset.status === 'streaming' &&
      snapshot.status === 'pending' && this.element.dataset.signature === snapshot.signature;
    this.last = snapshot;
    const chips = (snapshot.suggestions || []).slice(0, 3);
    if (snapshot.status === 'ready' && chips.length > 0) {
      this.noteTiming(snapshot.signature);
      this.render('ready', chips, snapshot.signature);
    } else if (snapshot.status === 'pending') {
      if (!streaming) this.render('pending', []);
    } else this.remove();
  }

  noteTiming(signature) {
    if (this.waitingSince === null) return;
    const now = performance.now();
    this.timings.push({
      signature,
      firstChipMs: Math.round((this.firstChipAt || now) - this.waitingSince),
      setMs: Math.round(now - this.waitingSince),
      streamed: Boolean(this.firstChipAt),
    });
    this.waitingSince = null;
    this.firstChipAt = null;
  }

  setEnabled(enabled) {
    this.enabled = enabled;
    if (!enabled) {
      this.remove();
      this.bar.remove();
    } else if (this.cid) this.open(this.cid);
  }

  render(status, chips, signature = '') {
    if (!this.element) {
      this.element = document.createElement('div');
      this.element.id = 'suggestions';
      this.element.className = 'suggestions';
      this.element.setAttribute('role', 'region');
      this.element.setAttribute('aria-label', 'Suggested replies');
      this.element.setAttribute('aria-live', 'polite');
    }
    if (!this.bar.isConnected) this.composer.before(this.bar);
    if (!this.element.isConnected) this.bar.prepend(this.element);
    this.element.replaceChildren();
    this.element.dataset.status = status;
    this.element.dataset.signature = signature || '';
    this.element.dataset.tone = this.tone;
    if (status === 'pending') {
      const indicator = document.createElement('span');
      indicator.className = 'pending';
      indicator.textContent = 'Suggesting replies…';
      this.element.append(indicator);
      return;
    }
    for (const text of chips) {
      const chip = document.createElement('button');
      chip.type = 'button';
      chip.className = status === 'streaming' ? 'chip streaming' : 'chip';
      chip.textContent = text;
      // A chip still being written is shown, not offered: it may yet change or be dropped.
      chip.disabled = status === 'streaming';
      chip.addEventListener('click', () => this.insert(text));
      this.element.append(chip);
    }
    // Every AI result says which model wrote it (a remote fallback names its endpoint).
    if (this.last) appendModelLabel(this.element, this.last.model, 'suggestions-model');
  }

  insert(text) {
    this.textarea.value = text;
    this.textarea.focus();
    this.textarea.setSelectionRange(text.length, text.length);
  }

  remove() {
    if (this.element) this.element.remove();
  }
}
