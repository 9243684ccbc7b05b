// A composer's microphone: the button beside Send (press to dictate, press again to stop), and
// the line under the composer: what the dictation is doing (waiting for the microphone,
// listening with its time and level, transcribing), Cancel, the last word (an error, nothing
// heard, not sent), and "Send when I stop talking". When dictation is not offered the button is
// disabled and says why.

import { button, el, icon, setText } from './dom.js';
import { watch } from './store.js';
import { select } from './state.js';
import { clock, offered } from './voice.js';

/**
 * @typedef {import('./state.js').State} State
 *
 * @typedef {object} VoiceBinding
 * @property {HTMLFormElement} form the composer
 * @property {HTMLElement} before the element the button goes before (Send)
 * @property {(state: State) => string | null} key the composer's draft (null: none open)
 * @property {import('./tools.js').ToolComposer} tools the writing tools' session it shares
 * @property {{ start: (key: string) => void, stop: () => void, cancel: () => void, setAutoSend: (on: boolean) => void }} handlers
 */

/** A microphone, drawn in the button's text colour. */
function micIcon() {
  return icon([
    ['rect', { x: '9', y: '3', width: '6', height: '11', rx: '3', fill: 'currentColor' }],
    ['path', { d: 'M6 11a6 6 0 0 0 12 0M12 17v4M9 21h6', fill: 'none', stroke: 'currentColor', 'stroke-width': '2', 'stroke-linecap': 'round' }],
  ]);
}

/**
 * @param {import('./state.js').AppStore} store
 * @param {VoiceBinding} binding
 */
export function mountVoice(store, binding) {
  const { handlers } = binding;
  const mic = button('', () => {
    const state = store.getState();
    const key = binding.key(state);
    const dictation = state.voice.dictation;
    if (dictation && dictation.key === key) handlers.stop();
    else if (key) handlers.start(key);
  }, 'mic');
  mic.append(micIcon());
  binding.before.before(mic);

  const bar = el('div', 'voice-bar');
  const status = el('span', 'voice-status');
  status.setAttribute('role', 'status');
  const meter = el('span', 'voice-level');
  const fill = el('span', 'voice-level-fill');
  meter.append(fill);
  meter.setAttribute('aria-hidden', 'true');
  const cancel = button('Cancel', () => handlers.cancel(), 'link voice-cancel');
  const toggle = el('label', 'voice-auto');
  const checkbox = el('input');
  checkbox.type = 'checkbox';
  checkbox.addEventListener('change', () => handlers.setAutoSend(checkbox.checked));
  toggle.append(checkbox, ' Send when I stop talking');
  bar.append(status, meter, cancel, toggle);
  binding.form.after(bar);

  const picked = select((state) => [binding.key(state), state.voice, state.tools[binding.tools]],
    (key, voice, preview) => ({ key, voice, preview }));
  watch(store, picked, ({ key, voice, preview }) => {
    const dictation = voice.dictation;
    const mine = Boolean(key && dictation && dictation.key === key);
    const reason = offered(voice);
    const notice = key ? voice.notices[key] || '' : '';

    let blocked = reason;
    if (!blocked && dictation && !mine) blocked = 'Dictation is running in another conversation.';
    if (!blocked && preview && !mine) blocked = 'Close the writing tool’s preview first.';
    mic.disabled = !key || Boolean(blocked) || (mine && dictation?.status === 'transcribing');
    mic.classList.toggle('recording', mine);
    mic.setAttribute('aria-pressed', String(mine));
    const label = mine ? 'Stop dictation' : blocked || 'Dictate';
    mic.setAttribute('aria-label', mine ? 'Stop dictation' : 'Dictate');
    mic.title = label;

    bar.hidden = !key || (Boolean(reason) && !notice && !mine);
    toggle.hidden = Boolean(reason);
    checkbox.checked = voice.autoSend;
    cancel.hidden = !mine;
    meter.hidden = !(mine && dictation?.status === 'listening');
    fill.style.width = `${Math.round((mine && dictation ? dictation.level : 0) * 100)}%`;
    let text = notice;
    if (mine && dictation) {
      if (dictation.status === 'starting') text = 'Waiting for the microphone…';
      else if (dictation.status === 'transcribing') text = 'Transcribing…';
      else text = `Listening ${clock(dictation.elapsedMs)}${dictation.autoSend ? (dictation.heard ? ' · sends when you stop talking' : ' · speak, it sends when you stop') : ' · press the microphone to stop'}`;
    }
    setText(status, text);
    status.classList.toggle('voice-error', !mine && Boolean(notice));
  });
}
