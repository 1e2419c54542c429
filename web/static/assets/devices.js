// Devices: the whole inventory, online and offline; rename, assign a room,
// enable or disable.

import { get, patch, at } from './api.js';
import { h, field, select, toggle, busy, when } from './dom.js';

const kindNames = { light: 'Light', media: 'Media', power: 'Power', remote: 'Remote', sensor: 'Sensor' };

export async function render(app) {
  const list = (await app.run(() => get('/devices'))) || [];
  const rooms = [['', 'No room'], ...app.home.rooms.map((r) => [r.id, r.name])];
  const online = list.filter((d) => d.online).length;
  return h('div', { class: 'page' },
    h('h1', { text: 'Devices' }),
    h('p', { class: 'note', text: `${list.length} devices, ${online} online.` }),
    h('div', { class: 'table', role: 'list' }, list.map((d) => deviceItem(app, d, rooms))));
}

// onEvent keeps the inventory quiet while devices merely change state:
// only renames, moves and new devices redraw it.
export function onEvent(e) {
  return e.action === 'changed' && e.type !== 'device' && e.type !== 'room';
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
  return h('div', { class: `card device-item ${d.online ? '' : 'offline'}`, role: 'listitem', 'data-device': d.id },
    h('div', { class: 'card-head' },
      h('h2', { text: d.name }),
      h('span', { class: `badge ${d.online ? 'good' : 'warn'}`, text: d.online ? 'Online' : 'Offline' })),
    h('p', { class: 'meta' },
      h('span', { text: kindNames[d.kind] || d.kind }),
      h('span', { text: d.model || d.adapter }),
      h('code', { text: d.id }),
      d.online ? null : h('span', { text: `last seen ${when(d.last_seen)}` })),
    form,
    h('div', { class: 'row' }, field('Room', room), h('div', { class: 'field' }, h('span', { class: 'label', text: 'Enabled', 'aria-hidden': 'true' }), enabled)));
}
