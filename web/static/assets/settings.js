// Settings: your password, API keys (minted, listed, revoked; a key is
// shown once), users, and for admins integrations, backups and the audit
// log (each entry as the hub's sentence, who made it and when). An admin
// manages every key; anyone else sees and revokes only their own (the hub
// answers each with what they may see). On a phone the tables become stacked rows
// (settings.css), each cell with its column's name.

import { get, post, put, del, at } from './api.js';
import { h, field, select, confirmButton, busy, when, replace, toast } from './dom.js';
import { integrationsSection } from './integrations.js';
import { voiceSection } from './voice-settings.js';
import { kioskSections, onKioskEvent } from './kiosks.js';
import { backupsSection } from './backups.js';

let keysBox = null; // the keys table on the page, redrawn on key events
let owners = new Map(); // user id → username, to say whose each key is

export async function render(app) {
  const admin = app.session.user.admin;
  const [keys, users, audit, mqtt, hass, location, voice, deck, backups] = await Promise.all([
    app.run(() => get('/api-keys')),
    app.run(() => get('/users')),
    admin ? app.run(() => get('/audit?limit=100')) : null,
    admin ? app.run(() => get('/integrations/mqtt')) : null,
    admin ? app.run(() => get('/integrations/hass')) : null,
    admin ? app.run(() => get('/integrations/location')) : null,
    admin ? app.run(() => get('/integrations/voice')) : null,
    app.run(() => get('/streamdeck')),
    admin ? app.run(() => get('/backups')) : null,
  ]);
  owners = new Map((users || []).map((u) => [u.id, u.username]));
  keysBox = h('div', { class: 'table-wrap' });
  drawKeys(app, keys || []);
  return h('div', { class: 'page settings' },
    h('h1', { text: 'Settings' }),
    accountSection(app),
    h('section', { class: 'card', 'aria-labelledby': 'keys-title' },
      h('h2', { id: 'keys-title', text: 'API keys' }),
      h('p', { class: 'note', text: 'Scripts, dashboards and assistants use keys with /api/v1 and /mcp: Authorization: Bearer bfr_…' }),
      admin ? null : h('p', { class: 'note', text: 'These are your keys; an admin manages everyone’s.' }),
      newKeyForm(app),
      keysBox),
    admin ? kioskSections(app) : null,
    usersSection(app, users || []),
    mqtt || hass ? integrationsSection(app, { mqtt, hass }) : null,
    location ? locationSection(app, location) : null,
    voice ? voiceSection(app, voice) : null,
    deck ? streamDeckSection(deck) : null,
    backups ? backupsSection(app, backups) : null,
    admin ? auditSection(audit || []) : null);
}

// streamDeckSection says whether NeewerLite's Stream Deck API is on, and
// where; it is set when the hub starts, not here.
function streamDeckSection(deck) {
  const state = deck.on
    ? `On: NeewerLite's Stream Deck plugin works every light from ${deck.addr}.`
    : 'Off. Start the hub with BIFROST_STREAMDECK_ADDR=127.0.0.1:18486 for NeewerLite’s Stream Deck plugin to work the lights.';
  return h('section', { class: 'card stream-deck', 'aria-labelledby': 'deck-title' },
    h('h2', { id: 'deck-title', text: 'Stream Deck' }),
    h('p', { id: 'deck-state', text: state }),
    deck.on && deck.network
      ? h('p', { class: 'note', text: 'It listens beyond this machine and takes no key: anyone on the network who reaches it can work the lights.' })
      : null);
}

// locationSection is where the hub is, for automations' sunrise and sunset.
function locationSection(app, loc) {
  const num = (id, v, min, max) => h('input', {
    type: 'number', id, step: 'any', min, max, value: v ?? '', disabled: loc.fixed, inputmode: 'decimal',
  });
  const lat = num('loc-lat', loc.latitude, -90, 90);
  const lon = num('loc-lon', loc.longitude, -180, 180);
  const save = h('button', { type: 'submit', text: 'Save location', disabled: loc.fixed });
  const error = h('p', { class: 'error', role: 'alert', id: 'loc-error' });
  const form = h('form', { class: 'inline-form', 'aria-label': 'Location' },
    field('Latitude', lat, 'Degrees north, e.g. 52.52; south is negative.'),
    field('Longitude', lon, 'Degrees east, e.g. 13.405; west is negative.'),
    save, error);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    error.textContent = '';
    const value = (el) => (el.value.trim() === '' ? null : Number(el.value));
    try {
      await busy(save, () => put('/integrations/location', { latitude: value(lat), longitude: value(lon) }));
      toast(value(lat) === null ? 'Location cleared' : 'Location saved: sunrise and sunset are now computed for it');
    } catch (e) {
      error.textContent = e.message;
    }
  });
  return h('section', { class: 'card', 'aria-labelledby': 'location-title' },
    h('h2', { id: 'location-title', text: 'Location' }),
    h('p', { class: 'note', text: loc.fixed
      ? 'Set by BIFROST_LATITUDE and BIFROST_LONGITUDE; change it there.'
      : 'Where the hub is, for automations at sunrise and sunset. Computed here; nothing is sent anywhere.' }),
    form);
}

// onEvent redraws the keys table when a key is made or revoked anywhere;
// the rest of the house does not show here, so its changes are ignored
// (and a key just shown once stays on screen).
export function onEvent(e, app) {
  if (app.session.user.admin) onKioskEvent(e, app);
  if (e.type !== 'key') return true;
  if (keysBox && keysBox.isConnected) {
    app.run(() => get('/api-keys')).then((keys) => { if (keys) drawKeys(app, keys); });
  }
  return true;
}

function accountSection(app) {
  const me = app.session.user;
  const current = h('input', { type: 'password', autocomplete: 'current-password', required: true, id: 'pw-current' });
  const next = h('input', { type: 'password', autocomplete: 'new-password', required: true, minlength: 8, id: 'pw-new' });
  const submit = h('button', { type: 'submit', text: 'Change password' });
  const form = h('form', { class: 'inline-form' },
    field('Current password', current), field('New password', next, 'Your other browsers will be signed out.'), submit);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const ok = await busy(submit, () => app.run(async () => {
      await put(at`/users/${me.id}/password`, { current: current.value, password: next.value });
      return true;
    }, 'Password changed; other sessions were signed out'));
    if (ok) { current.value = ''; next.value = ''; }
  });
  return h('section', { class: 'card', 'aria-labelledby': 'account-title' },
    h('h2', { id: 'account-title', text: 'Your account' }),
    h('p', { text: `Signed in as ${me.username}${me.admin ? ' (admin)' : ''}.` }),
    form);
}

function newKeyForm(app) {
  const name = h('input', { id: 'key-name', required: true, maxlength: 100, placeholder: 'E.g. kitchen tablet' });
  const scope = select('Scope', [['control', 'Control: read and change the house'], ['read', 'Read only']], 'control', { id: 'key-scope' });
  const submit = h('button', { type: 'submit', class: 'primary', text: 'Create key' });
  const reveal = h('div', { class: 'reveal-slot' });
  const form = h('form', { class: 'inline-form', 'aria-label': 'New API key' }, field('Key name', name), field('Scope', scope), submit);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const k = await busy(submit, () => app.run(() => post('/api-keys', { name: name.value, scope: scope.value })));
    if (!k) return;
    name.value = '';
    showKeyOnce(reveal, k);
  });
  return h('div', {}, form, reveal);
}

// showKeyOnce shows a new key's secret until dismissed; it is never
// fetched again.
function showKeyOnce(slot, k) {
  const code = h('code', { class: 'secret', id: 'new-key', text: k.key });
  const copy = h('button', { type: 'button', text: 'Copy' });
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(k.key);
      toast('Key copied');
    } catch (e) {
      const range = document.createRange();
      range.selectNodeContents(code);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      toast('Press Ctrl+C (⌘C) to copy the selected key');
    }
  });
  const done = h('button', { type: 'button', class: 'quiet', text: 'Done', onclick: () => slot.replaceChildren() });
  replace(slot, h('div', { class: 'reveal', role: 'region', 'aria-label': `New key ${k.name}` },
    h('p', {}, h('strong', { text: `Key “${k.name}” created. ` }), 'Copy it now: it is shown only this once, and Bifrost keeps only its hash.'),
    h('div', { class: 'row' }, code, copy, done)));
  copy.focus();
}

// ownerOf says whose a key is: a user, or the hub itself (minted on the
// command line).
function ownerOf(k) {
  if (!k.owner_id) return 'The hub';
  return owners.get(k.owner_id) || 'A removed user';
}

// scopeText says what a key's scope lets it do.
const scopeText = { control: 'Control', read: 'Read only' };

// usedText is when a key was last used, or "Never".
function usedText(iso) {
  const t = when(iso);
  return t === 'never' ? 'Never' : t;
}

// cell is a table cell that names its column (shown as the cell's label
// when the table is stacked on a phone).
function cell(label, ...children) {
  return h('td', { 'data-label': label }, ...children);
}

function drawKeys(app, keys) {
  if (keys.length === 0) {
    replace(keysBox, h('p', { class: 'empty', text: 'No keys yet.' }));
    return;
  }
  const admin = app.session.user.admin; // only an admin's list holds others' keys
  const rows = keys.map((k) => h('tr', { 'data-key': k.id, class: k.revoked_at ? 'revoked' : '' },
    h('td', { class: 'title', text: k.name }),
    cell('Key', h('code', { text: `${k.prefix}…` })),
    cell('Scope', scopeText[k.scope] || k.scope),
    admin ? cell('Owner', ownerOf(k)) : null,
    cell('Created', when(k.created_at)),
    cell('Last used', usedText(k.last_used)),
    h('td', { class: 'actions' }, k.revoked_at
      ? h('span', { class: 'badge', text: `Revoked ${when(k.revoked_at)}` })
      : confirmButton('Revoke', 'Press again to revoke', async (b) => {
        await busy(b, () => app.run(() => del(at`/api-keys/${k.id}`), `Revoked ${k.name}`));
      }, { 'aria-label': `Revoke key ${k.name}` }))));
  replace(keysBox, h('table', { class: 'keys' },
    h('caption', { class: 'visually-hidden', text: 'API keys' }),
    h('thead', {}, h('tr', {}, ['Name', 'Key', 'Scope', admin ? 'Owner' : null, 'Created', 'Last used', '']
      .filter((t) => t !== null).map((t) => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, rows)));
}

function usersSection(app, users) {
  const me = app.session.user;
  const rows = users.map((u) => h('li', { class: 'member', 'data-user': u.id },
    h('span', { class: 'name', text: u.username }),
    u.admin ? h('span', { class: 'badge', text: 'Admin' }) : null,
    h('span', { class: 'kind', text: `Since ${when(u.created_at)}` }),
    me.admin && u.id !== me.id ? setPasswordForm(app, u) : null,
    me.admin && u.id !== me.id
      ? confirmButton('Remove', 'Press again to remove', async (b) => {
        const ok = await busy(b, () => app.run(async () => { await del(at`/users/${u.id}`); return true; }, `Removed ${u.username}`));
        if (ok) app.refresh();
      }, { 'aria-label': `Remove user ${u.username}` })
      : null));
  return h('section', { class: 'card', 'aria-labelledby': 'users-title' },
    h('h2', { id: 'users-title', text: 'Users' }),
    h('ul', { class: 'members' }, rows),
    me.admin ? [h('h3', { text: 'Add a user' }), newUserForm(app)] : h('p', { class: 'note', text: 'Only an admin can add or remove users.' }));
}

function setPasswordForm(app, u) {
  const pw = h('input', { type: 'password', autocomplete: 'new-password', required: true, minlength: 8, 'aria-label': `New password for ${u.username}`, placeholder: 'New password' });
  const save = h('button', { type: 'submit', text: 'Set password' });
  const form = h('form', { class: 'inline-form compact' }, pw, save);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const ok = await busy(save, () => app.run(async () => {
      await put(at`/users/${u.id}/password`, { password: pw.value });
      return true;
    }, `Password of ${u.username} set; their sessions ended`));
    if (ok) pw.value = '';
  });
  return form;
}

function newUserForm(app) {
  const name = h('input', { id: 'user-name', required: true, autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false' });
  const pw = h('input', { id: 'user-password', type: 'password', autocomplete: 'new-password', required: true, minlength: 8 });
  const admin = h('input', { id: 'user-admin', type: 'checkbox' });
  const submit = h('button', { type: 'submit', text: 'Add user' });
  // The label wraps the box, so the whole of it (44 px square at least)
  // takes the touch.
  const form = h('form', { class: 'inline-form', 'aria-label': 'New user' },
    field('Username', name), field('Password', pw),
    h('div', { class: 'field check' }, h('label', { class: 'check-target' }, admin, 'Admin')),
    submit);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const u = await busy(submit, () => app.run(() => post('/users', { username: name.value, password: pw.value, admin: admin.checked }), (x) => `Added ${x.username}`));
    if (!u) return;
    // Emptied before the redraw, which otherwise keeps what was typed.
    name.value = '';
    pw.value = '';
    admin.checked = false;
    app.refresh();
  });
  return form;
}

function auditSection(entries) {
  return h('section', { class: 'card', 'aria-labelledby': 'audit-title' },
    h('h2', { id: 'audit-title', text: 'Audit log' }),
    entries.length === 0 ? h('p', { class: 'empty', text: 'Nothing yet.' }) : h('div', { class: 'table-wrap' },
      h('table', { class: 'audit' },
        h('caption', { class: 'visually-hidden', text: 'Who changed what, newest first' }),
        h('thead', {}, h('tr', {}, ['What', 'By', 'When'].map((t) => h('th', { scope: 'col', text: t })))),
        h('tbody', {}, entries.map((e) => h('tr', { class: e.result === 'ok' ? '' : 'failed', 'data-audit': e.id },
          h('td', { class: 'what', text: e.sentence || e.action }),
          h('td', { class: 'who', 'data-cap': e.actor_kind !== 'user', text: e.by || e.actor_name }),
          h('td', { class: 'when' }, h('time', { datetime: e.time, title: when(e.time), text: shortTime(e.time) }))))))));
}

// shortTime is a time in the viewer's zone, short: "21:14" today,
// "2 Dec, 21:14" this year, with the year before that.
function shortTime(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const now = new Date();
  const time = d.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' });
  if (d.toDateString() === now.toDateString()) return time;
  const date = d.toLocaleDateString(undefined, {
    day: 'numeric', month: 'short', year: d.getFullYear() === now.getFullYear() ? undefined : 'numeric',
  });
  return `${date}, ${time}`;
}
