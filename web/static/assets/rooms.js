// Rooms: each room as a card that says what is in it (a count, and its
// devices as chips, each with a button that takes it out) and adds more;
// renamed in place, and deleted from its "⋯" menu after a confirmation
// that says what goes with it. A form at the top makes a new room.

import { get, post, patch, del, at } from './api.js';
import { h, field, busy } from './dom.js';
import { menu, confirmAction } from './menus.js';

const kindOrder = ['light', 'media', 'power', 'remote', 'sensor', 'other'];
const groupNames = { light: 'Lights', media: 'Media', power: 'Power', remote: 'Remotes', sensor: 'Sensors', other: 'Other devices' };

// What a device is called in a room's count, singular and plural: media
// players by their class, power devices by what sort they are.
const nouns = {
  light: ['light', 'lights'],
  tv: ['TV', 'TVs'], speaker: ['speaker', 'speakers'], receiver: ['receiver', 'receivers'],
  zone: ['receiver zone', 'receiver zones'], media: ['media player', 'media players'],
  outlet: ['plug', 'plugs'], switch: ['switch', 'switches'], toggle: ['switch', 'switches'], fan: ['fan', 'fans'],
  button: ['button', 'buttons'],
  power: ['power device', 'power devices'],
  remote: ['remote', 'remotes'], sensor: ['sensor', 'sensors'], other: ['other device', 'other devices'],
};

let renaming = null; // the id of the room whose name is being edited

export async function render(app) {
  if (!document.querySelector('.rooms-page')) renaming = null;
  const inventory = await app.run(() => get('/devices'));
  const { rooms } = app.home;
  const sorts = new Map(); // for the words of the counts
  for (const m of app.home.media || []) sorts.set(m.id, m.class);
  for (const p of app.home.power || []) sorts.set(p.id, p.power_kind);
  const ctx = { sorts, devices: inventory || snapshotDevices(app.home), scenes: app.home.scenes || [] };
  return h('div', { class: 'page rooms-page' },
    h('h1', { text: 'Rooms' }),
    newRoomForm(app),
    rooms.length === 0 ? h('p', { class: 'empty', text: 'No rooms yet. Name one above, then add its devices.' }) : null,
    h('div', { class: 'grid room-grid' }, rooms.map((r) => roomCard(app, r, ctx))));
}

// snapshotDevices lists the devices of the house's snapshot, each once (a
// TV is both a media player and a remote), when the inventory cannot be
// read.
function snapshotDevices(home) {
  const seen = new Map();
  for (const d of [...home.lights, ...home.media, ...home.power, ...home.remotes, ...home.sensors]) {
    if (!seen.has(d.id)) seen.set(d.id, d);
  }
  return [...seen.values()];
}

function newRoomForm(app) {
  const name = h('input', { name: 'name', id: 'new-room-name', required: true, maxlength: 100, autocomplete: 'off', placeholder: 'e.g. Studio' });
  const submit = h('button', { type: 'submit', class: 'primary', text: 'Create room' });
  const form = h('form', { class: 'card inline-form new-room', 'aria-label': 'New room' }, field('New room', name), submit);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const room = await busy(submit, () => app.run(() => post('/rooms', { name: name.value, members: [] }), (r) => `Created ${r.name}`));
    if (room) {
      name.value = '';
      app.refresh();
    }
  });
  return form;
}

// countLine sums up a room's devices: "3 lights, 1 speaker, 2 sensors".
function countLine(members, sorts) {
  const counts = new Map();
  const rank = (m) => (kindOrder.includes(m.kind) ? kindOrder.indexOf(m.kind) : kindOrder.length);
  const ordered = [...members].sort((a, b) => rank(a) - rank(b));
  for (const m of ordered) {
    const sort = sorts.get(m.id);
    const key = (m.kind === 'media' || m.kind === 'power') && nouns[sort] ? sort : (nouns[m.kind] ? m.kind : 'other');
    counts.set(key, (counts.get(key) || 0) + 1);
  }
  if (counts.size === 0) return 'No devices';
  return [...counts].map(([key, n]) => `${n} ${nouns[key][n === 1 ? 0 : 1]}`).join(', ');
}

function roomCard(app, room, ctx) {
  const headingId = `edit-room-${room.id}`;
  const heading = h('h2', { id: headingId, text: room.name });
  const card = h('section', { class: 'card room-card', 'aria-labelledby': headingId, 'data-room': room.id });
  // The name is edited in place of the heading; a redraw meanwhile keeps
  // the editor open (and what was typed: app.js puts it back).
  const rename = (focus) => {
    renaming = room.id;
    const form = renameForm(app, room, () => {
      renaming = null;
      form.replaceWith(heading);
      more.button.focus();
    });
    heading.replaceWith(form);
    if (focus) {
      form.querySelector('input').focus();
      form.querySelector('input').select();
    }
  };
  const more = menu(room.id, `room-more-${room.id}`, `More for ${room.name}`, [
    { id: `room-rename-${room.id}`, text: 'Rename', act: () => rename(true) },
    { id: `room-delete-${room.id}`, text: 'Delete room…', danger: true, act: (button) => confirmDelete(app, room, ctx, button) },
  ]);
  card.append(
    h('div', { class: 'card-head' }, heading, more.wrap),
    h('p', { class: 'room-count', text: countLine(room.members, ctx.sorts) }),
    chips(app, room),
    addForm(app, room, ctx.devices));
  if (renaming === room.id) rename(false);
  return card;
}

// renameForm edits a room's name in place of its heading; Escape or
// Cancel puts the heading back.
function renameForm(app, room, cancel) {
  const input = h('input', {
    id: `room-name-${room.id}`, value: room.name, required: true, maxlength: 100, autocomplete: 'off',
    'aria-label': `New name for ${room.name}`,
  });
  const save = h('button', { type: 'submit', class: 'primary', text: 'Save' });
  const back = h('button', { type: 'button', class: 'quiet', text: 'Cancel', onclick: cancel });
  const form = h('form', { class: 'inline-form room-rename', 'aria-label': `Rename ${room.name}` }, input, save, back);
  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') {
      ev.preventDefault();
      cancel();
    }
  });
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const r = await busy(save, () => app.run(() => patch(at`/rooms/${room.id}`, { name: input.value }), (x) => `Renamed to ${x.name}`));
    if (!r) return;
    renaming = null;
    await app.refreshNow();
    document.getElementById(`room-more-${room.id}`)?.focus();
  });
  return form;
}

// chips are a room's devices, each with a button that takes it out of the
// room (it stays in the house, in no room).
function chips(app, room) {
  if (room.members.length === 0) return h('p', { class: 'empty room-empty', text: 'No devices in this room yet.' });
  const members = [...room.members].sort((a, b) => a.name.localeCompare(b.name));
  return h('ul', { class: 'chips', role: 'list', 'aria-label': `Devices in ${room.name}` }, members.map((m, i) => {
    const next = members[i + 1] || members[i - 1];
    return h('li', { class: `member chip${m.online ? '' : ' offline'}`, 'data-device': m.id },
      h('span', { class: 'name', text: m.name }),
      m.online ? null : h('span', { class: 'chip-note', text: 'offline' }),
      h('button', {
        type: 'button', class: 'chip-remove', id: `room-remove-${room.id}-${m.id}`, text: '×',
        'aria-label': `Remove ${m.name} from ${room.name}`, title: `Remove ${m.name} from ${room.name}`,
        onclick: async (ev) => {
          const { error } = await busy(ev.currentTarget, () => app.attempt(() => del(at`/rooms/${room.id}/members/${m.id}`), `Removed ${m.name} from ${room.name}`));
          if (error) return;
          await app.refreshNow();
          // Focus stays in the room: on the next chip, or the menu that adds.
          const to = (next && document.getElementById(`room-remove-${room.id}-${next.id}`)) || document.getElementById(`room-add-${room.id}`);
          if (to) to.focus();
        },
      }));
  }));
}

// addForm adds a device that is not in the room, chosen from a menu
// grouped by kind; one in another room moves from there.
function addForm(app, room, devices) {
  const inRoom = new Set(room.members.map((m) => m.id));
  const candidates = devices.filter((d) => !inRoom.has(d.id)).sort((a, b) => a.name.localeCompare(b.name));
  const pick = h('select', { id: `room-add-${room.id}`, 'aria-label': `Device to add to ${room.name}`, 'data-initial': '' },
    h('option', { value: '', text: candidates.length ? 'Add a device…' : 'Every device is in this room' }),
    kindOrder.map((k) => {
      const of = candidates.filter((d) => (kindOrder.includes(d.kind) ? d.kind : 'other') === k);
      return of.length ? h('optgroup', { label: groupNames[k] },
        of.map((d) => h('option', { value: d.id, text: `${d.name} (${d.room ? `in ${d.room}` : 'no room'})` }))) : null;
    }));
  const add = h('button', { type: 'submit', text: 'Add', 'aria-label': `Add device to ${room.name}` });
  const form = h('form', { class: 'inline-form room-add', 'aria-label': `Add a device to ${room.name}` }, pick, add);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!pick.value) return;
    const name = pick.selectedOptions[0].textContent.replace(/ \([^)]*\)$/, '');
    const r = await busy(add, () => app.run(() => post(at`/rooms/${room.id}/members`, { device: pick.value }), (x) => `Added ${name} to ${x.name}`));
    if (r) app.refresh();
  });
  return form;
}

// confirmDelete asks before deleting a room, saying what becomes of its
// devices (they stay, in no room) and its scenes (deleted with it), as
// the hub has them now.
async function confirmDelete(app, room, ctx, opener) {
  const [fresh, allScenes] = await Promise.all([
    get(at`/rooms/${room.id}`).catch(() => room),
    get('/scenes').catch(() => ctx.scenes),
  ]);
  const scenes = (allScenes || []).filter((s) => s.room_id === room.id);
  const members = (fresh && fresh.members) || room.members;
  const n = members.length;
  const devicesText = n === 0
    ? 'It has no devices.'
    : `Its ${n === 1 ? 'device' : `${n} devices`} (${members.map((m) => m.name).join(', ')}) ${n === 1 ? 'stays' : 'stay'} in the house, in no room.`;
  const scenesText = scenes.length === 0
    ? 'It has no scenes of its own.'
    : `${scenes.length === 1 ? 'Its scene' : `Its ${scenes.length} scenes`} ${scenes.map((s) => s.name).join(', ')} ${scenes.length === 1 ? 'is' : 'are'} deleted with it.`;
  confirmAction({
    id: 'room-delete', title: `Delete ${room.name}?`, confirmText: `Delete ${room.name}`, opener, data: { 'data-room': room.id },
    paragraphs: [devicesText, scenesText, 'This cannot be undone.'],
    act: () => app.run(async () => {
      await del(at`/rooms/${room.id}`);
      await app.refreshNow();
      return true;
    }, `Deleted ${room.name}`),
  });
}
