// Devices: the whole inventory, online and offline; rename, assign a room,
// enable or disable; scan for new devices and add one by its address.

import { get, post, patch, at, ApiError } from './api.js';
import { h, field, select, toggle, busy, when, replace, toast } from './dom.js';

const kindNames = { light: 'Light', media: 'Media', power: 'Power', remote: 'Remote', sensor: 'Sensor', other: 'Other (listed only)' };

// What each adapter that adds devices by address calls itself, and what
// its address looks like.
const adapterNames = {
  sonos: 'Sonos', onkyo: 'Onkyo / Integra / Pioneer', neewer: 'Neewer (Bluetooth)',
  androidtv: 'Android TV / Google TV', roku: 'Roku',
};
const addressHints = {
  androidtv: ['192.168.1.40', "The TV's IP address, like 192.168.1.40 (add :PORT if its remote port is not 6466). Pair it below once it is added."],
  roku: ['192.168.1.41', "The Roku's IP address, like 192.168.1.41."],
  sonos: ['192.168.1.20', "Any one player's IP address, like 192.168.1.20; the others in the household come along."],
  onkyo: ['192.168.1.20', "The receiver's IP address, like 192.168.1.20."],
  neewer: ['DF:24:3A:B4:46:5D', "The light's Bluetooth address, like DF:24:3A:B4:46:5D."],
};
const defaultHint = ['', "The device's address on the network."];

// The page is redrawn whenever devices change (a scan or an add causes
// just that), so what the scan and the add report lives here, not in the
// DOM: each drawing shows it, and an answer that lands after a redraw
// reaches the controls on screen now.
const state = {
  adapter: '',
  scanning: false,
  scan: null, // { text, failed: [..], error }
  adding: false,
  add: null, // { pending } | { address, devices } | { error }
};
let view = null; // the controls of the latest drawing

export async function render(app) {
  // A drawing from another page starts afresh; a redraw of this page keeps
  // the messages.
  if (!document.getElementById('devices-discover')) {
    state.scan = state.scanning ? state.scan : null;
    state.add = state.adding ? state.add : null;
  }
  const [devices, adapters] = await Promise.all([app.run(() => get('/devices')), app.run(() => get('/adapters'))]);
  const list = devices || [];
  const rooms = [['', 'No room'], ...app.home.rooms.map((r) => [r.id, r.name])];
  const online = list.filter((d) => d.online).length;
  return h('div', { class: 'page' },
    h('h1', { text: 'Devices' }),
    discover(app, adapters),
    h('h2', { class: 'section-title', id: 'inventory-title', text: 'Inventory' }),
    h('p', { class: 'note', text: `${list.length} devices, ${online} online.` }),
    h('div', { class: 'table', role: 'list', 'aria-labelledby': 'inventory-title' }, list.map((d) => deviceItem(app, d, rooms))));
}

// onEvent keeps the inventory quiet while devices merely change state:
// only renames, moves and new devices redraw it.
export function onEvent(e) {
  return e.action === 'changed' && e.type !== 'device' && e.type !== 'room';
}

// discover is the card that finds devices: a scan, and a form to add one
// by address.
function discover(app, adapters) {
  const scanButton = h('button', { type: 'button', class: 'primary', id: 'scan-devices', onclick: () => scan(app) });
  const scanStatus = h('div', { class: 'discover-status', id: 'scan-status', role: 'status' });
  view = { scanButton, scanStatus, addButton: null, addStatus: null };

  const addable = (adapters || []).filter((a) => a.can_add);
  let addPart;
  if (!adapters) {
    addPart = h('p', { class: 'empty', text: 'The adapters could not be listed; reload the page to try again.' });
  } else if (addable.length === 0) {
    addPart = h('p', { class: 'empty', id: 'add-none', text: 'No adapter here adds devices by address; a scan is how this hub finds them.' });
  } else {
    addPart = addForm(app, addable);
  }

  const card = h('section', { class: 'card discover', id: 'devices-discover', 'aria-labelledby': 'discover-title' },
    h('h2', { id: 'discover-title', text: 'Find devices' }),
    h('div', { class: 'discover-parts' },
      h('div', { class: 'discover-part' },
        h('h3', { text: 'Scan' }),
        h('p', { class: 'note', text: 'Look for devices on the network and over Bluetooth. New ones join the inventory below.' }),
        scanButton,
        scanStatus),
      h('div', { class: 'discover-part' },
        h('h3', { text: 'Add a device' }),
        addPart)));
  paint();
  return card;
}

function addForm(app, addable) {
  if (!addable.some((a) => a.name === state.adapter)) state.adapter = addable[0].name;
  const adapter = select('Adapter', addable.map((a) => [a.name, adapterNames[a.name] || a.name]), state.adapter, { id: 'add-adapter', name: 'adapter' });
  const address = h('input', {
    type: 'text', id: 'add-address', name: 'address', required: true, maxlength: 200,
    autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false', 'aria-describedby': 'add-address-hint',
  });
  const addressField = field('Address', address, (addressHints[adapter.value] || defaultHint)[1]);
  const hint = addressField.querySelector('.hint');
  hint.id = 'add-address-hint';
  const showHint = () => {
    const [example, text] = addressHints[adapter.value] || defaultHint;
    address.placeholder = example ? `e.g. ${example}` : '';
    hint.textContent = text;
  };
  showHint();
  adapter.addEventListener('change', () => {
    state.adapter = adapter.value;
    showHint();
  });
  const addButton = h('button', { type: 'submit', class: 'primary', id: 'add-device' });
  const addStatus = h('div', { class: 'discover-status', id: 'add-status', role: 'status' });
  view.addButton = addButton;
  view.addStatus = addStatus;
  const form = h('form', { class: 'add-device', 'aria-label': 'Add a device' },
    field('Adapter', adapter), addressField, addButton, addStatus);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    add(app, adapter.value, address.value.trim());
  });
  return form;
}

// attempt runs a request and returns { value } or, for an error answer
// other than a lost session, { error: the server's message }.
function attempt(app, work) {
  return app.run(async () => {
    try {
      return { value: await work() };
    } catch (e) {
      if (e instanceof ApiError && e.status !== 401) return { error: e.message };
      throw e;
    }
  });
}

async function scan(app) {
  if (state.scanning) return;
  state.scanning = true;
  state.scan = { text: 'Starting a scan…' };
  paint();
  const res = await attempt(app, () => post('/devices/scan'));
  if (!res || res.error) {
    state.scanning = false;
    state.scan = res ? { error: res.error } : null;
    paint();
    return;
  }
  const r = res.value;
  const failed = (r.failed || []).map((f) => (f.error.startsWith(`${f.name}:`) ? f.error : `${f.name}: ${f.error}`));
  state.scan = { text: r.message, failed };
  paint();
  if (!r.adapters || r.adapters.length === 0) {
    state.scanning = false;
    paint();
    return;
  }
  const wait = Math.max(1, Number(r.wait_seconds) || 0);
  setTimeout(async () => {
    // The inventory is redrawn first; only then does the card say so.
    if (document.getElementById('devices-discover')) await app.refreshNow();
    state.scanning = false;
    state.scan = { text: `Scan finished (${r.adapters.join(', ')}); the inventory below is up to date.`, failed };
    paint();
  }, wait * 1000);
}

async function add(app, adapter, address) {
  if (state.adding) return;
  if (!address) {
    state.add = { error: "Give the device's address." };
    paint();
    return;
  }
  state.adding = true;
  state.add = { pending: `Looking for a device at ${address}… this can take a few seconds.` };
  paint();
  const res = await attempt(app, () => post('/devices', { adapter, address }));
  state.adding = false;
  state.add = res ? (res.error ? { error: res.error } : { address, devices: res.value || [] }) : null;
  if (res && !res.error) {
    const input = document.getElementById('add-address');
    if (input) input.value = '';
  }
  paint();
  if (res && !res.error && document.getElementById('devices-discover')) app.refresh();
}

// paint shows the scan's and the add's state in the controls on screen.
function paint() {
  if (!view) return;
  const { scanButton, scanStatus, addButton, addStatus } = view;
  scanButton.disabled = state.scanning;
  scanButton.textContent = state.scanning ? 'Scanning…' : 'Scan for devices';
  const s = state.scan;
  replace(scanStatus,
    s && s.text ? h('p', { class: 'discover-message', text: s.text }) : null,
    s && s.failed && s.failed.length ? h('ul', { class: 'discover-failed' }, s.failed.map((f) => h('li', { text: f }))) : null,
    s && s.error ? h('p', { class: 'error', text: s.error }) : null);
  if (!addButton) return;
  addButton.disabled = state.adding;
  addButton.textContent = state.adding ? 'Adding…' : 'Add device';
  const a = state.add;
  replace(addStatus,
    a && a.pending ? h('p', { class: 'discover-message', text: a.pending }) : null,
    a && a.error ? h('p', { class: 'error', text: a.error }) : null,
    a && a.devices ? added(a) : null);
}

function added(a) {
  if (a.devices.length === 0) return h('p', { class: 'discover-message', text: `Nothing was found at ${a.address}.` });
  return [
    h('p', { class: 'discover-message', text: a.devices.length === 1 ? `Added from ${a.address}:` : `Added ${a.devices.length} devices from ${a.address}:` }),
    h('ul', { class: 'members added' }, a.devices.map((d) => h('li', { class: 'member' },
      h('span', { class: 'name', text: d.name }),
      h('span', { class: 'kind', text: [kindNames[d.kind] || d.kind, d.room].filter(Boolean).join(', ') }),
      h('span', { class: `badge ${d.online ? 'good' : 'warn'}`, text: d.online ? 'Online' : 'Offline' })))),
  ];
}

function deviceItem(app, d, rooms) {
  const change = (p, done) => app.run(() => patch(at`/devices/${d.id}`, p), done);
  const name = h('input', { value: d.name, id: `dev-name-${d.id}`, required: true, maxlength: 100 });
  const save = h('button', { type: 'submit', text: 'Rename' });
  const form = h('form', { class: 'inline-form' }, field(`Name of ${d.name}`, name), save);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(save, () => change({ name: name.value }, (v) => `Renamed to ${v.name}`));
  });
  const room = select(`Room of ${d.name}`, rooms, d.room_id || '', { id: `dev-room-${d.id}` });
  room.addEventListener('change', () => change({ room: room.value }, (v) => (v.room ? `${v.name} is in ${v.room}` : `${v.name} is in no room`)));
  const enabled = toggle(`${d.name} enabled`, d.enabled, (on) => change({ enabled: on }, (v) => `${v.name} ${v.enabled ? 'enabled' : 'disabled'}`), { id: `dev-enabled-${d.id}` });
  const needsPairing = d.pairing === 'needed';
  return h('div', { class: `card device-item ${d.online ? '' : 'offline'}`, role: 'listitem', 'data-device': d.id },
    h('div', { class: 'card-head' },
      h('h2', { text: d.name }),
      needsPairing
        ? h('span', { class: 'badge warn', text: 'Needs pairing' })
        : h('span', { class: `badge ${d.online ? 'good' : 'warn'}`, text: d.online ? 'Online' : 'Offline' })),
    h('p', { class: 'meta' },
      h('span', { text: kindNames[d.kind] || d.kind }),
      h('span', { text: d.model || d.adapter }),
      h('code', { text: d.id }),
      d.state_text ? h('span', { class: 'state-text', text: d.state_text }) : null,
      d.companion_of ? h('span', { text: `merged into ${d.companion_of}` }) : null,
      d.online ? null : h('span', { text: `last seen ${when(d.last_seen)}` })),
    form,
    h('div', { class: 'row' }, field('Room', room), h('div', { class: 'field' }, h('span', { class: 'label', text: 'Enabled', 'aria-hidden': 'true' }), enabled)),
    d.pairing ? pairRow(app, d) : null,
    wakes(d) ? macForm(app, d, change) : null);
}

// The adapters whose TVs can be woken by Wake-on-LAN.
const wakeAdapters = ['androidtv', 'roku'];

function wakes(d) {
  return !!d.mac || wakeAdapters.includes(d.adapter);
}

// macForm sets the address a TV is woken at, for TVs that sleep off the
// network.
function macForm(app, d, change) {
  const mac = h('input', {
    value: d.mac || '', id: `dev-mac-${d.id}`, maxlength: 17, autocomplete: 'off', autocapitalize: 'off',
    spellcheck: 'false', placeholder: 'e.g. A4:5E:60:C2:11:09',
  });
  const save = h('button', { type: 'submit', text: 'Save' });
  const form = h('form', { class: 'inline-form' },
    field(`Wake-on-LAN address of ${d.name}`, mac, 'Its MAC address; the hub sends a wake-up packet there before turning it on. Empty uses the one the TV reports.'),
    save);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(save, () => change({ mac: mac.value.trim() }, (v) => (v.mac ? `${v.name} is woken at ${v.mac}` : `${v.name} has no Wake-on-LAN address`)));
  });
  return form;
}

// pairRow says whether a TV is paired with the hub and opens the pairing
// dialog.
function pairRow(app, d) {
  const needed = d.pairing === 'needed';
  return h('div', { class: 'row pair-row' },
    h('p', { class: 'note', text: needed ? `${d.name} takes commands only once paired with the hub.` : `${d.name} is paired with the hub.` }),
    h('button', {
      type: 'button', class: needed ? 'primary' : 'quiet', id: `dev-pair-${d.id}`,
      text: needed ? 'Pair…' : 'Pair again…', onclick: () => pairDialog(app, d),
    }));
}

// pairDialog pairs a TV: the hub asks it to show a code, the person types
// the code in. A mistyped code is said so and can be typed again.
function pairDialog(app, d) {
  const status = h('p', { class: 'discover-message', id: 'pair-status', role: 'status' });
  const code = h('input', {
    id: 'pair-code', maxlength: 6, minlength: 6, required: true, autocomplete: 'one-time-code',
    autocapitalize: 'characters', spellcheck: 'false', pattern: '[0-9A-Fa-f]{6}', disabled: true,
  });
  const finish = h('button', { type: 'submit', class: 'primary', id: 'pair-finish', text: 'Pair', disabled: true });
  const again = h('button', { type: 'button', class: 'quiet', id: 'pair-again', text: 'Show a new code' });
  const close = h('button', { type: 'button', class: 'quiet', id: 'pair-close', text: 'Close' });
  const form = h('form', { method: 'dialog', class: 'pair-form' },
    h('h2', { id: 'pair-title', text: `Pair ${d.name}` }),
    status,
    field('Code shown on the TV', code, '6 characters, 0–9 and A–F.'),
    h('div', { class: 'row buttons' }, finish, again, close));
  const dialog = h('dialog', { class: 'card pair-dialog', 'aria-labelledby': 'pair-title', 'data-device': d.id }, form);
  const say = (text, error) => {
    status.textContent = text;
    status.className = error ? 'error' : 'discover-message';
  };
  const start = async () => {
    say(`Asking ${d.name} to show a code…`);
    code.disabled = true;
    finish.disabled = true;
    const res = await attempt(app, () => post(at`/devices/${d.id}/pair`, {}));
    if (!res) return;
    if (res.error) { say(res.error, true); return; }
    say(`Type the code ${d.name} shows now.`);
    code.disabled = false;
    finish.disabled = false;
    code.focus();
  };
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    finish.disabled = true;
    say('Pairing…');
    const res = await attempt(app, () => post(at`/devices/${d.id}/pair`, { code: code.value.trim() }));
    finish.disabled = false;
    if (!res) return;
    if (res.error) { say(res.error, true); code.select(); return; }
    dialog.close();
    toast(res.value.message);
    app.refresh();
  });
  again.addEventListener('click', start);
  close.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  start();
}
