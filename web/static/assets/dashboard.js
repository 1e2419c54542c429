// The dashboard: each room as a card with its power, brightness, scenes and
// occupancy, and every device in it with its controls. Devices follow the
// live event stream in place.

import { put, post, get, at } from './api.js';
import { h, append, toggle, slider, select, toast, icon, when } from './dom.js';
import { colourWheel, kelvinRGB } from './wheel.js';
import * as arrange from './arrange.js';
import { offerUndo } from './undo.js';
import { tileNowPlaying, detailsNowPlaying } from './nowplaying.js';
import { sparkline, historyPanel } from './graph.js';
import { commandBar } from './command.js';

export async function render(app) {
  await arrange.load(app);
  const { rooms, scenes } = app.home;
  const placed = new Set();
  const cards = rooms.map((room) => {
    const ids = room.members.map((m) => m.id);
    ids.forEach((id) => placed.add(id));
    return roomCard(app, room, ids, scenes.filter((s) => s.room_id === room.id));
  });
  const others = allDevices(app.home).filter((d) => !placed.has(d.id)).map((d) => d.id);
  if (others.length > 0) cards.push(deviceCard(app, 'Not in a room', others));
  const homeScenes = scenes.filter((s) => !s.room_id);
  return arrange.place(app, h('div', { class: 'page' },
    h('div', { class: 'page-head' },
      h('h1', { text: 'Dashboard' }),
      homeScenes.length ? sceneBar(app, homeScenes, 'Home scenes') : null),
    commandBar(),
    rooms.length === 0 && others.length === 0
      ? h('p', { class: 'empty', text: 'No devices yet. Adapters add them as they find them.' })
      : null,
    h('div', { class: 'grid rooms' }, cards)));
}

// allDevices lists every device the snapshot has, of every kind.
function allDevices(home) {
  return [...home.lights, ...home.media, ...home.power, ...home.remotes, ...home.sensors];
}

function roomCard(app, room, ids, scenes) {
  const lights = () => ids.map((id) => app.device(id)).filter((d) => d && d.kind === 'light');
  const lit = () => lights().filter((l) => l.state && l.state.on);
  // The room is on as the API's room write means it: a lit light, a
  // switched-on plug or fan, or a player that is on.
  const anyOn = () => lit().length > 0 || ids.some((id) => {
    const d = app.device(id);
    return d && ((d.kind === 'power' && d.on) || (d.kind === 'media' && d.state && d.state.power));
  });
  const level = () => {
    const ls = lit().length ? lit() : lights().filter((l) => l.state);
    return ls.reduce((max, l) => Math.max(max, l.state.brightness), 0) || 50;
  };
  const sending = h('span', { class: 'sending', text: 'Sending…', hidden: true });
  const reason = h('p', { class: 'reason error', role: 'status', hidden: true });
  let card = null;
  const write = async (patch) => {
    const res = await honestly(app, card, sending, reason, () => put(at`/rooms/${room.id}/state`, patch), () => update());
    if (res) reportFailures(room.name, res);
    if (res && applied(res) > 0) offerUndo(app, room.name);
  };

  const power = toggle(`${room.name} power`, anyOn(), (on) => write({ on }), { id: `room-power-${room.id}` });
  const hasLights = lights().length > 0;
  // A dim reaches only the lights that are lit; a room with none lit says
  // so, and offers to turn them on at that brightness.
  const dimNote = h('p', { class: 'note dim-note', role: 'status', hidden: true });
  const dim = (v) => {
    const off = lights().length - lit().length;
    if (lit().length === 0) {
      bri.set(level());
      dimNote.replaceChildren(`No light in ${room.name} is on; a dim changes only lit lights. `,
        h('button', {
          type: 'button', class: 'quiet', id: `room-light-up-${room.id}`, text: `Turn them on at ${v} %`,
          onclick: () => { dimNote.hidden = true; write({ on: true, brightness: v }); },
        }));
      dimNote.hidden = false;
      return;
    }
    dimNote.textContent = off ? `Dimmed the ${lit().length} lit light${lit().length === 1 ? '' : 's'}; ${off} off stayed off.` : '';
    dimNote.hidden = !off;
    write({ brightness: v });
  };
  const bri = hasLights
    ? slider(`${room.name} brightness`, level(), 1, 100, dim, { unit: '%', id: `room-bri-${room.id}` })
    : null;
  const summary = h('p', { class: 'summary', 'data-summary': room.id });
  const showSummary = () => { summary.textContent = roomSummary(app, ids); };
  const occupancy = h('span', { class: 'badge' });
  const showOccupancy = () => {
    const o = occupied(app, ids, room.occupied);
    occupancy.hidden = o === null;
    occupancy.textContent = o ? 'Occupied' : 'Empty';
    occupancy.className = `badge ${o ? 'good' : ''}`;
  };
  showOccupancy();
  const update = () => {
    power.checked = anyOn();
    if (bri) bri.set(level());
    showOccupancy();
    showSummary();
  };
  showSummary();
  ids.forEach((id) => app.watch(id, update));

  card = h('section', { class: 'card room', 'aria-labelledby': `room-${room.id}`, 'data-room': room.id },
    h('div', { class: 'card-head' },
      h('h2', { id: `room-${room.id}`, text: room.name }),
      occupancy,
      sending,
      h('label', { class: 'switch-target' }, power)),
    summary,
    reason,
    bri ? h('div', { class: 'row' }, h('span', { class: 'label', text: 'Brightness', 'aria-hidden': 'true' }), bri) : null,
    dimNote,
    scenes.length ? sceneBar(app, scenes, `Scenes for ${room.name}`) : null,
    deviceList(app, ids));
  return card;
}

// roomSummary says what a room is doing in one line: "2 of 4 lights on ·
// 20.4 °C · occupied · playing Blue in Green".
function roomSummary(app, ids) {
  const ds = ids.map((id) => app.device(id)).filter(Boolean);
  const parts = [];
  const lights = ds.filter((d) => d.kind === 'light');
  if (lights.length) {
    const on = lights.filter((l) => l.online && l.state && l.state.on).length;
    parts.push(`${on} of ${lights.length} light${lights.length === 1 ? '' : 's'} on`);
  }
  const plugs = ds.filter((d) => d.kind === 'power');
  if (plugs.length) parts.push(`${plugs.filter((p) => p.online && p.on).length} of ${plugs.length} switched on`);
  const temp = ds.flatMap((d) => (d.kind === 'sensor' && d.online ? d.readings || [] : [])).find((r) => r.type === 'temperature');
  if (temp) parts.push(`${Math.round(temp.value * 10) / 10} °C`);
  const o = occupied(app, ids);
  if (o !== null) parts.push(o ? 'occupied' : 'empty');
  const playing = ds.find((d) => d.kind === 'media' && d.state && d.state.transport === 'playing');
  if (playing) {
    const np = playing.state.now_playing;
    parts.push(np && np.title ? `playing ${np.title}` : 'playing');
  }
  const offline = ds.filter((d) => !d.online).length;
  if (offline) parts.push(`${offline} offline`);
  return parts.join(' · ');
}

// occupied is whether a room's presence sensors sense someone: null when
// it has none that answers.
function occupied(app, ids, fallback) {
  let known = false;
  let present = false;
  for (const id of ids) {
    const d = app.device(id);
    if (!d || d.kind !== 'sensor' || !d.readings) continue;
    for (const r of d.readings) {
      if ((r.type === 'motion' || r.type === 'occupancy') && typeof r.bool === 'boolean') {
        known = true;
        present = present || r.bool;
      }
    }
  }
  if (!known) return fallback === undefined ? null : fallback;
  return present;
}

function deviceCard(app, title, ids) {
  return h('section', { class: 'card room', 'aria-label': title, 'data-no-room': '' },
    h('div', { class: 'card-head' }, h('h2', { text: title })),
    deviceList(app, ids));
}

function deviceList(app, ids) {
  const tiles = ids.map((id) => app.device(id)).filter(Boolean).map((d) => deviceTile(app, d));
  return tiles.length ? h('ul', { class: 'tiles' }, tiles) : h('p', { class: 'empty', text: 'No devices in this room.' });
}

const rowMakers = { light: lightRow, media: mediaRow, power: powerRow, remote: remoteRow, sensor: sensorRow };

// deviceTile is a device as a tile: an icon of its kind, lit in the lamp's
// colour or white when on, grey when off, greyed with since when it is
// offline; its name and state in a line. Tapping a tile with a switch
// switches it; a long press, or the chevron, opens the details dialog with
// every control.
function deviceTile(app, d) {
  const make = rowMakers[d.kind];
  const li = h('li', { class: `tile ${d.kind}`, 'data-device': d.id });
  const name = h('span', { class: 'name', text: d.name });
  const state = h('span', { class: 'state' });
  const since = h('span', { class: 'since' });
  const glyph = h('span', { class: 'glyph', 'aria-hidden': 'true' }, kindIcon(iconKind(d)));
  const sending = h('span', { class: 'sending', text: 'Sending…', hidden: true });
  const reason = h('p', { class: 'reason error', role: 'status', hidden: true });
  const dlgSending = h('span', { class: 'sending', text: 'Sending…', hidden: true });
  const dlgReason = h('p', { class: 'reason error', role: 'status', hidden: true });
  let shown = d; // the last view the hub reported, which a failed write springs back to
  let update = () => {};
  let remote = null;
  const write = (work) => honestly(app, li, [sending, dlgSending], [reason, dlgReason], work, () => {
    update(shown);
    paint(shown);
    if (remote && app.remote(d.id)) remote.update(app.remote(d.id));
  });
  // A change to a light, player or switch can be undone from the toast.
  const undoable = async (work) => {
    const v = await write(work);
    if (v !== undefined) offerUndo(app, d.name);
    return v;
  };
  const made = make(app, d, d.kind === 'remote' || d.power_kind === 'button' ? write : undoable); // a press is not undone
  update = made.update;
  // A TV is one device with a media face and a remote face: its details
  // have both, the keypad and app launcher under the player's controls.
  const tvRemote = d.kind === 'media' ? app.remote(d.id) : null;
  remote = tvRemote ? remotePanel(app, tvRemote, write) : null;

  // The dialog has the tile's switch too; both show the same state.
  const twin = made.head
    ? toggle(made.head.getAttribute('aria-label'), made.head.checked, (on) => {
      made.head.checked = on;
      made.head.dispatchEvent(new Event('change'));
    }, { 'data-wakes': made.head.hasAttribute('data-wakes') ? '' : undefined })
    : null;
  const title = h('h2', { id: `details-${d.id}`, text: d.name });
  const close = h('button', { type: 'button', class: 'quiet close', 'aria-label': `Close ${d.name}`, text: '✕' });
  const dialog = h('dialog', { class: 'details', 'aria-labelledby': `details-${d.id}` },
    h('div', { class: 'details-head' }, title, dlgSending, twin, close),
    dlgReason,
    made.picture, made.body, remote ? remote.body : null);
  close.addEventListener('click', () => dialog.close());
  dialog.addEventListener('click', (ev) => { if (ev.target === dialog) dialog.close(); }); // the backdrop
  const open = () => {
    if (dialog.open) return;
    dialog.showModal();
    if (made.opened) made.opened();
  };
  const chevron = h('button', {
    type: 'button', class: 'chevron quiet', 'aria-label': `Details for ${d.name}`, 'aria-haspopup': 'dialog', onclick: open,
  }, '›');

  const text = h('span', { class: 'tile-text' }, name, state, since);
  const np = d.kind === 'media' ? tileNowPlaying(glyph, d.name) : null; // cover art and progress
  if (np) text.append(np.bar);
  if (made.tile) text.append(made.tile); // a sensor's line of the last day
  // The tile's face: a label around the switch, so a tap anywhere on it
  // switches, or (no switch) a button that opens the details.
  const face = made.head
    ? h('label', { class: 'tile-main' }, glyph, text, made.head)
    : h('button', { type: 'button', class: 'tile-main', 'aria-label': `${d.name}: open`, onclick: open }, glyph, text);
  longPress(face, open);
  append(li, [face, chevron, sending, reason, dialog]);

  const paint = (v) => {
    const look = tileLook(d.kind, v, app.remote(d.id));
    state.textContent = look.text;
    if (twin) twin.checked = made.head.checked;
    li.classList.toggle('on', look.on);
    if (look.lit) glyph.style.setProperty('--lit', look.lit);
    else glyph.style.removeProperty('--lit');
    glyph.style.setProperty('--level', String(look.level ?? 1));
    if (np) np.update(v);
  };
  const showStatus = (v) => {
    const off = !v.online;
    li.classList.toggle('offline', off || !v.enabled);
    // An offline device shows when it last answered, not controls set to
    // values it never reported.
    since.hidden = !off && v.enabled;
    since.textContent = !v.enabled ? 'Disabled'
      : v.last_seen && when(v.last_seen) !== 'never' ? `Offline since ${when(v.last_seen)}` : 'Offline; it has not answered yet';
    if (made.body) made.body.hidden = off;
    // A TV asleep off the network still takes a power-on: the hub wakes
    // it by Wake-on-LAN first.
    const wakes = off && !!v.mac && v.pairing !== 'needed';
    for (const el of li.querySelectorAll('input, select, button:not(.chevron):not(.close)')) {
      el.disabled = !v.enabled || (off && !(wakes && el.hasAttribute('data-wakes')));
    }
  };
  paint(d);
  showStatus(d);
  if (remote) {
    app.watch(d.id, (v) => {
      remote.update(v);
      paint(shown);
    }, 'remote');
  }
  app.watch(d.id, (v) => {
    shown = v;
    update(v);
    paint(v);
    showStatus(v);
  }, d.kind);
  return li;
}

// longPress calls fn when el is held for half a second, and keeps that
// press from also clicking (switching) it.
function longPress(el, fn) {
  let timer = null;
  let fired = false;
  const cancel = () => { clearTimeout(timer); timer = null; };
  el.addEventListener('pointerdown', () => {
    fired = false;
    cancel();
    timer = setTimeout(() => { fired = true; fn(); }, 500);
  });
  for (const ev of ['pointerup', 'pointerleave', 'pointercancel']) el.addEventListener(ev, cancel);
  el.addEventListener('click', (ev) => {
    if (fired) {
      ev.preventDefault();
      fired = false;
    }
  }, true);
  el.addEventListener('contextmenu', (ev) => { if (fired) ev.preventDefault(); });
}

// tileLook is what a tile shows of a device: its state in words, whether
// it is on, and for a lit lamp its colour and level.
function tileLook(kind, v, remote) {
  if (!v.online) return { text: '', on: false };
  switch (kind) {
    case 'light': {
      const st = v.state || {};
      if (!st.on) return { text: 'Off', on: false };
      const parts = ['On'];
      if (v.capabilities && v.capabilities.dimmable !== false && st.brightness) parts.push(`${st.brightness}\u00a0%`);
      if (st.mode === 'effect' && st.effect) parts.push(st.effect);
      else if (st.mode === 'temperature' && st.kelvin) parts.push(`${st.kelvin}\u00a0K`);
      else if (st.mode === 'color' && st.color) parts.push('colour');
      const lit = st.mode === 'color' && st.color && st.color.hex ? `#${st.color.hex}`
        : st.mode === 'temperature' && st.kelvin ? kelvinRGB(st.kelvin)
          : st.mode === 'effect' ? 'conic-gradient(#e5484d, #f5d90a, #3e63dd, #e5484d)' : kelvinRGB(2700);
      return { text: parts.join(' · '), on: true, lit, level: 0.35 + (0.65 * (st.brightness || 100)) / 100 };
    }
    case 'power':
      if (v.power_kind === 'button') return { text: 'Button', on: false };
      return v.on ? { text: v.speed !== undefined && v.speed !== null ? `On · speed ${v.speed} %` : 'On', on: true } : { text: 'Off', on: false };
    case 'media': {
      const st = v.state || {};
      if (!st.power) return { text: 'Off', on: false };
      const np = st.now_playing;
      if (st.transport === 'playing') return { text: np && np.title ? `Playing ${np.title}` : 'Playing', on: true };
      if (remote && remote.current_app) return { text: `On · ${appName(remote)}`, on: true };
      return { text: st.volume !== undefined ? `On · volume\u00a0${st.volume}` : 'On', on: true };
    }
    case 'remote':
      return { text: v.current_app ? appName(v) : 'Remote', on: !!v.current_app };
    case 'sensor':
      return { text: (v.readings || []).map(reading).join(' · ') || 'No readings', on: false };
  }
  return { text: '', on: false };
}

// appName is the name of the app a remote's TV shows: from its list of
// apps, or for the system's own screens (not in that list) a name people
// know them by, else the package id it reports.
const systemApps = {
  'com.google.android.tvlauncher': 'Home screen',
  'com.google.android.apps.tv.launcherx': 'Home screen',
  'com.amazon.tv.launcher': 'Home screen',
  'com.google.android.tv': 'Inputs',
  'com.google.android.apps.mediashell': 'Cast',
  'com.android.tv.settings': 'Settings',
};

function appName(r) {
  const known = (r.apps || []).find((a) => a.id === r.current_app);
  return known ? known.name : systemApps[r.current_app] || r.current_app;
}

// iconKind is which icon a device's tile shows: its kind, and for a
// player what it is (a TV has a remote, a speaker joins groups, a
// receiver switches inputs).
function iconKind(d) {
  if (d.kind !== 'media') return d.kind;
  if (d.has_remote) return 'media';
  if (d.can_group) return 'speaker';
  return d.state && (d.state.sources || []).length ? 'receiver' : 'speaker';
}

// kindIcon draws the icon of a device kind, on a 24×24 grid.
const kindPaths = {
  light: 'M12 2a7 7 0 0 0-4 12.7V17h8v-2.3A7 7 0 0 0 12 2zM9 19h6v1.5a1.5 1.5 0 0 1-1.5 1.5h-3A1.5 1.5 0 0 1 9 20.5z',
  media: 'M4 5h16a1 1 0 0 1 1 1v10a1 1 0 0 1-1 1h-6v2h3v2H7v-2h3v-2H4a1 1 0 0 1-1-1V6a1 1 0 0 1 1-1z',
  power: 'M7 3h10v5h2v3a7 7 0 0 1-6 6.9V22h-2v-4.1A7 7 0 0 1 5 11V8h2zM9 5v3h2V5zm4 0v3h2V5z',
  remote: 'M9 2h6a2 2 0 0 1 2 2v16a2 2 0 0 1-2 2H9a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2zm3 3a2 2 0 1 0 0 4 2 2 0 0 0 0-4zm-2 7v2h4v-2zm0 4v2h4v-2z',
  speaker: 'M7 2h10a2 2 0 0 1 2 2v16a2 2 0 0 1-2 2H7a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2zm5 2.5a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3zm0 5a4.5 4.5 0 1 0 0 9 4.5 4.5 0 0 0 0-9zm0 2.5a2 2 0 1 1 0 4 2 2 0 0 1 0-4z',
  receiver: 'M2 6.5h20a1 1 0 0 1 1 1v9a1 1 0 0 1-1 1h-1.5V19h-3v-1.5h-11V19h-3v-1.5H2a1 1 0 0 1-1-1v-9a1 1 0 0 1 1-1zm15 3a2.5 2.5 0 1 0 0 5 2.5 2.5 0 0 0 0-5zM4 10v1.5h7V10zm0 3v1.5h5V13z',
  sensor: 'M12 2a3 3 0 0 1 3 3v8.3a5 5 0 1 1-6 0V5a3 3 0 0 1 3-3zm0 2a1 1 0 0 0-1 1v9.4l-.5.3a3 3 0 1 0 3 0l-.5-.3V5a1 1 0 0 0-1-1z',
};

function kindIcon(kind) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', kindPaths[kind] || kindPaths.sensor);
  path.setAttribute('fill-rule', 'evenodd');
  svg.append(path);
  return svg;
}

// honestly runs one write from a control: while it is out, el is marked
// busy and says "Sending…"; when the hub answers, the control shows what
// the hub reports (the event stream brings it); when the write fails or
// times out, springBack draws the last state the hub reported again, and
// the reason stays beside the control until the next write.
async function honestly(app, el, sending, reason, work, springBack) {
  const sendings = [sending].flat();
  const reasons = [reason].flat();
  el.classList.add('pending');
  el.setAttribute('aria-busy', 'true');
  for (const s of sendings) s.hidden = false;
  for (const r of reasons) r.hidden = true;
  const { value, error } = await app.attempt(work);
  el.classList.remove('pending');
  el.removeAttribute('aria-busy');
  for (const s of sendings) s.hidden = true;
  if (error) {
    springBack();
    for (const r of reasons) {
      r.textContent = `Not changed: ${error.message}`;
      r.hidden = false;
    }
    return undefined;
  }
  return value;
}

// A light: power, brightness, colour temperature, colour and effect, as
// the lamp supports them.
function lightRow(app, l, write) {
  const caps = l.capabilities || {};
  const st = () => l.state || {};
  const send = (patch) => write(() => put(at`/lights/${l.id}/state`, patch));
  const power = toggle(`${l.name} power`, st().on, (on) => send({ on }), { id: `light-power-${l.id}` });
  const bri = caps.dimmable !== false
    ? slider(`${l.name} brightness`, st().brightness ?? 0, 1, 100, (v) => send({ brightness: v }), { unit: '%', id: `light-bri-${l.id}` })
    : null;
  // The white, on a warm-to-cool gradient (a range input: the keyboard
  // works it as any slider).
  const temp = caps.kelvin_max
    ? slider(`${l.name} colour temperature`, st().kelvin || caps.kelvin_min, caps.kelvin_min, caps.kelvin_max,
      (k) => send({ kelvin: k }), { unit: 'K', step: 50, id: `light-temp-${l.id}`, class: 'temp-gradient' })
    : null;
  if (temp) {
    temp.input.style.setProperty('--warm', kelvinRGB(caps.kelvin_min));
    temp.input.style.setProperty('--cool', kelvinRGB(caps.kelvin_max));
  }
  // Green (−) to magenta (+) shift of the white, on lamps that take one.
  const gm = caps.gm
    ? slider(`${l.name} green–magenta`, st().gm || 0, -50, 50, (v) => send({ gm: v }), { id: `light-gm-${l.id}` })
    : null;
  const color = caps.color
    ? colourWheel(`${l.name} colour`, hexOf(st()), (hex) => send({ hex }), { id: `light-color-${l.id}` })
    : null;
  const presets = caps.color || caps.kelvin_max ? presetMenu(app, l, send) : null;
  const effects = caps.effects || [];
  const effect = effects.length
    ? select(`${l.name} effect`, [['', 'No effect'], ...effects.map((e) => [e, e])], st().effect || '', { id: `light-effect-${l.id}` })
    : null;
  if (effect) {
    effect.addEventListener('change', () => {
      if (effect.value) send({ effect: effect.value });
      else if (temp) send({ kelvin: Number(temp.input.value) });
      else send({ hex: color ? color.canvas.dataset.hex : '#ffffff' });
    });
  }
  // Outside the controls, which an offline light hides: its picture
  // shows it dark and crossed.
  const picture = lightPicture(l);
  const body = h('div', { class: 'controls' },
    bri ? labelled('Brightness', bri) : null,
    temp ? labelled('White', temp) : null,
    gm ? labelled('Tint', gm) : null,
    color ? labelled('Colour', color) : null,
    effect || presets ? h('div', { class: 'row' }, effect, presets) : null);
  const update = (v) => {
    l = v;
    power.checked = !!st().on;
    if (bri && st().brightness !== undefined) bri.set(st().brightness ?? 0);
    if (temp && st().kelvin) temp.set(st().kelvin);
    // The white slider shows a white only while the lamp shows one.
    if (temp) temp.classList.toggle('inactive', st().mode !== 'temperature');
    if (gm && st().mode === 'temperature') gm.set(st().gm || 0);
    if (color && document.activeElement !== color.canvas && st().mode === 'color') color.set(hexOf(st()));
    if (effect && document.activeElement !== effect) effect.value = st().mode === 'effect' ? st().effect || '' : '';
    picture.update(v);
  };
  update(l);
  return { head: power, body, update, picture: picture.el, opened: picture.show };
}

// lightPicture is the light as it looks now, as the hub draws it: read
// when the details open, and again at each change while they are open.
// The address names what the picture shows (v), so a change is a new
// address and an event that changes nothing reads nothing.
function lightPicture(l) {
  const img = h('img', { class: 'light-picture', width: '128', height: '128', decoding: 'async' });
  let shown = l;
  const show = () => {
    const src = `/api${at`/lights/${shown.id}/image`}?v=${lookKey(shown)}`;
    if (img.getAttribute('src') !== src) img.src = src;
  };
  const update = (v) => {
    shown = v;
    img.alt = `${v.name}, as it looks now`;
    if (img.closest('dialog')?.open) show();
  };
  update(l);
  return { el: img, update, show };
}

// lookKey is a short hash of what a light's picture shows: whether it
// answers, and its state.
function lookKey(l) {
  const s = JSON.stringify([l.online, l.state || null]);
  let hash = 0;
  for (let i = 0; i < s.length; i++) hash = (Math.imul(hash, 31) + s.charCodeAt(i)) | 0;
  return (hash >>> 0).toString(36);
}

// presetMenu offers the hub's light sources and gels, each in its group,
// read when the menu is first opened.
function presetMenu(app, l, send) {
  const menu = select(`${l.name} preset`, [['', 'A preset…']], '', { id: `light-preset-${l.id}` });
  let loaded = false;
  const load = async () => {
    if (loaded) return;
    loaded = true;
    const list = await app.run(() => get('/presets'));
    if (!list) { loaded = false; return; }
    const groups = [['source', 'Light sources'], ['gel', 'Gels']].map(([kind, label]) => {
      const fits = list.filter((p) => p.kind === kind && (p.kelvin || (l.capabilities || {}).color)); // no creative gel for a white-only lamp
      return fits.length
        ? h('optgroup', { label }, fits.map((p) => h('option', { value: p.id, text: presetLabel(p) })))
        : null;
    });
    append(menu, groups);
  };
  menu.addEventListener('focus', load);
  menu.addEventListener('pointerdown', load);
  menu.addEventListener('change', () => {
    if (menu.value) send({ preset: menu.value });
    menu.value = '';
  });
  return menu;
}

// presetLabel names a preset, and a gel from a swatch book by its maker
// and code too: "CTO ½ — Lee 442".
function presetLabel(p) {
  const book = [p.maker, p.code].filter(Boolean).join(' ');
  return book ? `${p.name} — ${book}` : p.name;
}

function hexOf(st) {
  return st.color && st.color.hex ? `#${st.color.hex.toLowerCase()}` : '#ffffff';
}

function labelled(text, control) {
  return h('div', { class: 'row' }, h('span', { class: 'label', text, 'aria-hidden': 'true' }), control);
}

// A media player: power, volume, mute, source, transport, now playing and
// favourites.
function mediaRow(app, m, write) {
  const st = () => m.state || {};
  const send = (patch) => write(() => put(at`/media/devices/${m.id}/state`, patch));
  const power = toggle(`${m.name} power`, st().power, (on) => send({ power: on }), { id: `media-power-${m.id}`, 'data-wakes': '' });
  const volume = slider(`${m.name} volume`, st().volume ?? 0, 0, 100, (v) => send({ volume: v }), { id: `media-vol-${m.id}` });
  const mute = h('button', { type: 'button', class: 'quiet', 'aria-label': `Mute ${m.name}`, id: `media-mute-${m.id}` });
  mute.addEventListener('click', () => send({ mute: !st().muted }));
  const sources = h('select', { 'aria-label': `${m.name} source`, id: `media-src-${m.id}` });
  sources.addEventListener('change', () => send({ source: sources.value }));
  const prev = h('button', { type: 'button', class: 'quiet icon', 'aria-label': `Previous on ${m.name}`, onclick: () => send({ transport: 'previous' }) }, icon('previous'));
  const play = h('button', { type: 'button', class: 'quiet icon', id: `media-play-${m.id}` });
  play.addEventListener('click', () => send({ transport: st().transport === 'playing' ? 'pause' : 'play' }));
  const next = h('button', { type: 'button', class: 'quiet icon', 'aria-label': `Next on ${m.name}`, onclick: () => send({ transport: 'next' }) }, icon('next'));
  const playing = h('p', { class: 'now-playing' });
  const shown = detailsNowPlaying(m.name, playing); // cover art and progress
  const body = h('div', { class: 'controls' },
    shown.el,
    labelled('Volume', volume),
    h('div', { class: 'row buttons' }, prev, play, next, mute, sources),
    m.has_favorites ? favorites(app, m) : null);
  const update = (v) => {
    m = v;
    const s = st();
    power.checked = !!s.power;
    volume.set(s.volume ?? 0);
    mute.setAttribute('aria-pressed', s.muted ? 'true' : 'false');
    mute.textContent = s.muted ? 'Unmute' : 'Mute';
    const isPlaying = s.transport === 'playing';
    play.replaceChildren(icon(isPlaying ? 'pause' : 'play'));
    play.setAttribute('aria-label', `${isPlaying ? 'Pause' : 'Play'} ${m.name}`);
    shown.update(v);
    const np = s.now_playing;
    playing.textContent = np && (np.title || np.app)
      ? [np.title, np.artist].filter(Boolean).join(' — ') || np.app
      : 'Nothing playing';
    if (document.activeElement !== sources) {
      const list = s.sources || [];
      sources.replaceChildren(...list.map((src) => h('option', { value: src, text: src, selected: src === s.source })));
      sources.hidden = list.length === 0;
    }
  };
  update(m);
  return { head: power, body, update };
}

// favorites is a menu of a speaker's favourites, read when first opened.
function favorites(app, m) {
  const menu = select(`${m.name} favourite`, [['', 'Play a favourite…']], '', { id: `media-fav-${m.id}` });
  let loaded = false;
  const load = async () => {
    if (loaded) return;
    loaded = true;
    const favs = await app.run(() => get(at`/media/devices/${m.id}/favorites`));
    if (!favs) { loaded = false; return; }
    for (const f of favs) menu.append(h('option', { value: f.id, text: f.title }));
  };
  menu.addEventListener('focus', load);
  menu.addEventListener('pointerdown', load);
  menu.addEventListener('change', async () => {
    const id = menu.value;
    if (!id) return;
    const title = menu.selectedOptions[0].textContent;
    await app.run(() => post(at`/media/devices/${m.id}/favorites/play`, { favorite: id }), `Playing ${title} on ${m.name}`);
    menu.value = '';
  });
  return h('div', { class: 'row' }, menu);
}

// A switch, plug or fan: power, and a fan's speed where it takes one. A
// button is never on: it has no switch, but a Press button in its details.
function powerRow(app, p, write) {
  const send = (body) => write(() => put(at`/power/devices/${p.id}/state`, body));
  if (p.power_kind === 'button') {
    const press = h('button', { type: 'button', id: `power-press-${p.id}`, 'aria-label': `Press ${p.name}`, text: 'Press', onclick: () => send({ on: true }) });
    return { head: null, body: h('div', { class: 'controls' }, h('div', { class: 'row buttons' }, press)), update: () => {} };
  }
  const power = toggle(`${p.name} power`, p.on, (on) => send({ on }), { id: `power-${p.id}` });
  const speed = p.speed_control
    ? slider(`${p.name} speed`, p.speed ?? 0, 0, 100, (v) => send({ speed: v }), { unit: '%', id: `power-speed-${p.id}` })
    : null;
  const update = (v) => {
    power.checked = !!v.on;
    if (speed && v.speed !== undefined) speed.set(v.speed);
  };
  return { head: power, body: speed ? h('div', { class: 'controls' }, labelled('Speed', speed)) : null, update };
}

// A TV remote on its own (one with no media face).
function remoteRow(app, r, write) {
  const { body, update } = remotePanel(app, r, write);
  return { head: null, body, update };
}

// remotePanel is a TV's remote: what is on screen, an app launcher, the
// arrow keys around OK, back, home and menu, volume keys, and text to type.
function remotePanel(app, r, write) {
  const send = (cmd) => write(() => post(at`/remote/devices/${r.id}/command`, cmd));
  const has = (k) => (r.keys || []).includes(k);
  const current = h('p', { class: 'now-playing' });
  const apps = select(`App to open on ${r.name}`, [['', 'Open an app…'], ...(r.apps || []).map((a) => [a.id, a.name])], '', { id: `remote-app-${r.id}` });
  apps.addEventListener('change', () => {
    if (apps.value) send({ app: apps.value });
    apps.value = '';
  });
  const key = (k, text, label, cls = 'quiet') => (has(k)
    ? h('button', {
      type: 'button', class: `${cls} key-${k}`, 'aria-label': `${label} on ${r.name}`, text, onclick: () => send({ key: k }),
      ...(k === 'power' ? { 'data-wakes': '' } : {}),
    })
    : null);
  const pad = h('div', { class: 'keypad', role: 'group', 'aria-label': `${r.name} arrow keys` },
    key('up', '▲', 'Up'), key('left', '◀', 'Left'), key('select', 'OK', 'OK', 'key-ok'), key('right', '▶', 'Right'), key('down', '▼', 'Down'));
  const nav = h('div', { class: 'row buttons', role: 'group', 'aria-label': `${r.name} keys` },
    key('back', 'Back', 'Back'), key('home', 'Home', 'Home'), key('menu', 'Menu', 'Menu'),
    key('play_pause', 'Play/Pause', 'Play/Pause'),
    key('volume_down', 'Vol −', 'Volume down'), key('volume_up', 'Vol +', 'Volume up'), key('mute', 'Mute', 'Mute'),
    key('power', 'Power', 'Power'));
  const text = h('input', { type: 'text', id: `remote-text-${r.id}`, 'aria-label': `Text to type on ${r.name}`, placeholder: 'Type on the TV…', autocomplete: 'off' });
  const typeForm = h('form', { class: 'row buttons' }, text, h('button', { type: 'submit', class: 'quiet', text: 'Send' }));
  typeForm.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!text.value) return;
    if (await send({ text: text.value })) text.value = '';
  });
  const update = (v) => {
    current.textContent = v.current_app ? `On screen: ${appName(v)}` : '';
  };
  update(r);
  const body = h('div', { class: 'controls remote', 'data-remote': r.id }, current, h('div', { class: 'row buttons' }, apps), pad, nav, typeForm);
  return { body, update };
}

// A sensor's readings.
function sensorRow(app, s) {
  const out = h('p', { class: 'readings' });
  // Its history: a line on the tile, charts in the details.
  const spark = sparkline(s);
  const charts = historyPanel(s);
  const update = (v) => {
    out.textContent = (v.readings || []).map(reading).join(' · ') || 'No readings';
    spark.changed(v);
    charts.changed(v);
  };
  out.textContent = (s.readings || []).map(reading).join(' · ') || 'No readings';
  return { head: null, body: h('div', { class: 'controls' }, out, charts.el), update, tile: spark.el, opened: charts.open };
}

function reading(r) {
  const yes = { motion: ['Motion', 'No motion'], occupancy: ['Occupied', 'Empty'], contact: ['Closed', 'Open'] };
  if (typeof r.bool === 'boolean' && yes[r.type]) return yes[r.type][r.bool ? 0 : 1];
  const units = { temperature: ' °C', humidity: ' %', illuminance: ' lx', power: ' W', energy: ' kWh', battery: ' %' };
  const unit = r.unit ? ` ${r.unit}` : units[r.type] || '';
  const value = Math.round(r.value * 10) / 10;
  // A value keeps its unit on its line (a no-break space between them).
  return `${r.type[0].toUpperCase()}${r.type.slice(1)} ${value}${unit.replace(' ', '\u00a0')}`;
}

// sceneBar lists scenes as buttons that activate them.
function sceneBar(app, scenes, label) {
  return h('div', { class: 'scenes', role: 'group', 'aria-label': label },
    scenes.map((s) => h('button', {
      type: 'button',
      class: 'chip',
      'aria-label': `Activate scene ${s.name}`,
      text: s.name,
      onclick: async () => {
        const res = await app.run(() => post(at`/scenes/${s.id}/activate`));
        if (!res) return;
        const text = fanoutText(s.name, res);
        if (applied(res) > 0) offerUndo(app, s.name, text);
        else toast(text);
      },
    })));
}

// applied is how many devices a write to many set.
function applied(res) {
  return (res.applied || []).length;
}

// fanoutText says how a write to many devices went (and shows what
// failed, which is never swallowed).
export function fanoutText(what, res) {
  const ok = applied(res);
  const failed = reportFailures(what, res);
  return `${what}: ${ok} device${ok === 1 ? '' : 's'} set${failed ? `, ${failed} failed` : ''}`;
}

// reportFailures shows the devices a write to many could not reach.
function reportFailures(what, res) {
  const failed = res.failed || [];
  if (failed.length) toast(`${what}: ${failed.map((f) => `${f.name}: ${f.error}`).join('; ')}`, 'error');
  return failed.length;
}
