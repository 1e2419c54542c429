// The command field of the dashboard: a sentence typed, or said where the
// browser hears speech, run by the hub's own grammar (POST
// /api/voice/command), and what the hub said back, clause by clause. The
// tiles follow what changed through the live event stream.

import { post } from './api.js';
import { h } from './dom.js';

export function commandBar() {
  const input = h('input', {
    type: 'text', name: 'command', placeholder: 'Say or type a command', 'aria-label': 'Command',
    autocomplete: 'off', enterkeyhint: 'go', maxlength: '1000',
  });
  const said = h('div', { class: 'command-said', role: 'status', 'aria-live': 'polite' });
  const go = h('button', { type: 'submit', class: 'primary', text: 'Go' });

  async function run(text) {
    if (!text.trim()) return;
    go.disabled = true;
    said.classList.remove('error');
    said.textContent = 'Working on it…';
    try {
      const res = await post('/voice/command', { text });
      said.textContent = '';
      said.classList.toggle('error', !res.ok);
      said.append(h('p', { class: 'command-answer', text: res.said }));
      if (res.clauses && res.clauses.length > 1) {
        said.append(h('ul', { class: 'command-clauses' }, res.clauses.map((c) =>
          h('li', { class: c.ok ? 'ok' : 'failed' }, h('span', { class: 'heard', text: `“${c.heard}”` }), ' ', c.said))));
      }
      if (res.ok) input.value = '';
    } catch (e) {
      said.classList.add('error');
      said.textContent = e.message;
    } finally {
      go.disabled = false;
    }
  }

  const form = h('form', {
    class: 'command-bar', role: 'search', 'aria-label': 'Command',
    onsubmit: (e) => { e.preventDefault(); run(input.value); },
  }, input, listenButton(input, run), go);
  return h('div', { class: 'command' }, form, said);
}

// listenButton is the microphone: the browser's own speech recognition,
// where it has one; the transcript is run as typed.
function listenButton(input, run) {
  const Recognition = window.SpeechRecognition || window.webkitSpeechRecognition;
  if (!Recognition) return null;
  let rec = null;
  const mic = h('button', {
    type: 'button', class: 'mic', 'aria-label': 'Speak a command', 'aria-pressed': 'false', text: '🎤',
    onclick: () => {
      if (rec) { rec.stop(); return; }
      rec = new Recognition();
      rec.lang = document.documentElement.lang || 'en';
      rec.interimResults = true;
      rec.onresult = (e) => {
        const r = e.results[e.results.length - 1];
        input.value = r[0].transcript;
        if (r.isFinal) run(input.value);
      };
      rec.onend = () => { rec = null; mic.setAttribute('aria-pressed', 'false'); };
      rec.onerror = () => { rec = null; mic.setAttribute('aria-pressed', 'false'); };
      mic.setAttribute('aria-pressed', 'true');
      rec.start();
    },
  });
  return mic;
}
