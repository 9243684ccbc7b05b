// Small DOM helpers the views share. Text from users or the model goes in with textContent,
// never as HTML (the assistant's answers are the one exception: the server's sanitized HTML).

/**
 * An element with a class and text.
 *
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string | null} [className]
 * @param {string} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * A `type="button"` button.
 *
 * @param {string} label
 * @param {(event: MouseEvent) => void} onClick
 * @param {string} [className]
 */
export function button(label, onClick, className) {
  const node = el('button', className, label);
  node.type = 'button';
  node.addEventListener('click', onClick);
  return node;
}

/**
 * The element with this id, of the expected kind (a missing one is a bug in index.html).
 *
 * @template {HTMLElement} T
 * @param {string} id
 * @param {new () => T} [kind]
 * @returns {T}
 */
export function byId(id, kind) {
  const node = document.getElementById(id);
  if (!node || (kind && !(node instanceof kind))) throw new Error(`index.html lacks #${id}`);
  return /** @type {T} */ (node);
}

/**
 * The first element under `root` matching `selector`, of the expected kind.
 *
 * @template {HTMLElement} T
 * @param {ParentNode} root
 * @param {string} selector
 * @param {new () => T} [kind]
 * @returns {T}
 */
export function find(root, selector, kind) {
  const node = root.querySelector(selector);
  if (!node || (kind && !(node instanceof kind))) throw new Error(`no ${selector}`);
  return /** @type {T} */ (node);
}

/**
 * Sets a node's text only when it changed (no flicker, and a selection inside it survives).
 *
 * @param {Node} node
 * @param {string} text
 */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/**
 * The small "by <model>" line every AI result carries (a remote fallback's name says where it
 * runs: "m at http://host/v1"); nothing without a name.
 *
 * @param {string | null | undefined} name
 * @param {string} [className]
 * @returns {HTMLSpanElement[]}
 */
export function modelLabel(name, className = 'model-source') {
  return name ? [el('span', className, `by ${name}`)] : [];
}

/**
 * Pieces of text (from search.js's `highlightPieces`) as text nodes and <mark>s.
 *
 * @param {Array<{ text: string, mark: boolean }>} pieces
 * @returns {Node[]}
 */
export function highlightedNodes(pieces) {
  return pieces.map((piece) => piece.mark ? el('mark', null, piece.text) : document.createTextNode(piece.text));
}

/**
 * Makes `container`'s children one node per key, in order: a key seen before keeps its node
 * (updated with `update`), a new key gets `create`'s, a gone key's node (and any child without
 * a key) is removed. Nodes are moved only when out of place, so focus, selection and elements
 * held by others (a test's, a pending image load's) survive.
 *
 * @template T
 * @param {Element} container
 * @param {T[]} items
 * @param {(item: T) => string} keyOf
 * @param {(item: T) => HTMLElement} create
 * @param {(node: HTMLElement, item: T) => void} update
 */
export function reconcile(container, items, keyOf, create, update) {
  /** @type {Map<string, HTMLElement>} */
  const existing = new Map();
  const wanted = new Set(items.map(keyOf));
  for (const child of Array.from(container.children)) {
    const key = child instanceof HTMLElement ? child.dataset.key : undefined;
    if (key !== undefined && wanted.has(key)) existing.set(key, /** @type {HTMLElement} */ (child));
    else child.remove();
  }
  let cursor = container.firstElementChild;
  for (const item of items) {
    const key = keyOf(item);
    let node = existing.get(key);
    if (node) update(node, item);
    else {
      node = create(item);
      node.dataset.key = key;
    }
    if (node === cursor) cursor = cursor.nextElementSibling;
    else container.insertBefore(node, cursor);
  }
}

/**
 * Enter sends from a textarea (Shift+Enter is a new line, and Enter that confirms an input
 * method's composition never sends): `send` is called instead of a new line.
 *
 * @param {HTMLTextAreaElement} textarea
 * @param {() => void} send
 * @param {(event: KeyboardEvent, composing: boolean) => boolean} entersSend
 */
export function sendOnEnter(textarea, send, entersSend) {
  let composing = false;
  textarea.addEventListener('compositionstart', () => { composing = true; });
  // Chromium fires keydown for the confirming Enter after compositionend: wait a turn.
  textarea.addEventListener('compositionend', () => { setTimeout(() => { composing = false; }, 0); });
  textarea.addEventListener('keydown', (event) => {
    if (!entersSend(event, composing)) return;
    event.preventDefault();
    send();
  });
}

/**
 * An 18-pixel icon on a 24-unit grid, drawn in the text colour by its shapes: [tag, attributes].
 *
 * @param {Array<[string, Record<string, string>]>} shapes
 * @returns {SVGSVGElement}
 */
export function icon(shapes) {
  const SVG = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(SVG, 'svg');
  for (const [name, value] of Object.entries({ viewBox: '0 0 24 24', width: '18', height: '18', 'aria-hidden': 'true' })) {
    svg.setAttribute(name, value);
  }
  for (const [tag, attributes] of shapes) {
    const shape = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes)) shape.setAttribute(name, value);
    svg.append(shape);
  }
  return svg;
}

/**
 * An <option>.
 *
 * @param {string} value
 * @param {string} label
 */
export function option(value, label) {
  const node = el('option', null, label);
  node.value = value;
  return node;
}
