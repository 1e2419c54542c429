// Settings → Enroll a device and Settings → Kiosks, for admins. Enroll a
// device makes a pairing code and shows it as a QR code, with the text it
// holds and the time it has left (five minutes, one device); the Bifrost
// Kiosk app scans it and gets a key of its own. Kiosks lists the tablets
// that check in: the room each is in (which its voice commands are said
// in), its last check-in (app, battery, screen, sound), Sleep and Wake,
// and Revoke (its key).

import { get, post, put, del, at } from './api.js';
import { h, select, confirmButton, busy, when, replace, toast } from './dom.js';

let kiosksBox = null; // the kiosks table on the page
let rooms = []; // the house's rooms, for the room pickers
let pairing = null; // the open pairing dialog: { id, redeemed(name) }
let redraw = null; // a pending redraw of the kiosks table

// kioskSections are the two sections, for an admin's Settings page.
export function kioskSections(app) {
  kiosksBox = h('div', { class: 'table-wrap', id: 'kiosks' }, h('p', { class: 'loading', text: 'Loading…' }));
  load(app);
  return [enrollSection(app), kiosksSection()];
}

// onKioskEvent follows the hub: a kiosk that checks in for the first
// time, changes, or is sent something redraws the table; a pairing code
// redeemed says so in its dialog.
export function onKioskEvent(e, app) {
  if (e.type === 'enrollment' && pairing && e.id === pairing.id) pairing.redeemed(e.data && e.data.name);
  if (e.type === 'kiosk' || e.type === 'key') refreshSoon(app);
}

function refreshSoon(app) {
  clearTimeout(redraw);
  redraw = setTimeout(() => load(app), 150);
}

// load reads the kiosks and the rooms and draws the table; while the page
// shows, again every 30 seconds, so "online" keeps up with the clock.
async function load(app) {
  if (!kiosksBox) return;
  const [list, roomList] = await Promise.all([app.run(() => get('/kiosks')), app.run(() => get('/rooms'))]);
  if (!list || (kiosksBox.dataset.drawn && !kiosksBox.isConnected)) return; // the page has moved on
  rooms = roomList || rooms;
  drawKiosks(app, list);
  kiosksBox.dataset.drawn = '1';
  clearTimeout(redraw);
  redraw = setTimeout(() => { if (kiosksBox && kiosksBox.isConnected) load(app); }, 30000);
}

function enrollSection(app) {
  const open = h('button', { type: 'button', class: 'primary', id: 'enroll-open', text: 'Enroll a device…', 'aria-haspopup': 'dialog' });
  open.addEventListener('click', () => enrollDialog(app, open));
  return h('section', { class: 'card', 'aria-labelledby': 'enroll-title' },
    h('h2', { id: 'enroll-title', text: 'Enroll a device' }),
    h('p', { class: 'note', text: 'Pair a wall tablet running the Bifrost Kiosk app: in the app’s settings, tap Scan and point the camera at the QR code. '
      + 'It gets an API key of its own (control, named after the tablet), listed under API keys and revoked there or under Kiosks.' }),
    open);
}

// qrImage draws a QR code ({size, path}: the dark modules as an SVG path
// on a grid of one unit a module) at any size.
function qrImage(qr, label) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `0 0 ${qr.size} ${qr.size}`);
  svg.setAttribute('shape-rendering', 'crispEdges');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.setAttribute('class', 'qr');
  const ground = document.createElementNS(ns, 'rect');
  ground.setAttribute('width', qr.size);
  ground.setAttribute('height', qr.size);
  ground.setAttribute('fill', '#fff');
  const modules = document.createElementNS(ns, 'path');
  modules.setAttribute('d', qr.path);
  modules.setAttribute('fill', '#000');
  svg.append(ground, modules);
  return svg;
}

// remaining says how long a code has left: "4:59".
function remaining(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

// loopback reports whether a pairing code sends the tablet to the hub as
// "localhost": the address this browser reached it at, and no tablet's.
function loopback(payload) {
  try {
    const host = new URL(JSON.parse(payload).base_url).hostname;
    return host === 'localhost' || host.startsWith('127.') || host === '[::1]';
  } catch (e) {
    return false;
  }
}

// enrollDialog makes a pairing code and shows it until it is used, runs
// out, or the dialog is closed; Make a new code starts again.
async function enrollDialog(app, opener) {
  const body = h('div', { class: 'enroll-body' });
  const status = h('p', { id: 'enroll-status', role: 'status' });
  const again = h('button', { type: 'button', class: 'quiet', id: 'enroll-again', text: 'Make a new code' });
  const close = h('button', { type: 'button', class: 'primary', id: 'enroll-close', text: 'Done' });
  const dialog = h('dialog', { class: 'card pair-dialog enroll-dialog', 'aria-labelledby': 'enroll-dialog-title', 'aria-describedby': 'enroll-steps' },
    h('h2', { id: 'enroll-dialog-title', text: 'Enroll a device' }),
    h('p', { id: 'enroll-steps', class: 'note', text: 'In the Bifrost Kiosk app’s settings, tap Scan and point the tablet at this code. It works once, for five minutes.' }),
    body, status,
    h('div', { class: 'row buttons dialog-buttons' }, again, close));
  let tick = null;
  const stop = () => { clearInterval(tick); pairing = null; };
  const show = async () => {
    stop();
    status.textContent = '';
    replace(body, h('p', { class: 'loading', text: 'Making a code…' }));
    const code = await busy(again, () => app.run(() => post('/enrollment')));
    if (!code) { replace(body, h('p', { class: 'error', text: 'No code could be made.' })); return; }
    const expires = Date.now() + code.expires_in_secs * 1000;
    const countdown = h('p', { class: 'enroll-expiry', id: 'enroll-expiry' });
    const qr = h('div', { class: 'qr-box', id: 'enroll-qr' }, qrImage(code.qr, 'QR code to scan with the Bifrost Kiosk app'));
    replace(body, qr,
      countdown,
      h('details', { class: 'enroll-text' },
        h('summary', { text: 'What the code holds' }),
        h('code', { class: 'secret', id: 'enroll-payload', text: code.payload })));
    const count = () => {
      const left = expires - Date.now();
      if (left > 0) { countdown.textContent = `Expires in ${remaining(left)}`; return; }
      stop();
      qr.classList.add('spent');
      countdown.textContent = 'This code has expired. Make a new code to pair a device.';
      again.focus();
    };
    count();
    tick = setInterval(count, 1000);
    if (loopback(code.payload)) {
      status.textContent = 'This code sends the tablet to this computer’s own address, which it cannot reach. '
        + 'Open Settings at the hub’s network address (e.g. http://192.168.1.20:3000) and make a new code there.';
    }
    pairing = {
      id: code.id,
      redeemed: (name) => {
        stop();
        qr.classList.add('spent');
        countdown.textContent = '';
        status.textContent = `Paired ${name || 'a device'}. It appears under Kiosks when it checks in; put it in a room there.`;
        toast(`Paired ${name || 'a device'}`);
        close.focus();
      },
    };
  };
  again.addEventListener('click', show);
  close.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => {
    stop();
    dialog.remove();
    (document.getElementById(opener.id) || opener).focus();
  });
  document.body.append(dialog);
  dialog.showModal();
  await show();
}

function kiosksSection() {
  return h('section', { class: 'card', 'aria-labelledby': 'kiosks-title' },
    h('h2', { id: 'kiosks-title', text: 'Kiosks' }),
    h('p', { class: 'note', text: 'Wall tablets that check in with their key. A kiosk’s room is where its voice commands happen when they name none.' }),
    kiosksBox);
}

// cell is a table cell that names its column (the stacked rows of a
// phone show it).
function cell(label, ...children) {
  return h('td', { 'data-label': label }, ...children);
}

// battery says a kiosk's battery: "87 %, charging", "on mains".
function battery(k) {
  const parts = [];
  if (k.battery_level !== null && k.battery_level !== undefined) parts.push(`${k.battery_level} %`);
  if (k.battery_charging) parts.push('charging');
  if (k.power_source && k.power_source !== 'none') parts.push(`on ${k.power_source === 'ac' ? 'mains' : k.power_source}`);
  return parts.length ? parts.join(', ') : '—';
}

// screen says whether its screen was on at its last check-in.
function screen(k) {
  if (k.screen_on === null || k.screen_on === undefined) return '—';
  return k.screen_on ? 'On' : 'Off';
}

// sound says what its microphone last heard, when it listens.
function sound(k) {
  if (!k.mic_presence && k.noise_elevated === null) return 'Not listening';
  if (k.noise_elevated === null || k.noise_elevated === undefined) return 'Nothing heard yet';
  const level = k.mic_level === null || k.mic_level === undefined ? '' : ` (${Math.round(k.mic_level)} dBFS)`;
  return (k.noise_elevated ? 'Someone there' : 'Quiet') + level;
}

// seen says when a kiosk last checked in, and whether it is online.
function seen(k) {
  return h('span', {},
    h('span', { class: `badge ${k.online ? 'good' : ''}`, text: k.revoked ? 'Revoked' : k.online ? 'Online' : 'Offline' }),
    ' ', h('time', { datetime: k.last_seen, text: when(k.last_seen) }));
}

function roomPicker(app, k) {
  const options = [['', 'No room'], ...rooms.map((r) => [r.id, r.name])];
  const el = select(`Room of ${k.name}`, options, k.room_id || '', { id: `kiosk-room-${k.id}`, disabled: k.revoked });
  el.addEventListener('change', async () => {
    el.disabled = true;
    const done = await app.run(() => put(at`/kiosks/${k.id}/room`, { room: el.value }),
      (x) => (x.room ? `${x.name} is in the ${x.room} now` : `${x.name} is in no room now`));
    el.disabled = false;
    if (!done) el.value = k.room_id || '';
  });
  return el;
}

function micPicker(app, k) {
  const options = [['off', 'Off'], ['low', 'Low'], ['medium', 'Medium'], ['high', 'High']];
  const value = k.mic_presence ? k.mic_sensitivity : 'off';
  const el = select(`Sound presence of ${k.name}`, options, value, { id: `kiosk-mic-${k.id}`, disabled: k.revoked });
  el.addEventListener('change', async () => {
    const on = el.value !== 'off';
    const body = on ? { enabled: true, sensitivity: el.value } : { enabled: false };
    el.disabled = true;
    const done = await app.run(() => put(at`/kiosks/${k.id}/mic`, body),
      (x) => `Sound presence of ${x.name} ${on ? 'on' : 'off'}: it takes it at its next check-in`);
    el.disabled = false;
    if (!done) el.value = value;
  });
  return el;
}

function command(app, k, cmd, text) {
  return h('button', {
    type: 'button', text, id: `kiosk-${cmd}-${k.id}`, 'aria-label': `${text} ${k.name}`,
    onclick: (ev) => busy(ev.currentTarget, () => app.run(() => post(at`/kiosks/${k.id}/command`, { command: cmd }),
      `Sent ${cmd} to ${k.name}`)),
  });
}

function drawKiosks(app, list) {
  if (list.length === 0) {
    replace(kiosksBox, h('p', { class: 'empty', text: 'No kiosk has checked in yet. Enroll a device to pair one.' }));
    return;
  }
  // A picker in use is not pulled from under the hand.
  if (kiosksBox.contains(document.activeElement) && document.activeElement.tagName === 'SELECT') return;
  const rows = list.map((k) => h('tr', { 'data-kiosk': k.id, class: k.revoked ? 'revoked' : '' },
    h('td', { class: 'title' }, k.name, h('code', { text: `${k.key_prefix}…` })),
    cell('Room', roomPicker(app, k)),
    cell('Last check-in', seen(k)),
    cell('App', k.app_version || '—'),
    cell('Battery', battery(k)),
    cell('Screen', screen(k)),
    cell('Sound', micPicker(app, k), h('small', { class: 'hint', text: sound(k) })),
    h('td', { class: 'actions' }, k.revoked ? null : [
      command(app, k, 'sleep', 'Sleep'), ' ', command(app, k, 'wake', 'Wake'), ' ',
      confirmButton('Revoke', 'Press again to revoke', async (b) => {
        await busy(b, () => app.run(() => del(at`/api-keys/${k.key_id}`), `Revoked ${k.name}: it must be paired again`));
      }, { 'aria-label': `Revoke kiosk ${k.name}` }),
    ])));
  replace(kiosksBox, h('table', { class: 'kiosks' },
    h('caption', { class: 'visually-hidden', text: 'Kiosks' }),
    h('thead', {}, h('tr', {}, ['Name', 'Room', 'Last check-in', 'App', 'Battery', 'Screen', 'Sound', '']
      .map((t) => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, rows)));
}
