// The dashboard: each room as a card with its power, brightness, scenes and
// occupancy, and every device in it with its controls. Devices follow the
// live event stream in place.

import { put, post, get, at } from './api.js';
import { h, append, toggle, slider, select, toast, icon, when } from './dom.js';

export function render(app) {
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
  return h('div', { class: 'page' },
    h('div', { class: 'page-head' },
      h('h1', { text: 'Dashboard' }),
      homeScenes.length ? sceneBar(app, homeScenes, 'Home scenes') : null),
    rooms.length === 0 && others.length === 0
      ? h('p', { class: 'empty', text: 'No devices yet. Adapters add them as they find them.' })
      : null,
    h('div', { class: 'grid rooms' }, cards));
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
      power),
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
  return h('section', { class: 'card room', 'aria-label': title },
    h('div', { class: 'card-head' }, h('h2', { text: title })),
    deviceList(app, ids));
}

function deviceList(app, ids) {
  const rows = ids.map((id) => app.device(id)).filter(Boolean).map((d) => deviceRow(app, d));
  return rows.length ? h('ul', { class: 'devices' }, rows) : h('p', { class: 'empty', text: 'No devices in this room.' });
}

const rowMakers = { light: lightRow, media: mediaRow, power: powerRow, remote: remoteRow, sensor: sensorRow };

function deviceRow(app, d) {
  const make = rowMakers[d.kind];
  const name = h('span', { class: 'name', text: d.name });
  const status = h('span', { class: 'badge' });
  const sending = h('span', { class: 'sending', text: 'Sending…', hidden: true });
  const reason = h('p', { class: 'reason error', role: 'status', hidden: true });
  const li = h('li', { class: `device ${d.kind}`, 'data-device': d.id });
  let shown = d; // the last view the hub reported, which a failed write springs back to
  let update = () => {};
  let remote = null;
  const write = (work) => honestly(app, li, sending, reason, work, () => {
    update(shown);
    if (remote && app.remote(d.id)) remote.update(app.remote(d.id));
  });
  const made = make(app, d, write);
  update = made.update;
  // A TV is one device with a media face and a remote face: its card has
  // both, the keypad and app launcher under the player's controls.
  const tvRemote = d.kind === 'media' ? app.remote(d.id) : null;
  remote = tvRemote ? remotePanel(app, tvRemote, write) : null;
  const { head, body } = made;
  const since = h('p', { class: 'since' });
  const showStatus = (v) => {
    const off = !v.online;
    status.hidden = v.online && v.enabled;
    status.textContent = !v.enabled ? 'Disabled' : 'Offline';
    status.className = `badge ${off ? 'warn' : ''}`;
    li.classList.toggle('offline', off || !v.enabled);
    // An offline device shows when it last answered, not controls set to
    // values it never reported.
    since.hidden = !off;
    since.textContent = v.last_seen && when(v.last_seen) !== 'never' ? `Offline since ${when(v.last_seen)}` : 'Offline; it has not answered yet';
    if (body) body.hidden = off;
    // A TV asleep off the network still takes a power-on: the hub wakes
    // it by Wake-on-LAN first.
    const wakes = off && !!v.mac && v.pairing !== 'needed';
    for (const el of li.querySelectorAll('input, select, button')) {
      el.disabled = !v.enabled || (off && !(wakes && el.hasAttribute('data-wakes')));
    }
  };
  append(li, [h('div', { class: 'device-head' }, name, status, sending, head), since, reason, body, remote ? remote.body : null]);
  showStatus(d);
  if (remote) app.watch(d.id, remote.update, 'remote');
  app.watch(d.id, (v) => {
    shown = v;
    update(v);
    showStatus(v);
  }, d.kind);
  return li;
}

// honestly runs one write from a control: while it is out, el is marked
// busy and says "Sending…"; when the hub answers, the control shows what
// the hub reports (the event stream brings it); when the write fails or
// times out, springBack draws the last state the hub reported again, and
// the reason stays beside the control until the next write.
async function honestly(app, el, sending, reason, work, springBack) {
  el.classList.add('pending');
  el.setAttribute('aria-busy', 'true');
  sending.hidden = false;
  reason.hidden = true;
  const { value, error } = await app.attempt(work);
  el.classList.remove('pending');
  el.removeAttribute('aria-busy');
  sending.hidden = true;
  if (error) {
    springBack();
    reason.textContent = `Not changed: ${error.message}`;
    reason.hidden = false;
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
  const temp = caps.kelvin_max
    ? slider(`${l.name} colour temperature`, st().kelvin || caps.kelvin_min, caps.kelvin_min, caps.kelvin_max,
      (k) => send({ kelvin: k }), { unit: 'K', step: 50, id: `light-temp-${l.id}` })
    : null;
  // Green (−) to magenta (+) shift of the white, on lamps that take one.
  const gm = caps.gm
    ? slider(`${l.name} green–magenta`, st().gm || 0, -50, 50, (v) => send({ gm: v }), { id: `light-gm-${l.id}` })
    : null;
  const color = caps.color
    ? h('input', { type: 'color', 'aria-label': `${l.name} colour`, id: `light-color-${l.id}`, value: hexOf(st()) })
    : null;
  if (color) color.addEventListener('change', () => send({ hex: color.value }));
  const effects = caps.effects || [];
  const effect = effects.length
    ? select(`${l.name} effect`, [['', 'No effect'], ...effects.map((e) => [e, e])], st().effect || '', { id: `light-effect-${l.id}` })
    : null;
  if (effect) {
    effect.addEventListener('change', () => {
      if (effect.value) send({ effect: effect.value });
      else if (temp) send({ kelvin: Number(temp.input.value) });
      else send({ hex: color ? color.value : '#ffffff' });
    });
  }
  const body = h('div', { class: 'controls' },
    bri ? labelled('Brightness', bri) : null,
    temp ? labelled('White', temp) : null,
    gm ? labelled('Tint', gm) : null,
    color || effect ? h('div', { class: 'row' }, color ? labelled('Colour', color) : null, effect) : null);
  const update = (v) => {
    l = v;
    power.checked = !!st().on;
    if (bri && st().brightness !== undefined) bri.set(st().brightness ?? 0);
    if (temp && st().kelvin) temp.set(st().kelvin);
    if (gm && st().mode === 'temperature') gm.set(st().gm || 0);
    if (color && document.activeElement !== color) color.value = hexOf(st());
    if (effect && document.activeElement !== effect) effect.value = st().mode === 'effect' ? st().effect || '' : '';
  };
  update(l);
  return { head: power, body, update };
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
  const body = h('div', { class: 'controls' },
    playing,
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

// A switch, plug or fan: power, and a fan's speed where it takes one.
function powerRow(app, p, write) {
  const send = (body) => write(() => put(at`/power/devices/${p.id}/state`, body));
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
    const app1 = (v.apps || []).find((a) => a.id === v.current_app);
    current.textContent = v.current_app ? `On screen: ${app1 ? app1.name : v.current_app}` : '';
  };
  update(r);
  const body = h('div', { class: 'controls remote', 'data-remote': r.id }, current, h('div', { class: 'row buttons' }, apps), pad, nav, typeForm);
  return { body, update };
}

// A sensor's readings.
function sensorRow(app, s) {
  const out = h('p', { class: 'readings' });
  const update = (v) => { out.textContent = (v.readings || []).map(reading).join(' · ') || 'No readings'; };
  update(s);
  return { head: null, body: out, update };
}

function reading(r) {
  const yes = { motion: ['Motion', 'No motion'], occupancy: ['Occupied', 'Empty'], contact: ['Closed', 'Open'] };
  if (typeof r.bool === 'boolean' && yes[r.type]) return yes[r.type][r.bool ? 0 : 1];
  const units = { temperature: ' °C', humidity: ' %', illuminance: ' lx', power: ' W', energy: ' kWh', battery: ' %' };
  const unit = r.unit ? ` ${r.unit}` : units[r.type] || '';
  const value = Math.round(r.value * 10) / 10;
  return `${r.type[0].toUpperCase()}${r.type.slice(1)} ${value}${unit}`;
}

// sceneBar lists scenes as buttons that activate them.
function sceneBar(app, scenes, label) {
  return h('div', { class: 'scenes', role: 'group', 'aria-label': label },
    scenes.map((s) => h('button', {
      type: 'button',
      class: 'chip',
      'aria-label': `Activate scene ${s.name}`,
      text: s.name,
      onclick: () => app.run(() => post(at`/scenes/${s.id}/activate`), (res) => fanoutText(s.name, res)),
    })));
}

// fanoutText says how a write to many devices went (and shows what
// failed, which is never swallowed).
export function fanoutText(what, res) {
  const ok = res.applied || 0;
  const failed = reportFailures(what, res);
  return `${what}: ${ok} device${ok === 1 ? '' : 's'} set${failed ? `, ${failed} failed` : ''}`;
}

// reportFailures shows the devices a write to many could not reach.
function reportFailures(what, res) {
  const failed = (res.results && res.results.failed) || [];
  if (failed.length) toast(`${what}: ${failed.map((f) => `${f.name}: ${f.error}`).join('; ')}`, 'error');
  return failed.length;
}
