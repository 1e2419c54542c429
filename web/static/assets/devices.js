// Devices: the whole inventory, online and offline, as a table to search
// and filter (stacked cards on a phone). A row opens to rename the device,
// assign a room, enable or disable it, pair a TV and set its Wake-on-LAN
// address; selected rows move to a room or are enabled or disabled
// together. Below, a scan for new devices, the devices it found that wait
// for a key of their own, and a form to add one by its address.

import { get, post, patch, at, ApiError } from './api.js';
import { h, field, select, toggle, busy, when, replace, toast } from './dom.js';

const kinds = ['light', 'media', 'power', 'remote', 'sensor', 'other'];
const kindNames = { light: 'Light', media: 'Media', power: 'Power', remote: 'Remote', sensor: 'Sensor', other: 'Other' };

// What each adapter calls itself; those that add devices by address are
// offered in the add form under these names.
const adapterNames = {
  sonos: 'Sonos', onkyo: 'Onkyo / Integra / Pioneer', neewer: 'Neewer (Bluetooth)',
  androidtv: 'Android TV / Google TV', roku: 'Roku',
  sim: 'Simulated', hass: 'Home Assistant', mqtt: 'MQTT', esphome: 'ESPHome',
};
const adapterName = (a) => adapterNames[a] || a;

// What the address of a device looks like, per adapter.
const addressHints = {
  androidtv: ['192.168.1.40', "The TV's IP address, like 192.168.1.40 (add :PORT if its remote port is not 6466). Pair it below once it is added."],
  roku: ['192.168.1.41', "The Roku's IP address, like 192.168.1.41."],
  sonos: ['192.168.1.20', "Any one player's IP address, like 192.168.1.20; the others in the household come along."],
  onkyo: ['192.168.1.20', "The receiver's IP address, like 192.168.1.20."],
  neewer: ['DF:24:3A:B4:46:5D', "The light's Bluetooth address, like DF:24:3A:B4:46:5D."],
  esphome: ['kitchen.local', "The node's host name or IP address, like kitchen.local or 192.168.1.50 (add :PORT if its API port is not 6053)."],
};
const defaultHint = ['', "The device's address on the network."];

// The page is redrawn whenever devices change (a scan, an add, a rename
// or a bulk move causes just that), so what the person chose and what the
// hub reported lives here, not in the DOM: each drawing shows it, and an
// answer that lands after a redraw reaches the controls on screen now.
const state = {
  adapter: '',
  scanning: false,
  scan: null, // { text, failed: [..], error }
  adding: false,
  add: null, // { pending } | { address, devices } | { error }
};
let view = null; // the discovery controls of the latest drawing

// noRoom is the room filter's value for devices in no room.
const noRoom = '-';

// inv is how the inventory is looked at: the search, the filters, the
// rows opened and selected, and the bulk change under way or last done.
const inv = {
  q: '', room: '', kind: '', adapter: '', status: '',
  open: new Set(),
  selected: new Set(),
  target: '', // the room the bulk bar moves to: an id, noRoom, or '' (not chosen)
  running: null, // { verb, done, total }
  report: null, // { text, failed: [{ name, error }], bad }
};
let table = null; // the inventory's controls in the latest drawing
const lastOnline = new Map(); // device id → online, as drawn

// Each filter's test of a device against a chosen value.
const tests = {
  room: (d, v) => (v === noRoom ? !d.room_id : d.room_id === v),
  kind: (d, v) => d.kind === v,
  adapter: (d, v) => d.adapter === v,
  status: (d, v) => (v === 'online') === !!d.online,
};

export async function render(app) {
  // A drawing from another page starts afresh; a redraw of this page keeps
  // the messages, the filters and the selection.
  if (!document.getElementById('devices-discover')) {
    state.scan = state.scanning ? state.scan : null;
    state.add = state.adding ? state.add : null;
    Object.assign(inv, { q: '', room: '', kind: '', adapter: '', status: '', target: '' });
    inv.open.clear();
    if (!inv.running) {
      inv.selected.clear();
      inv.report = null;
    }
  }
  const [devices, adapters] = await Promise.all([app.run(() => get('/devices')), app.run(() => get('/adapters'))]);
  const list = (devices || []).slice().sort((a, b) => a.name.localeCompare(b.name));
  lastOnline.clear();
  for (const d of list) lastOnline.set(d.id, !!d.online);
  const online = list.filter((d) => d.online).length;
  return h('div', { class: 'page devices-page' },
    h('div', { class: 'page-head' },
      h('h1', { text: 'Devices' }),
      h('button', { type: 'button', id: 'find-devices', text: 'Find devices', onclick: jumpToDiscover })),
    h('p', { class: 'note', id: 'inventory-summary', text: `${count(list.length, 'device')}, ${online} online.` }),
    inventory(app, list),
    discover(app, adapters));
}

// onEvent keeps the inventory quiet while devices merely change state:
// only renames, moves, new devices, and a device going on or off line
// redraw it.
export function onEvent(e, app) {
  if (e.action !== 'changed' || e.type === 'device' || e.type === 'room') return false;
  if (e.data && typeof e.data === 'object' && 'online' in e.data && lastOnline.has(e.id) && lastOnline.get(e.id) !== !!e.data.online) {
    lastOnline.set(e.id, !!e.data.online);
    app.refresh();
  }
  return true;
}

function count(n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function jumpToDiscover() {
  const card = document.getElementById('devices-discover');
  if (!card) return;
  card.scrollIntoView({ block: 'start' });
  document.getElementById('scan-devices')?.focus({ preventScroll: true });
}

// inventory is the search, the filters, the table of devices and the bar
// that acts on the selected ones.
function inventory(app, list) {
  const rooms = app.home.rooms;
  const names = new Map(list.map((d) => [d.id, d.name]));
  for (const id of [...inv.selected]) if (!names.has(id)) inv.selected.delete(id);
  const roomChoices = [['', 'No room'], ...rooms.map((r) => [r.id, r.name])];
  const rows = list.map((d) => deviceRow(app, d, roomChoices, names));

  const search = h('input', {
    type: 'search', id: 'dev-search', value: inv.q, placeholder: 'Name, id, model or adapter',
    autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false', 'aria-controls': 'dev-list',
  });
  search.addEventListener('input', () => { inv.q = search.value; apply(); });
  const adapters = [...new Set(list.map((d) => d.adapter))].sort((a, b) => adapterName(a).localeCompare(adapterName(b)));
  const filters = {
    room: filterSelect('room', 'Room of the devices shown', [['', 'All rooms'], ...rooms.map((r) => [r.id, r.name]), [noRoom, 'No room']]),
    kind: filterSelect('kind', 'Kind of the devices shown', [['', 'All kinds'], ...kinds.map((k) => [k, kindNames[k]])]),
    adapter: filterSelect('adapter', 'Adapter of the devices shown', [['', 'All adapters'], ...adapters.map((a) => [a, adapterName(a)])]),
    status: filterSelect('status', 'Status of the devices shown', [['', 'Any status'], ['online', 'Online'], ['offline', 'Offline']]),
  };
  const selectAll = h('input', { type: 'checkbox', id: 'dev-select-all', 'aria-controls': 'dev-list' });
  selectAll.addEventListener('change', () => {
    const shown = table.rows.filter((r) => !r.li.hidden);
    const all = shown.every((r) => inv.selected.has(r.d.id));
    for (const r of shown) {
      if (all) inv.selected.delete(r.d.id);
      else inv.selected.add(r.d.id);
    }
    paintSelection();
  });
  const shownCount = h('p', { class: 'dev-count', id: 'dev-count', role: 'status' });
  const clear = h('button', {
    type: 'button', class: 'quiet', id: 'dev-clear', text: 'Clear filters',
    onclick: () => {
      Object.assign(inv, { q: '', room: '', kind: '', adapter: '', status: '' });
      search.value = '';
      for (const s of Object.values(filters)) s.value = '';
      apply();
      search.focus();
    },
  });
  const none = h('p', { class: 'empty dev-none', id: 'dev-none', hidden: true, text: 'No device matches the search and filters.' });
  const bar = bulkBar(app, rooms, list);
  table = { rows, filters, selectAll, shownCount, clear, none, total: list.length, ...bar };

  const node = h('section', { class: 'inventory', 'aria-labelledby': 'inventory-title' },
    h('h2', { class: 'visually-hidden', id: 'inventory-title', text: 'Inventory' }),
    h('div', { class: 'dev-tools', role: 'search', 'aria-label': 'Search and filter devices' },
      h('div', { class: 'field dev-search' }, h('label', { for: search.id, text: 'Search' }), search),
      field('Room', filters.room), field('Kind', filters.kind), field('Adapter', filters.adapter), field('Status', filters.status)),
    h('div', { class: 'dev-shown' },
      h('label', { class: 'select-all' }, selectAll, h('span', { text: 'Select all shown' })),
      shownCount,
      clear),
    bar.report,
    list.length === 0
      ? h('p', { class: 'empty', text: 'No devices yet. Scan below, or add one by its address.' })
      : h('div', { class: 'dev-table' },
        h('div', { class: 'dev-cols', 'aria-hidden': 'true' },
          h('span'), h('span', { text: 'Name' }), h('span', { text: 'Kind' }), h('span', { text: 'Room' }),
          h('span', { text: 'Adapter / model' }), h('span', { text: 'Status' }), h('span', { text: 'Enabled' })),
        h('ul', { class: 'dev-list', id: 'dev-list', role: 'list', 'aria-labelledby': 'inventory-title' }, rows.map((r) => r.li))),
    none,
    bar.node);
  apply();
  paintReport();
  return node;
}

// filterSelect is one filter's menu; each option's text gets its count.
function filterSelect(key, label, options) {
  if (!options.some(([v]) => v === inv[key])) inv[key] = '';
  const el = select(label, options, inv[key], { id: `dev-filter-${key}` });
  for (const o of el.options) o.dataset.label = o.textContent;
  el.addEventListener('change', () => { inv[key] = el.value; apply(); });
  return el;
}

// matches reports whether a device passes the search and every filter but
// skip.
function matches(d, skip) {
  const terms = inv.q.toLowerCase().split(/\s+/).filter(Boolean);
  const hay = [d.name, d.id, d.model || '', d.adapter, adapterName(d.adapter)].join(' ').toLowerCase();
  if (!terms.every((t) => hay.includes(t))) return false;
  return Object.keys(tests).every((key) => key === skip || !inv[key] || tests[key](d, inv[key]));
}

// apply shows the rows the search and filters pass, and counts in each
// filter's options how many each would show.
function apply() {
  if (!table) return;
  let shown = 0;
  for (const r of table.rows) {
    r.li.hidden = !matches(r.d);
    if (!r.li.hidden) shown++;
  }
  for (const [key, el] of Object.entries(table.filters)) {
    const pass = table.rows.filter((r) => matches(r.d, key));
    for (const o of el.options) {
      const n = o.value ? pass.filter((r) => tests[key](r.d, o.value)).length : pass.length;
      o.textContent = `${o.dataset.label} (${n})`;
    }
  }
  const filtering = !!(inv.q.trim() || inv.room || inv.kind || inv.adapter || inv.status);
  table.shownCount.textContent = filtering ? `Showing ${shown} of ${count(table.total, 'device')}` : `All ${count(table.total, 'device')}`;
  table.clear.hidden = !filtering;
  table.none.hidden = shown > 0 || table.total === 0;
  paintSelection();
}

// deviceRow is one device: a row of the table (a card on a phone) and,
// below it, its form, shown when the row is opened.
function deviceRow(app, d, roomChoices, names) {
  const open = inv.open.has(d.id);
  const check = h('input', { type: 'checkbox', id: `dev-select-${d.id}`, 'aria-label': `Select ${d.name}`, checked: inv.selected.has(d.id) });
  check.addEventListener('change', () => {
    if (check.checked) inv.selected.add(d.id);
    else inv.selected.delete(d.id);
    paintSelection();
  });
  const detail = deviceForm(app, d, roomChoices, names);
  detail.id = `dev-detail-${d.id}`;
  detail.hidden = !open;
  const opener = h('button', {
    type: 'button', class: 'dev-open', id: `dev-open-${d.id}`, 'aria-expanded': String(open), 'aria-controls': detail.id,
  }, h('span', { class: 'dev-chevron', 'aria-hidden': 'true' }), h('span', { class: 'dev-name', text: d.name }));
  const notes = [
    d.kind === 'other' && d.state_text ? h('span', { class: 'state-text', text: d.state_text }) : null,
    d.companion_of ? h('span', { class: 'companion', text: `merged into ${names.get(d.companion_of) || d.companion_of}` }) : null,
  ].filter(Boolean);
  const li = h('li', {
    class: `dev${d.online ? '' : ' offline'}${d.enabled ? '' : ' disabled'}${open ? ' open' : ''}`, role: 'listitem', 'data-device': d.id,
  },
  h('div', { class: 'dev-row' },
    h('label', { class: 'dev-check' }, check),
    h('div', { class: 'dev-cell dev-main' }, opener, notes.length ? h('p', { class: 'dev-sub' }, notes) : null),
    h('div', { class: 'dev-facts' },
      h('span', { class: 'dev-cell dev-kind', text: kindNames[d.kind] || d.kind }),
      h('span', { class: `dev-cell dev-room${d.room ? '' : ' none'}`, text: d.room || 'No room' }),
      h('span', { class: 'dev-cell dev-adapter' },
        h('span', { class: 'dev-adapter-name', text: adapterName(d.adapter) }),
        d.model ? h('span', { class: 'dev-model', text: d.model }) : null,
        d.via ? h('span', { class: 'dev-model dev-via', text: viaText(d.via) }) : null),
      statusCell(app, d),
      h('span', { class: `dev-cell dev-enabled${d.enabled ? '' : ' off'}`, text: d.enabled ? 'Enabled' : 'Disabled' }))),
  detail);
  opener.addEventListener('click', () => {
    const now = opener.getAttribute('aria-expanded') !== 'true';
    opener.setAttribute('aria-expanded', String(now));
    detail.hidden = !now;
    li.classList.toggle('open', now);
    if (now) inv.open.add(d.id);
    else inv.open.delete(d.id);
  });
  return { d, li, check };
}

// viaText says which radio reaches a light and how loud it hears it:
// "via ESPHome proxy studio · -58 dBm", "via this hub's Bluetooth (hci0)".
function viaText(v) {
  const radio = v.radio.startsWith('esphome:') ? `ESPHome proxy ${v.radio.slice('esphome:'.length)}` : `this hub's Bluetooth (${v.radio})`;
  return `via ${radio}${v.rssi ? ` · ${v.rssi} dBm` : ''}`;
}

// statusCell says whether a device is online, or since when it is not;
// a TV that needs pairing says so first, with the button that pairs it.
function statusCell(app, d) {
  const needsPairing = d.pairing === 'needed';
  return h('span', { class: 'dev-cell dev-status' },
    needsPairing ? h('span', { class: 'badge warn', text: 'Needs pairing' }) : null,
    h('span', { class: `dev-state ${d.online ? 'good' : 'warn'}`, text: d.online ? 'Online' : offlineSince(d.last_seen) }),
    needsPairing ? h('button', {
      type: 'button', class: 'primary dev-pair', id: `dev-pair-${d.id}`, text: 'Pair…',
      'aria-label': `Pair ${d.name}…`, onclick: (ev) => pairDialog(app, d, ev.currentTarget),
    }) : null);
}

function offlineSince(iso) {
  const seen = new Date(iso || '');
  if (!iso || Number.isNaN(seen.getTime()) || seen.getFullYear() < 2000) return 'Offline, never seen';
  const today = seen.toDateString() === new Date().toDateString();
  return `Offline since ${today ? seen.toLocaleTimeString(undefined, { timeStyle: 'short' }) : when(iso)}`;
}

function lastSeen(d) {
  const seen = when(d.last_seen);
  if (seen === 'never') return 'Never seen';
  return d.online ? `Online, last heard ${seen}` : `Last seen ${seen}`;
}

// bulkBar acts on the selected devices: move them to a room, disable or
// enable them. The report of the last change stands apart, above the
// table, as the selection is emptied of the devices that changed.
function bulkBar(app, rooms, list) {
  const byID = new Map(list.map((d) => [d.id, d]));
  const choices = [['', 'Choose a room…'], ...rooms.map((r) => [r.id, r.name]), [noRoom, 'No room']];
  if (!choices.some(([v]) => v === inv.target)) inv.target = '';
  const target = select('Room to move the selected devices to', choices, inv.target, { id: 'bulk-room' });
  target.addEventListener('change', () => { inv.target = target.value; paintSelection(); });
  const roomName = (v) => (v === noRoom ? 'no room' : (rooms.find((r) => r.id === v) || {}).name || v);
  const move = h('button', {
    type: 'button', class: 'primary', id: 'bulk-move',
    onclick: () => {
      const to = inv.target;
      if (!to) return;
      bulk(app, byID, { verb: 'Moving', done: 'Moved', fail: 'moved', where: ` to ${roomName(to)}` }, { room: to === noRoom ? '' : to });
    },
  });
  const disable = h('button', {
    type: 'button', id: 'bulk-disable',
    onclick: () => bulk(app, byID, { verb: 'Disabling', done: 'Disabled', fail: 'disabled', where: '' }, { enabled: false }),
  });
  const enable = h('button', {
    type: 'button', id: 'bulk-enable',
    onclick: () => bulk(app, byID, { verb: 'Enabling', done: 'Enabled', fail: 'enabled', where: '' }, { enabled: true }),
  });
  const unselect = h('button', {
    type: 'button', class: 'quiet', id: 'bulk-clear',
    onclick: () => { inv.selected.clear(); paintSelection(); document.getElementById('dev-select-all')?.focus(); },
  }, 'Clear', h('span', { class: 'wide', text: ' selection' }));
  const countText = h('p', { class: 'bulk-count', id: 'bulk-count', role: 'status' });
  const node = h('div', { class: 'bulk-bar', id: 'bulk-bar', role: 'region', 'aria-label': 'Selected devices', hidden: true },
    countText,
    h('div', { class: 'bulk-move' }, h('label', { for: target.id, class: 'bulk-label', text: 'Move to' }), target, move),
    h('div', { class: 'bulk-buttons' }, disable, enable, unselect));
  const report = h('div', { class: 'bulk-report', id: 'bulk-report', role: 'status' });
  return { node, report, countText, target, move, disable, enable, unselect, roomName };
}

// paintSelection ticks the selected rows and shows the bulk bar for them.
function paintSelection() {
  if (!table) return;
  const shown = table.rows.filter((r) => !r.li.hidden);
  const picked = shown.filter((r) => inv.selected.has(r.d.id)).length;
  for (const r of table.rows) {
    r.check.checked = inv.selected.has(r.d.id);
    r.li.classList.toggle('selected', r.check.checked);
  }
  table.selectAll.checked = shown.length > 0 && picked === shown.length;
  table.selectAll.indeterminate = picked > 0 && picked < shown.length;
  table.selectAll.disabled = shown.length === 0;

  const n = inv.selected.size;
  const run = inv.running;
  table.node.hidden = n === 0 && !run;
  const hiddenOnes = n - picked;
  table.countText.textContent = run
    ? `${run.verb} ${run.done + 1 > run.total ? run.total : run.done + 1} of ${count(run.total, 'device')}…`
    : `${n} selected${hiddenOnes > 0 ? ` (${hiddenOnes} not shown)` : ''}`;
  const devs = count(n, 'device');
  replace(table.move, 'Move', h('span', { class: 'wide', text: ` ${devs}` }));
  table.move.setAttribute('aria-label', inv.target ? `Move ${devs} to ${table.roomName(inv.target)}` : `Move ${devs} to the room chosen`);
  replace(table.disable, 'Disable', h('span', { class: 'wide', text: ` ${n}` }));
  table.disable.setAttribute('aria-label', `Disable ${devs}`);
  replace(table.enable, 'Enable', h('span', { class: 'wide', text: ` ${n}` }));
  table.enable.setAttribute('aria-label', `Enable ${devs}`);
  table.move.disabled = !!run || !inv.target || n === 0;
  for (const b of [table.disable, table.enable, table.unselect, table.target]) b.disabled = !!run || n === 0;
}

// bulk sends the same change to each selected device, one after another.
// Those that take it leave the selection; those that fail stay selected
// and are listed with the hub's reason.
async function bulk(app, byID, words, change) {
  if (inv.running) return;
  const ids = [...inv.selected];
  if (ids.length === 0) return;
  inv.running = { verb: words.verb, done: 0, total: ids.length };
  inv.report = null;
  paintSelection();
  paintReport();
  const failed = [];
  let done = 0;
  for (const id of ids) {
    const name = (byID.get(id) || {}).name || id;
    try {
      await patch(at`/devices/${id}`, change);
      done++;
      inv.selected.delete(id);
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) {
        inv.running = null;
        app.run(() => Promise.reject(e)); // back to the sign-in page
        return;
      }
      failed.push({ name, error: e.message });
    }
    inv.running.done++;
    paintSelection();
  }
  inv.running = null;
  const text = `${words.done} ${failed.length ? `${done} of ${count(ids.length, 'device')}` : count(done, 'device')}${words.where}.`;
  inv.report = { text, failed, what: words.fail };
  if (failed.length) {
    toast(`${text} ${failed.length} could not be ${words.fail}: ${failed.map((f) => f.name).join(', ')}.`, 'error');
  } else {
    toast(text);
  }
  paintSelection();
  paintReport();
  app.refresh();
}

// paintReport shows what the last bulk change did, and what failed.
function paintReport() {
  if (!table) return;
  const r = inv.report;
  table.report.classList.toggle('bad', !!(r && r.failed.length));
  replace(table.report, r ? [
    h('p', { class: 'bulk-report-text', text: r.text }),
    r.failed.length ? [
      h('p', { class: 'error', text: `These could not be ${r.what}; they stay selected:` }),
      h('ul', { class: 'bulk-failed' }, r.failed.map((f) => h('li', {}, h('strong', { text: f.name }), `: ${f.error}`))),
    ] : null,
    h('button', {
      type: 'button', class: 'quiet', id: 'bulk-report-close', text: 'Dismiss',
      onclick: () => { inv.report = null; paintReport(); document.getElementById('dev-search')?.focus(); },
    }),
  ] : null);
}

// deviceForm is what a row opens to: its facts, and the controls that
// rename it, put it in a room, enable or disable it, pair it and set the
// address it is woken at.
function deviceForm(app, d, roomChoices, names) {
  const change = (p, done) => app.run(() => patch(at`/devices/${d.id}`, p), done);
  const name = h('input', { value: d.name, id: `dev-name-${d.id}`, required: true, maxlength: 100, 'aria-label': `Name of ${d.name}` });
  const save = h('button', { type: 'submit', text: 'Rename' });
  const form = h('form', { class: 'inline-form dev-rename' }, field('Name', name), save);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(save, () => change({ name: name.value }, (v) => `Renamed to ${v.name}`));
  });
  const room = select(`Room of ${d.name}`, roomChoices, d.room_id || '', { id: `dev-room-${d.id}` });
  room.addEventListener('change', () => change({ room: room.value }, (v) => (v.room ? `${v.name} is in ${v.room}` : `${v.name} is in no room`)));
  const enabled = toggle(`${d.name} enabled`, d.enabled, (on) => change({ enabled: on }, (v) => `${v.name} ${v.enabled ? 'enabled' : 'disabled'}`), { id: `dev-enabled-${d.id}` });
  return h('div', { class: 'dev-detail' },
    h('p', { class: 'meta' },
      h('code', { text: d.id }),
      h('span', { text: [adapterName(d.adapter), d.model].filter(Boolean).join(' · ') }),
      d.kind === 'other' ? h('span', { text: d.state_text ? `Listed only; state: ${d.state_text}` : 'Listed only: the hub does not control it' }) : null,
      d.via ? h('span', { class: 'dev-via-detail', text: `Reached ${viaText(d.via)}` }) : null,
      d.companion_of ? h('span', { text: `Merged into ${names.get(d.companion_of) || d.companion_of}, which is controlled instead` }) : null,
      h('span', { text: lastSeen(d) })),
    h('div', { class: 'dev-controls' },
      form,
      field('Room', room),
      h('div', { class: 'field' },
        h('span', { class: 'label', text: 'Enabled', 'aria-hidden': 'true' }),
        h('label', { class: 'switch-target' }, enabled))),
    d.pairing ? pairRow(app, d) : null,
    wakes(d) ? macForm(app, d, change) : null);
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
        h('p', { class: 'note', text: 'Look for devices on the network and over Bluetooth. New ones join the inventory above.' }),
        scanButton,
        scanStatus,
        keysWanted(addable)),
      h('div', { class: 'discover-part' },
        h('h3', { text: 'Add a device' }),
        addPart)));
  paint();
  return card;
}

// keysWanted lists the devices a scan found that wait for a key of their
// own (an ESPHome node whose API encryption key is not the house's), each
// with a button that fills the add form in, so only the key is left to
// type. Nothing when there are none.
function keysWanted(addable) {
  const waiting = addable.flatMap((a) => (a.keys_wanted || []).map((w) => ({ ...w, adapter: a.name })));
  if (waiting.length === 0) return null;
  return h('div', { class: 'keys-wanted', id: 'keys-wanted' },
    h('h3', { text: 'Found, needs a key' }),
    h('ul', { class: 'keys-wanted-list' }, waiting.map((w) => h('li', { class: 'key-wanted', 'data-address': w.address },
      h('p', { class: 'key-wanted-text', text: wantedText(w) }),
      h('button', { type: 'button', class: 'add-with-key', text: 'Add with key', 'aria-label': `Add ${w.name || w.address} with its key`, onclick: () => fillAdd(w) })))));
}

// wantedText says what a device found waits for and what to do:
// "ESPHome node 'kitchen' at 192.168.1.40 needs its API encryption key;
// add it with its key."
function wantedText(w) {
  const at = w.address.replace(/:6053$/, '');
  const what = w.adapter === 'esphome' ? 'ESPHome node' : `${adapterName(w.adapter)} device`;
  const who = w.name ? `${what} '${w.name}' at ${at}` : `${what} at ${at}`;
  if (w.refused) return `${who} refused the house's API encryption key (BIFROST_ESPHOME_KEY); add it with its own key.`;
  return `${who} needs its API encryption key; add it with its key.`;
}

// fillAdd puts a found device's adapter and address in the add form and
// leaves the cursor in its key field.
function fillAdd(w) {
  const adapter = document.getElementById('add-adapter');
  const address = document.getElementById('add-address');
  const key = document.getElementById('add-key');
  if (!adapter || !address || !key) return;
  adapter.value = w.adapter;
  adapter.dispatchEvent(new Event('change'));
  address.value = w.address;
  key.scrollIntoView({ block: 'center' });
  key.focus({ preventScroll: true });
}

function addForm(app, addable) {
  if (!addable.some((a) => a.name === state.adapter)) state.adapter = addable[0].name;
  const adapter = select('Adapter', addable.map((a) => [a.name, adapterName(a.name)]), state.adapter, { id: 'add-adapter', name: 'adapter' });
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
  // A key of the device's own, for the adapters that take one; it is
  // sent once and kept encrypted by the hub, never shown again.
  const key = h('input', {
    type: 'password', id: 'add-key', name: 'key', maxlength: 200,
    autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false', 'aria-describedby': 'add-key-hint',
  });
  const keyField = field('API encryption key (optional)', key,
    "The node's own key, as in its api: encryption: key:. Leave it empty for a node without encryption or one with the house's key (BIFROST_ESPHOME_KEY).");
  keyField.querySelector('.hint').id = 'add-key-hint';
  const takesKey = () => addable.some((a) => a.name === adapter.value && a.takes_key);
  const showKey = () => {
    keyField.hidden = !takesKey();
    if (keyField.hidden) key.value = '';
  };
  showKey();
  adapter.addEventListener('change', () => {
    state.adapter = adapter.value;
    showHint();
    showKey();
  });
  const addButton = h('button', { type: 'submit', class: 'primary', id: 'add-device' });
  const addStatus = h('div', { class: 'discover-status', id: 'add-status', role: 'status' });
  view.addButton = addButton;
  view.addStatus = addStatus;
  const form = h('form', { class: 'add-device', 'aria-label': 'Add a device' },
    field('Adapter', adapter), addressField, keyField, addButton, addStatus);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    add(app, adapter.value, address.value.trim(), takesKey() ? key.value.trim() : '');
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
    state.scan = { text: `Scan finished (${r.adapters.join(', ')}); the inventory above is up to date.`, failed };
    paint();
  }, wait * 1000);
}

async function add(app, adapter, address, key) {
  if (state.adding) return;
  if (!address) {
    state.add = { error: "Give the device's address." };
    paint();
    return;
  }
  state.adding = true;
  state.add = { pending: `Looking for a device at ${address}… this can take a few seconds.` };
  paint();
  const res = await attempt(app, () => post('/devices', key ? { adapter, address, key } : { adapter, address }));
  state.adding = false;
  state.add = res ? (res.error ? { error: res.error } : { address, devices: res.value || [] }) : null;
  if (res && !res.error) {
    for (const id of ['add-address', 'add-key']) {
      const input = document.getElementById(id);
      if (input) input.value = '';
    }
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
  const form = h('form', { class: 'inline-form dev-mac' },
    field(`Wake-on-LAN address of ${d.name}`, mac, 'Its MAC address; the hub sends a wake-up packet there before turning it on. Empty uses the one the TV reports.'),
    save);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(save, () => change({ mac: mac.value.trim() }, (v) => (v.mac ? `${v.name} is woken at ${v.mac}` : `${v.name} has no Wake-on-LAN address`)));
  });
  return form;
}

// pairRow says whether a TV is paired with the hub; a paired one can be
// paired again (one that is not has its Pair button in its row).
function pairRow(app, d) {
  const needed = d.pairing === 'needed';
  return h('div', { class: 'row pair-row' },
    h('p', { class: 'note', text: needed ? `${d.name} takes commands only once paired with the hub.` : `${d.name} is paired with the hub.` }),
    needed ? null : h('button', {
      type: 'button', class: 'quiet', id: `pair-again-${d.id}`, text: 'Pair again…', onclick: (ev) => pairDialog(app, d, ev.currentTarget),
    }));
}

// pairDialog pairs a TV: the hub asks it to show a code, the person types
// the code in. A mistyped code is said so and can be typed again. Closed,
// it gives the focus back to the button that opened it.
function pairDialog(app, d, opener) {
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
    h('ol', { class: 'pair-steps', id: 'pair-steps' },
      h('li', { text: `Turn ${d.name} on; the hub asks it to show a code.` }),
      h('li', { text: 'Type the code here. If the TV stops showing it, Show a new code asks for another.' })),
    status,
    field('Code shown on the TV', code, '6 characters, 0–9 and A–F.'),
    h('div', { class: 'row buttons dialog-buttons' }, close, again, finish));
  const dialog = h('dialog', {
    class: 'card pair-dialog', 'aria-labelledby': 'pair-title', 'aria-describedby': 'pair-steps', 'data-device': d.id,
  }, form);
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
  dialog.addEventListener('close', () => {
    dialog.remove();
    if (opener) (document.getElementById(opener.id) || opener).focus();
  });
  document.body.append(dialog);
  dialog.showModal();
  start();
}
