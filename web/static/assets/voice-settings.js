// Settings → Voice: the model endpoints of the voice seam, each an
// OpenAI-compatible API and each optional: speech to text (a kiosk's
// recordings, /api/voice/listen), the language model (what the grammar
// cannot read) and text to speech (/api/voice/speak). Keys are
// write-only: the hub says whether one is saved, never what it is.
// Settings the hub's environment gives win and show read-only. Test asks
// an endpoint for its models (after saving what the form changed).
// Admins only.

import { put, del, post, at } from './api.js';
import { h, field, busy, replace, toast, confirmButton, when } from './dom.js';

// roles are the endpoints, in the order shown.
const roles = [
  { id: 'stt', title: 'Speech to text', noun: 'speech-to-text', model: 'whisper-1',
    about: 'Hears the recordings wall tablets and satellites send to /api/voice/listen: a Whisper server (faster-whisper, whisper.cpp, LocalAI) or a cloud service.' },
  { id: 'llm', title: 'Language model', noun: 'language model', model: 'llama3.2',
    about: 'Reads what the hub’s own grammar cannot: Ollama, llama.cpp’s server, LocalAI, or a cloud service.' },
  { id: 'tts', title: 'Text to speech', noun: 'text-to-speech', model: 'tts-1', voice: true,
    about: 'Says the hub’s answers, through /api/voice/speak: Kokoro, Piper, openedai-speech, or a cloud service.' },
];

// tones say how a Test went.
const tones = { good: 'Works', warn: 'Check the model', bad: 'Failed', off: 'Off' };

// fixedHint says who sets a setting the environment fixes.
const fixedHint = (env) => `Set by ${env.env}, which wins; change it there.`;

// voiceSection is the Voice card, drawn from GET /api/integrations/voice.
export function voiceSection(app, view) {
  const card = h('section', { class: 'card voice-settings', id: 'voice-settings', 'aria-labelledby': 'voice-title' });
  draw(app, card, view);
  return card;
}

// draw (re)draws the card from the hub's view.
function draw(app, card, view) {
  const blocks = roles.map((role) => roleBlock(role, view[role.id], view.can_save_secrets));
  const save = h('button', { type: 'submit', class: 'primary', id: 'voice-save', text: 'Save' });
  const saved = roles.some((role) => view[role.id].updated_at);
  const form = h('form', { class: 'integration-form voice-form', 'aria-label': 'Voice settings', novalidate: true },
    blocks.map((b) => b.node),
    h('div', { class: 'row' }, save, saved ? forget(app, card) : null));
  const submit = async () => {
    const res = await busy(save, () => app.run(() => put('/integrations/voice', changes(blocks))));
    if (!res) return null;
    draw(app, card, res);
    return res;
  };
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (await submit()) {
      toast('Voice settings saved');
      document.getElementById('voice-save').focus();
    }
  });
  for (const b of blocks) {
    b.test.addEventListener('click', () => test(app, b, blocks, submit));
  }
  replace(card,
    h('h2', { id: 'voice-title', text: 'Voice' }),
    h('p', { class: 'note', text: 'Each is an OpenAI-compatible endpoint (its base URL ends in /v1), and each is optional: without it, its part is off. Nothing is downloaded or bundled.' }),
    form);
}

// roleBlock is one endpoint's fields, its Test button and the line that
// says how the Test went.
function roleBlock(role, s, canSave) {
  const fixed = s.fixed || {};
  const inputs = {};
  const text = (key, label, placeholder, hint) => {
    const env = fixed[key];
    const input = h('input', {
      id: `voice-${role.id}-${key}`, type: 'text', value: env ? env.value : (s[key] || ''), placeholder,
      autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', readonly: env ? true : null, class: env ? 'fixed' : null,
    });
    inputs[key] = input;
    return field(label, input, env ? fixedHint(env) : hint);
  };
  const key = keyField(role, s, fixed.key, canSave);
  const result = h('p', { class: 'status-line voice-test', id: `voice-${role.id}-result`, role: 'status' });
  drawResult(result, s.set ? null : { tone: 'off', message: `No ${role.noun} endpoint is set.` });
  const test = h('button', { type: 'button', id: `voice-${role.id}-test`, text: 'Test', 'aria-label': `Test the ${role.noun} endpoint` });
  const node = h('fieldset', { class: 'voice-role', id: `voice-${role.id}`, 'aria-labelledby': `voice-${role.id}-title` },
    h('h3', { id: `voice-${role.id}-title`, text: role.title }),
    h('p', { class: 'note', text: role.about }),
    text('url', 'Base URL', 'http://localhost:8000/v1', 'http:// or https://, usually ending in /v1. Empty: off.'),
    text('model', 'Model', role.model, 'The model’s name as the endpoint lists it.'),
    role.voice ? text('voice', 'Voice', 'alloy', 'The voice the endpoint speaks in, unless a caller names another.') : null,
    key.nodes,
    h('div', { class: 'row' }, test),
    result,
    s.problem ? h('p', { class: 'integration-warning', role: 'alert', text: s.problem }) : null,
    s.updated_at ? h('p', { class: 'hint', text: `Saved ${when(s.updated_at)}.` }) : null);
  return { role, fixed, inputs, key, test, result, node, initial: snapshot(inputs, key) };
}

// keyField is the write-only key: empty keeps the saved one.
function keyField(role, s, env, canSave) {
  const input = h('input', {
    id: `voice-${role.id}-key`, type: 'password', autocomplete: 'new-password',
    placeholder: env || s.key.set ? 'unchanged' : '', readonly: env ? true : null, class: env ? 'fixed' : null,
  });
  let hint = s.key.set ? 'A key is saved. Paste a new one to replace it.' : 'No key is saved; local servers need none.';
  if (env) hint = fixedHint(env);
  else if (!canSave) hint = 'The hub saves keys only encrypted, with a key from BIFROST_SECRET, which is not set: set BIFROST_SECRET (or BIFROST_SECRET_FILE) to a random string of 16 characters or more, e.g. from openssl rand -base64 32, and restart the hub.';
  const nodes = [field('Key', input, hint)];
  let clear = null;
  if (s.key.set && !env) {
    const id = `voice-${role.id}-clear-key`;
    clear = h('input', { id, type: 'checkbox' });
    nodes.push(h('div', { class: 'field check' }, clear, h('label', { for: id, text: 'Remove the saved key' })));
  }
  return { input, clear, nodes, env };
}

// snapshot is what the form of one endpoint says, to tell a change.
function snapshot(inputs, key) {
  return JSON.stringify([Object.values(inputs).map((i) => i.value), key.input.value, key.clear ? key.clear.checked : false]);
}

const dirty = (b) => snapshot(b.inputs, b.key) !== b.initial;

// changes is the body of the save: each endpoint's settings but those
// the environment fixes; an empty key keeps the saved one.
function changes(blocks) {
  const body = {};
  for (const b of blocks) {
    const u = {};
    for (const [k, input] of Object.entries(b.inputs)) if (!b.fixed[k]) u[k] = input.value.trim();
    if (!b.key.env) {
      if (b.key.input.value) u.key = b.key.input.value;
      if (b.key.clear && b.key.clear.checked) u.clear_key = true;
    }
    body[b.role.id] = u;
  }
  return body;
}

// test asks one endpoint for its models and says what it found; what
// the form changed is saved first, so the Test is of what is shown.
async function test(app, b, blocks, submit) {
  const id = b.role.id;
  if (blocks.some(dirty)) {
    if (!(await submit())) return;
    toast('Voice settings saved');
  }
  const button = document.getElementById(`voice-${id}-test`);
  const result = document.getElementById(`voice-${id}-result`);
  replace(result, 'Testing…');
  const res = await busy(button, () => app.run(() => post(at`/integrations/voice/${id}/test`)));
  if (!res) {
    replace(result, '');
    return;
  }
  let tone = res.ok ? 'good' : 'bad';
  if (res.ok && res.model_listed === false) tone = 'warn';
  if (!res.ok && res.message.startsWith('No ')) tone = 'off';
  drawResult(result, { tone, message: res.message, models: res.models });
  button.focus();
}

function drawResult(el, r) {
  if (!r) {
    replace(el);
    return;
  }
  const list = r.models && r.models.length
    ? h('small', { class: 'hint voice-models', text: `Models: ${r.models.join(', ')}` }) : null;
  replace(el, h('span', { class: `badge ${r.tone === 'off' ? '' : r.tone}`, text: tones[r.tone] }), ` · ${r.message}`, list ? h('br') : null, list);
}

// forget removes the saved settings; the environment's stay in force.
function forget(app, card) {
  return confirmButton('Remove saved settings', 'Press again to remove', async (b) => {
    const res = await busy(b, () => app.run(() => del('/integrations/voice'), 'Saved voice settings removed'));
    if (res) draw(app, card, res);
  }, { 'aria-label': 'Remove the saved voice settings' });
}
