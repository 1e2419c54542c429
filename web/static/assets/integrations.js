// Settings → Integrations: the MQTT broker the hub connects to, or runs
// itself. Passwords are write-only: the hub says whether one is saved,
// never what it is. Settings the hub's environment gives win over saved
// ones and show read-only. Admins only.

import { get, put, del } from './api.js';
import { h, field, busy, replace, toast, confirmButton, when } from './dom.js';

// The settings other than the password, in the order shown.
const fields = [
  { key: 'url', label: 'Broker URL', placeholder: 'mqtt://192.168.1.10:1883',
    hint: 'mqtt://, mqtts://, ws:// or wss://. Empty: the hub uses its embedded broker, if any.' },
  { key: 'username', label: 'Username', autocomplete: 'off' },
  { key: 'client_id', label: 'Client id', placeholder: 'bifrost-…', hint: 'Letters, digits and . _ -. Empty: the hub picks one.' },
  { key: 'ca_file', label: 'CA file', placeholder: '/etc/ssl/certs/broker-ca.pem',
    hint: "Full path, on the hub, of the PEM file of the CAs that sign the broker's certificate. Empty: the system's." },
  { key: 'embedded', label: 'Embedded broker address', placeholder: ':1883',
    hint: 'host:port on which the hub runs an MQTT broker itself, for homes without one; it takes the username and password above as its one login.' },
  { key: 'zigbee_base_topic', label: 'zigbee2mqtt base topic', placeholder: 'zigbee2mqtt',
    hint: "zigbee2mqtt's base_topic, if yours is not the default." },
  { key: 'discovery_prefix', label: 'Discovery prefix', placeholder: 'homeassistant',
    hint: 'The Home Assistant MQTT discovery prefix your devices (ESPHome, …) announce under, if not the default.' },
  { key: 'tasmota_full_topic', label: 'Tasmota FullTopic', placeholder: '%prefix%/%topic%/',
    hint: "Your Tasmota devices' FullTopic, if not the default; it holds %prefix% and %topic%." },
];

// How each state of the connection shows.
const states = {
  connected: ['good', 'Connected'],
  connecting: ['warn', 'Connecting…'],
  error: ['bad', 'Not connected'],
  off: ['', 'Off'],
};

const pollEvery = 4000; // ms between looks at the connection state

// mqttSection is the Integrations card, drawn from the hub's answer to
// GET /api/integrations/mqtt.
export function mqttSection(app, settings) {
  const card = h('section', { class: 'card integrations', 'aria-labelledby': 'integrations-title' });
  draw(app, card, settings, '');
  return card;
}

// draw (re)draws the card: after a save it shows the hub's warning, if any.
function draw(app, card, s, warning) {
  const status = h('p', { class: 'status-line', id: 'mqtt-status', role: 'status' });
  drawStatus(status, s.status);
  const notes = [s.problem, warning].filter(Boolean);
  replace(card,
    h('h2', { id: 'integrations-title', text: 'Integrations' }),
    h('h3', { text: 'MQTT' }),
    h('p', { class: 'note', text: 'Plugs, switches, sensors and Zigbee lights on an MQTT broker: Tasmota, Shelly, zigbee2mqtt and Home Assistant discovery.' }),
    status,
    notes.map((n) => h('p', { class: 'integration-warning', role: 'alert', text: n })),
    form(app, card, s),
    s.updated_at ? h('p', { class: 'hint', text: `Saved ${when(s.updated_at)}.` }) : null);
  follow(status);
}

function drawStatus(el, st) {
  const [tone, text] = states[st.state] || ['', st.state];
  replace(el, h('span', { class: `badge ${tone}`, text }), st.message ? ` · ${st.message}` : '');
}

// follow keeps the connection state current while the card is on screen.
function follow(status) {
  const look = async () => {
    if (!status.isConnected) return;
    if (!document.hidden) {
      try {
        const s = await get('/integrations/mqtt');
        if (status.isConnected) drawStatus(status, s.status);
      } catch (e) {
        // A lost session shows through the event stream; anything else
        // shows on the next save.
      }
    }
    setTimeout(look, pollEvery);
  };
  setTimeout(look, pollEvery);
}

function form(app, card, s) {
  const fixed = s.fixed || {};
  const inputs = {};
  const rows = fields.map((f) => {
    const env = fixed[f.key];
    const input = h('input', {
      id: `mqtt-${f.key.replaceAll('_', '-')}`, type: 'text', value: env ? env.value : s[f.key],
      placeholder: f.placeholder, autocomplete: f.autocomplete || 'off', autocapitalize: 'none', spellcheck: 'false',
      readonly: env ? true : null, class: env ? 'fixed' : null,
    });
    inputs[f.key] = input;
    return field(f.label, input, env ? `Set by ${env.env}, which wins; change it there.` : f.hint);
  });
  const pw = passwordField(s, fixed.password);
  const save = h('button', { type: 'submit', class: 'primary', id: 'mqtt-save', text: 'Save' });
  const el = h('form', { class: 'integration-form', 'aria-label': 'MQTT settings', novalidate: true },
    rows.slice(0, 2), pw.nodes, rows.slice(2),
    h('div', { class: 'row' }, save, s.updated_at ? forget(app, card) : null));
  el.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const body = {};
    for (const f of fields) if (!fixed[f.key]) body[f.key] = inputs[f.key].value.trim();
    if (!fixed.password) {
      if (pw.input.value) body.password = pw.input.value;
      if (pw.clear && pw.clear.checked) body.clear_password = true;
    }
    const res = await busy(save, () => app.run(() => put('/integrations/mqtt', body)));
    if (!res) return;
    toast(res.warning ? 'MQTT settings saved, with a warning' : 'MQTT settings saved');
    draw(app, card, res, res.warning);
    document.getElementById('mqtt-save').focus();
  });
  return el;
}

// passwordField is the write-only password: empty keeps the saved one.
function passwordField(s, env) {
  const input = h('input', {
    id: 'mqtt-password', type: 'password', autocomplete: 'new-password',
    placeholder: env || s.password.set ? 'unchanged' : '', readonly: env ? true : null, class: env ? 'fixed' : null,
  });
  let hint = s.password.set ? 'A password is saved. Type a new one to replace it.' : 'No password is saved.';
  if (env) hint = `Set by ${env.env}, which wins; change it there.`;
  else if (!s.can_save_secrets) hint = 'The hub saves passwords only encrypted, with a key from BIFROST_SECRET, which is not set: set BIFROST_SECRET (or BIFROST_SECRET_FILE) to a random string of 16 characters or more, e.g. from openssl rand -base64 32, and restart the hub.';
  const nodes = [field('Password', input, hint)];
  let clear = null;
  if (s.password.set && !env) {
    clear = h('input', { id: 'mqtt-clear-password', type: 'checkbox' });
    nodes.push(h('div', { class: 'field check' }, clear, h('label', { for: 'mqtt-clear-password', text: 'Remove the saved password' })));
  }
  return { input, clear, nodes };
}

// forget removes the saved settings; the environment's stay in force.
function forget(app, card) {
  return confirmButton('Remove saved settings', 'Press again to remove', async (b) => {
    const res = await busy(b, () => app.run(() => del('/integrations/mqtt'), 'Saved MQTT settings removed'));
    if (res) draw(app, card, res, res.warning);
  }, { 'aria-label': 'Remove the saved MQTT settings' });
}
