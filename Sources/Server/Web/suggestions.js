// The "Suggested replies" row above the composer: a "Suggesting replies…" indicator while the
// model works, then up to three chips. A chip fills the composer; it never sends. The row is
// absent from the page whenever there is nothing to show.

export class SuggestionsRow {
  constructor({ composer, textarea, load }) {
    this.composer = composer;
    this.textarea = textarea;
    this.load = load;
    this.enabled = false;
    this.cid = null;
    this.last = null; // last snapshot applied for this.cid
    this.element = null;
  }

  /// Switches to a channel and asks the server where its suggestions stand.
  async open(cid) {
    this.cid = cid;
    this.last = null;
    this.remove();
    if (!this.enabled) return;
    try {
      this.apply(await this.load(cid));
    } catch {
      this.remove();
    }
  }

  /// Someone else wrote: fresh suggestions are on their way.
  expect(cid) {
    if (!this.enabled || cid !== this.cid) return;
    this.last = { cid, status: 'pending', signature: null };
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
    this.last = snapshot;
    const chips = (snapshot.suggestions || []).slice(0, 3);
    if (snapshot.status === 'ready' && chips.length > 0) this.render('ready', chips, snapshot.signature);
    else if (snapshot.status === 'pending') this.render('pending', []);
    else this.remove();
  }

  setEnabled(enabled) {
    this.enabled = enabled;
    if (!enabled) this.remove();
    else if (this.cid) this.open(this.cid);
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
    if (!this.element.isConnected) this.composer.before(this.element);
    this.element.replaceChildren();
    this.element.dataset.status = status;
    this.element.dataset.signature = signature || '';
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
      chip.className = 'chip';
      chip.textContent = text;
      chip.addEventListener('click', () => this.insert(text));
      this.element.append(chip);
    }
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
