// Scenes: capture a room or the whole home from its live state, activate,
// rename and delete.

import { post, patch, del, at } from './api.js';
import { h, field, select, confirmButton, busy, when, toast } from './dom.js';
import { fanoutText } from './dashboard.js';

export function render(app) {
  const { scenes, rooms } = app.home;
  return h('div', { class: 'page' },
    h('h1', { text: 'Scenes' }),
    captureForm(app, rooms),
    scenes.length === 0 ? h('p', { class: 'empty', text: 'No scenes yet: set the lights as you like them, then capture.' }) : null,
    h('div', { class: 'grid' }, scenes.map((s) => sceneCard(app, s))));
}

function captureForm(app, rooms) {
  const name = h('input', { id: 'scene-name', required: true, maxlength: 100 });
  const where = select('Capture from', [['', 'The whole home'], ...rooms.map((r) => [r.id, r.name])], '', { id: 'scene-room' });
  const submit = h('button', { type: 'submit', class: 'primary', text: 'Capture scene' });
  const form = h('form', { class: 'card inline-form', 'aria-label': 'Capture a scene' },
    field('Scene name', name), field('From', where), submit,
    h('p', { class: 'note', text: 'A scene keeps what the lights show (on or off, brightness, white or colour), which plugs, switches and fans are on, and whether TVs are on. Speakers, volumes and what plays are not kept.' }));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const sc = await busy(submit, () => app.run(() => post('/scenes', { name: name.value, room: where.value })));
    if (!sc) return;
    const skipped = sc.skipped || [];
    toast(`Captured ${sc.name}: ${sc.entries.length} devices${skipped.length ? `; skipped ${skipped.map((s) => s.name).join(', ')}` : ''}`);
    name.value = '';
    app.refresh();
  });
  return form;
}

function sceneCard(app, s) {
  const activate = h('button', {
    type: 'button',
    class: 'primary',
    'aria-label': `Activate scene ${s.name}`,
    text: 'Activate',
    onclick: (ev) => busy(ev.currentTarget, () => app.run(() => post(at`/scenes/${s.id}/activate`), (res) => fanoutText(s.name, res))),
  });
  const rename = h('input', { value: s.name, id: `scene-name-${s.id}`, required: true, maxlength: 100 });
  const save = h('button', { type: 'submit', text: 'Rename' });
  const form = h('form', { class: 'inline-form' }, field(`Name of ${s.name}`, rename), save);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const r = await busy(save, () => app.run(() => patch(at`/scenes/${s.id}`, { name: rename.value }), (x) => `Renamed to ${x.name}`));
    if (r) app.refresh();
  });
  const remove = confirmButton('Delete', 'Press again to delete', async (b) => {
    const ok = await busy(b, () => app.run(async () => { await del(at`/scenes/${s.id}`); return true; }, `Deleted ${s.name}`));
    if (ok) app.refresh();
  }, { 'aria-label': `Delete scene ${s.name}` });
  const names = s.entries.map((e) => (app.device(e.device_id) || { name: e.device_id }).name);
  return h('section', { class: 'card', 'aria-labelledby': `scene-${s.id}`, 'data-scene': s.id },
    h('div', { class: 'card-head' }, h('h2', { id: `scene-${s.id}`, text: s.name }), activate),
    h('p', { class: 'meta' },
      h('span', { text: s.room ? `Room scene · ${s.room}` : 'Home scene' }),
      h('span', { text: `captured ${when(s.created_at)}` })),
    h('p', { class: 'scene-devices', text: names.join(', ') }),
    h('div', { class: 'row spread' }, form, remove));
}
