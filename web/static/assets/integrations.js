// Settings → Integrations: the MQTT broker the hub connects to, or runs
// itself, and the Home Assistant the hub bridges. Secrets (the broker
// password, the access token) are write-only: the hub says whether one is
// saved, never what it is. Settings the hub's environment gives win over
// saved ones and show read-only. Admins only.
//
// Each integration is a spec (its path, its settings, its secret), and one
// set of functions draws any of them.

import { get, put, del } from './api.js';
import { h, field, busy, replace, toast, confirmButton, when } from './dom.js';

// mqtt is the MQTT broker: its settings other than the password, in the
// order shown; the password comes after the first secretAt of them.
const mqtt = {
  id: 'mqtt', path: '/integrations/mqtt', title: 'MQTT',
  about: 'Plugs, switches, sensors and Zigbee lights on an MQTT broker: Tasmota, Shelly, zigbee2mqtt and Home Assistant discovery.',
  fields: [
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
  ],
  secretAt: 2,
  secret: { key: 'password', label: 'Password', noun: 'password', plural: 'passwords',
    saved: 'A password is saved. Type a new one to replace it.', none: 'No password is saved.' },
};

// hass is Home Assistant: its URL, access token and CA file.
const hass = {
  id: 'hass', path: '/integrations/hass', title: 'Home Assistant',
  about: 'Lights, switches, media players and sensors of a Home Assistant: its entities appear here as devices, its areas as rooms.',
  fields: [
    { key: 'url', label: 'URL', placeholder: 'http://homeassistant.local:8123',
      hint: 'Home Assistant’s address, http:// or https://, as you open it in a browser. Empty: the bridge is off.' },
    { key: 'ca_file', label: 'CA file', placeholder: '/etc/ssl/certs/home-assistant-ca.pem',
      hint: "For https with a private CA: full path, on the hub, of the PEM file of the CAs that sign Home Assistant's certificate. Empty: the system's." },
  ],
  secretAt: 1,
  secret: { key: 'token', label: 'Access token', noun: 'access token', plural: 'access tokens',
    saved: 'An access token is saved. Paste a new one to replace it.',
    none: 'No access token is saved. Make a long-lived access token on your Home Assistant profile page (under Security) and paste it here.' },
};

// How each state of the connection shows.
const states = {
  connected: ['good', 'Connected'],
  connecting: ['warn', 'Connecting…'],
  error: ['bad', 'Not connected'],
  off: ['', 'Off'],
};

const pollEvery = 4000; // ms between looks at the connection state

// integrationsSection is the Integrations card, drawn from the hub's
// answers to GET /api/integrations/mqtt and /api/integrations/hass (an
// integration whose answer is missing is left out).
export function integrationsSection(app, views) {
  const blocks = [mqtt, hass].filter((spec) => views[spec.id]).map((spec) => {
    const block = h('div', { class: 'integration', id: `${spec.id}-integration`, role: 'group', 'aria-labelledby': `${spec.id}-title` });
    draw(app, spec, block, views[spec.id], '');
    return block;
  });
  return h('section', { class: 'card integrations', 'aria-labelledby': 'integrations-title' },
    h('h2', { id: 'integrations-title', text: 'Integrations' }),
    blocks);
}

// draw (re)draws one integration: after a save it shows the hub's
// warning, if any.
function draw(app, spec, block, s, warning) {
  const status = h('p', { class: 'status-line', id: `${spec.id}-status`, role: 'status' });
  drawStatus(status, s.status);
  const notes = [s.problem, warning].filter(Boolean);
  replace(block,
    h('h3', { id: `${spec.id}-title`, text: spec.title }),
    h('p', { class: 'note', text: spec.about }),
    status,
    notes.map((n) => h('p', { class: 'integration-warning', role: 'alert', text: n })),
    form(app, spec, block, s),
    s.updated_at ? h('p', { class: 'hint', text: `Saved ${when(s.updated_at)}.` }) : null);
  follow(spec, status);
}

function drawStatus(el, st) {
  const [tone, text] = states[st.state] || ['', st.state];
  replace(el, h('span', { class: `badge ${tone}`, text }), st.message ? ` · ${st.message}` : '');
}

// follow keeps the connection state current while the card is on screen.
function follow(spec, status) {
  const look = async () => {
    if (!status.isConnected) return;
    if (!document.hidden) {
      try {
        const s = await get(spec.path);
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

// fixedHint says who sets a setting the environment fixes.
const fixedHint = (env) => `Set by ${env.env}, which wins; change it there.`;

function form(app, spec, block, s) {
  const fixed = s.fixed || {};
  const inputs = {};
  const rows = spec.fields.map((f) => {
    const env = fixed[f.key];
    const input = h('input', {
      id: `${spec.id}-${f.key.replaceAll('_', '-')}`, type: 'text', value: env ? env.value : s[f.key],
      placeholder: f.placeholder, autocomplete: f.autocomplete || 'off', autocapitalize: 'none', spellcheck: 'false',
      readonly: env ? true : null, class: env ? 'fixed' : null,
    });
    inputs[f.key] = input;
    return field(f.label, input, env ? fixedHint(env) : f.hint);
  });
  const secretEnv = fixed[spec.secret.key];
  const secret = secretField(spec, s, secretEnv);
  const save = h('button', { type: 'submit', class: 'primary', id: `${spec.id}-save`, text: 'Save' });
  const el = h('form', { class: 'integration-form', 'aria-label': `${spec.title} settings`, novalidate: true },
    rows.slice(0, spec.secretAt), secret.nodes, rows.slice(spec.secretAt),
    h('div', { class: 'row' }, save, s.updated_at ? forget(app, spec, block) : null));
  el.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const body = {};
    for (const f of spec.fields) if (!fixed[f.key]) body[f.key] = inputs[f.key].value.trim();
    if (!secretEnv) {
      if (secret.input.value) body[spec.secret.key] = secret.input.value;
      if (secret.clear && secret.clear.checked) body[`clear_${spec.secret.key}`] = true;
    }
    const res = await busy(save, () => app.run(() => put(spec.path, body)));
    if (!res) return;
    toast(res.warning ? `${spec.title} settings saved, with a warning` : `${spec.title} settings saved`);
    draw(app, spec, block, res, res.warning);
    document.getElementById(`${spec.id}-save`).focus();
  });
  return el;
}

// secretField is the write-only secret: empty keeps the saved one.
function secretField(spec, s, env) {
  const sec = spec.secret;
  const set = s[sec.key].set;
  const input = h('input', {
    id: `${spec.id}-${sec.key}`, type: 'password', autocomplete: 'new-password',
    placeholder: env || set ? 'unchanged' : '', readonly: env ? true : null, class: env ? 'fixed' : null,
  });
  let hint = set ? sec.saved : sec.none;
  if (env) hint = fixedHint(env);
  else if (!s.can_save_secrets) hint = `The hub saves ${sec.plural} only encrypted, with a key from BIFROST_SECRET, which is not set: set BIFROST_SECRET (or BIFROST_SECRET_FILE) to a random string of 16 characters or more, e.g. from openssl rand -base64 32, and restart the hub.`;
  const nodes = [field(sec.label, input, hint)];
  let clear = null;
  if (set && !env) {
    const id = `${spec.id}-clear-${sec.key}`;
    clear = h('input', { id, type: 'checkbox' });
    nodes.push(h('div', { class: 'field check' }, clear, h('label', { for: id, text: `Remove the saved ${sec.noun}` })));
  }
  return { input, clear, nodes };
}

// forget removes the saved settings; the environment's stay in force.
function forget(app, spec, block) {
  return confirmButton('Remove saved settings', 'Press again to remove', async (b) => {
    const res = await busy(b, () => app.run(() => del(spec.path), `Saved ${spec.title} settings removed`));
    if (res) draw(app, spec, block, res, res.warning);
  }, { 'aria-label': `Remove the saved ${spec.title} settings` });
}
