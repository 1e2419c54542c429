// Rooms: create, rename and delete rooms; add and remove members of any
// kind.

import { post, patch, del, at } from './api.js';
import { h, field, select, confirmButton, busy } from './dom.js';

const kindNames = { light: 'Light', media: 'Media', power: 'Power', remote: 'Remote', sensor: 'Sensor' };

export function render(app) {
  const { rooms } = app.home;
  const devices = [...app.home.lights, ...app.home.media, ...app.home.power, ...app.home.remotes, ...app.home.sensors]
    .sort((a, b) => a.name.localeCompare(b.name));
  return h('div', { class: 'page' },
    h('h1', { text: 'Rooms' }),
    newRoomForm(app),
    rooms.length === 0 ? h('p', { class: 'empty', text: 'No rooms yet.' }) : null,
    h('div', { class: 'grid' }, rooms.map((r) => roomEditor(app, r, devices))));
}

function newRoomForm(app) {
  const name = h('input', { name: 'name', id: 'new-room-name', required: true, maxlength: 100 });
  const submit = h('button', { type: 'submit', class: 'primary', text: 'Create room' });
  const form = h('form', { class: 'card inline-form', 'aria-label': 'New room' }, field('New room', name), submit);
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

function roomEditor(app, room, devices) {
  const rename = h('input', { value: room.name, id: `room-name-${room.id}`, required: true, maxlength: 100 });
  const save = h('button', { type: 'submit', text: 'Rename' });
  const renameForm = h('form', { class: 'inline-form' }, field(`Name of ${room.name}`, rename), save);
  renameForm.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const r = await busy(save, () => app.run(() => patch(at`/rooms/${room.id}`, { name: rename.value }), (x) => `Renamed to ${x.name}`));
    if (r) app.refresh();
  });

  const members = room.members.map((m) => h('li', { class: 'member' },
    h('span', { class: 'name', text: m.name }),
    h('span', { class: 'kind', text: kindNames[m.kind] || m.kind }),
    m.online ? null : h('span', { class: 'badge warn', text: 'Offline' }),
    h('button', {
      type: 'button',
      class: 'quiet',
      'aria-label': `Remove ${m.name} from ${room.name}`,
      text: 'Remove',
      onclick: async (ev) => {
        const r = await busy(ev.currentTarget, () => app.run(() => del(at`/rooms/${room.id}/members/${m.id}`), `Removed ${m.name} from ${room.name}`));
        if (r) app.refresh();
      },
    })));

  const inRoom = new Set(room.members.map((m) => m.id));
  const candidates = devices.filter((d) => !inRoom.has(d.id));
  const pick = select(`Device to add to ${room.name}`,
    [['', 'Choose a device…'], ...candidates.map((d) => [d.id, `${d.name} (${kindNames[d.kind] || d.kind}${d.room ? `, in ${d.room}` : ''})`])],
    '', { id: `room-add-${room.id}` });
  const add = h('button', { type: 'submit', text: 'Add', 'aria-label': `Add device to ${room.name}` });
  const addForm = h('form', { class: 'inline-form' }, pick, add);
  addForm.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!pick.value) return;
    const r = await busy(add, () => app.run(() => post(at`/rooms/${room.id}/members`, { device: pick.value }), (x) => `Added to ${x.name}`));
    if (r) app.refresh();
  });

  const remove = confirmButton('Delete room', 'Press again to delete', async (b) => {
    const ok = await busy(b, () => app.run(async () => { await del(at`/rooms/${room.id}`); return true; }, `Deleted ${room.name}`));
    if (ok) app.refresh();
  }, { 'aria-label': `Delete room ${room.name}` });

  return h('section', { class: 'card', 'aria-labelledby': `edit-room-${room.id}`, 'data-room': room.id },
    h('div', { class: 'card-head' }, h('h2', { id: `edit-room-${room.id}`, text: room.name }), remove),
    renameForm,
    h('h3', { text: 'Members' }),
    members.length ? h('ul', { class: 'members' }, members) : h('p', { class: 'empty', text: 'No members yet.' }),
    addForm);
}
