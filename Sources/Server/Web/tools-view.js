// The writing tools of a composer: a "Writing tools" toolbar, and the preview the result
// streams into, with Replace, Try again and Dismiss.

import { button, el, modelLabel, setText } from './dom.js';
import { watch } from './store.js';
import { select } from './state.js';
import { preview, toolBlocker } from './tools.js';

/**
 * @typedef {import('./state.js').State} State
 * @typedef {import('./types.js').WritingToolInfo} WritingToolInfo
 *
 * @typedef {object} ToolsBinding
 * @property {import('./tools.js').ToolComposer} composer
 * @property {HTMLElement} after the element the toolbar and preview go after
 * @property {(state: State) => string | null} key the draft the tools work on
 * @property {(state: State) => { tools: WritingToolInfo[], unavailable: string, paused: string, hidden: boolean }} config
 * @property {{ run: (tool: WritingToolInfo) => void, replace: () => void, retry: () => void, dismiss: () => void }} handlers
 */

/**
 * @param {import('./state.js').AppStore} store
 * @param {ToolsBinding} binding
 */
export function mountTools(store, binding) {
  const toolbar = el('div', 'writing-tools');
  toolbar.setAttribute('role', 'toolbar');
  toolbar.setAttribute('aria-label', 'Writing tools');
  const note = el('span', 'tools-note');
  const panel = el('section', 'writing-preview');
  panel.setAttribute('aria-label', 'Writing tools preview');
  panel.hidden = true;
  const title = el('strong', 'preview-title');
  const status = el('span', 'preview-status');
  status.setAttribute('role', 'status');
  const text = el('div', 'preview-text');
  text.setAttribute('aria-live', 'polite');
  const head = el('header', 'preview-head');
  head.append(title, status);
  const replace = button('Replace', () => binding.handlers.replace());
  const actions = el('div', 'preview-actions');
  actions.append(replace, button('Try again', () => binding.handlers.retry()), button('Dismiss', () => binding.handlers.dismiss()));
  panel.append(head, text, actions);
  binding.after.after(toolbar, panel);

  /** @type {WritingToolInfo[] | null} */
  let drawnTools = null;
  const picked = select((state) => [binding.config(state), binding.key(state), state.composer.drafts, state.tools[binding.composer], state.jobs],
    (config, key, drafts, session, jobs) => ({ config, draft: key ? drafts[key] || '' : '', session, jobs }));
  watch(store, picked, ({ config, draft, session, jobs }) => {
    toolbar.hidden = config.hidden;
    if (drawnTools !== config.tools) {
      drawnTools = config.tools;
      toolbar.replaceChildren(...config.tools.map((tool) => {
        const control = button(tool.title, () => binding.handlers.run(tool));
        control.dataset.tool = tool.id;
        return control;
      }), note);
    }
    const blocker = toolBlocker({ unavailable: config.unavailable, paused: config.paused, draft, busy: Boolean(session) });
    for (const control of toolbar.querySelectorAll('button')) {
      control.disabled = Boolean(blocker);
      control.title = blocker === 'busy' ? '' : blocker;
    }
    setText(note, config.unavailable ? `Writing tools are off: ${config.unavailable}` : '');
    panel.hidden = !session;
    if (!session) {
      setText(text, '');
      return;
    }
    const shown = preview(session, jobs);
    panel.dataset.tool = session.tool.id;
    panel.dataset.status = shown.status;
    setText(title, session.tool.title);
    status.replaceChildren(shown.note, ...modelLabel(shown.model));
    setText(text, shown.text);
    replace.disabled = !shown.canReplace;
  });
}
