// Automations: rules the house runs on its own. Each rule reads as a
// sentence; it can be switched off and on, run now, copied, edited and
// deleted, and asked why it did what it did. The editor builds a rule from
// pickers of the house's rooms, devices and scenes and reads it back as a
// sentence while it is built; the hub checks it when it is saved and says
// what is wrong next to the form.

import { get, post, put, patch, del, at, ApiError } from './api.js';
import { h, field, toggle, busy, when, toast, replace } from './dom.js';
import { menu as moreMenu, confirmAction } from './menus.js';

// What the page remembers between drawings: the rule being edited (so that
// a redraw, which the live stream causes whenever anything changes, keeps
// everything typed), the "Why?" panels that are open and what they show,
// and the runs from this page that did not go well.
const state = {
  draft: null,
  open: new Set(), // rule ids whose "Why?" is open
  traces: new Map(), // rule id → { value: [TraceEntry] } | { error }
  runs: new Map(), // rule id → a RunResult whose outcome was not ok
};

let rowKeys = 0;
const nextKey = () => ++rowKeys;

export async function render(app) {
  // Arriving from another page starts the panels afresh; a redraw of this
  // page keeps them (and the editor, always).
  if (!document.getElementById('auto-page')) {
    state.open.clear();
    state.traces.clear();
    state.runs.clear();
  }
  const open = [...state.open];
  const [list, ...traces] = await Promise.all([
    attempt(app, () => get('/automations')),
    ...open.map((id) => attempt(app, () => get(at`/automations/${id}/trace?limit=${traceShown}`))),
  ]);
  open.forEach((id, i) => { if (traces[i]) state.traces.set(id, traces[i]); });

  const newButton = h('button', {
    type: 'button', class: 'primary', id: 'auto-new', text: 'New automation', hidden: !!state.draft,
    onclick: () => openEditor(app, blankDraft(app)),
  });
  const slot = h('div', { id: 'auto-editor-slot' }, state.draft ? editor(app) : null);
  let body;
  if (!list) {
    body = null; // the session ended; the sign-in page takes over
  } else if (list.error) {
    body = h('p', { class: 'error', role: 'alert', id: 'auto-list-error', text: `The automations cannot be listed: ${list.error}` });
  } else {
    const rules = list.value || [];
    const ids = new Set(rules.map((v) => v.id));
    for (const id of [...state.open]) if (!ids.has(id)) state.open.delete(id);
    body = rules.length === 0
      ? h('p', { class: 'empty', id: 'auto-none', text: 'No automations yet. A rule says when the house acts on its own: "when the Office empties, turn its lights off".' })
      : h('div', { class: 'grid rules' }, rules.map((v) => ruleCard(app, v)));
  }
  return h('div', { class: 'page automations', id: 'auto-page' },
    h('div', { class: 'page-head' }, h('h1', { text: 'Automations' }), newButton),
    slot,
    body);
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

// safe makes a rule or row id fit for element ids.
function safe(id) {
  return String(id).replace(/[^A-Za-z0-9_-]/g, '_');
}

// ---------------------------------------------------------------------
// The list.

function ruleCard(app, v) {
  const sid = safe(v.id);
  const name = v.name;
  const enabled = toggle(`${name} enabled`, v.enabled, async (on, input) => {
    const r = await app.run(() => patch(at`/automations/${v.id}`, { enabled: on }), (x) => `${x.name} ${x.enabled ? 'enabled' : 'disabled'}`);
    if (!r) input.checked = !on;
    else if (state.draft && state.draft.id === v.id) state.draft.enabled = r.enabled; // a save of the edit keeps it
    app.refresh();
  }, { id: `auto-enabled-${sid}` });
  const run = h('button', {
    type: 'button', class: 'primary', id: `auto-run-${sid}`, 'aria-label': `Run ${name}`, text: 'Run',
    onclick: (ev) => runNow(app, v, ev.currentTarget),
  });
  const edit = h('button', {
    type: 'button', id: `auto-edit-${sid}`, 'aria-label': `Edit ${name}`, text: 'Edit',
    onclick: () => openEditor(app, fromRule(v)),
  });
  const more = moreMenu(v.id, `auto-more-${sid}`, `More for ${name}`, [
    {
      id: `auto-dup-${sid}`, text: 'Duplicate',
      act: async () => {
        const copy = await app.run(() => post(at`/automations/${v.id}/duplicate`), (c) => `Copied as ${c.name} (off until you switch it on)`);
        if (copy) app.refresh();
      },
    },
    { id: `auto-delete-${sid}`, text: 'Delete…', danger: true, act: (button) => confirmDelete(app, v, button) },
  ]);

  return h('section', { class: `card rule${v.enabled ? '' : ' disabled'}`, 'aria-labelledby': `auto-title-${sid}`, 'data-automation': v.id },
    h('div', { class: 'card-head' },
      h('h2', { id: `auto-title-${sid}`, text: name }),
      v.enabled ? null : h('span', { class: 'badge', text: 'Off' }),
      h('label', { class: 'switch-target', for: enabled.id }, enabled),
      more.wrap),
    h('p', { class: 'sentence', text: v.sentence || '' }),
    lastRun(v),
    holding(app, v),
    runReport(app, v),
    h('div', { class: 'rule-buttons' }, run, edit),
    why(app, v));
}

// confirmDelete asks before deleting a rule, saying what it leaves as it
// is: the devices it holds now are not put back.
function confirmDelete(app, v, opener) {
  const held = (v.holding || []).map((id) => (app.device(id) || { name: id }).name);
  const heldText = held.length === 0
    ? null
    : `It holds ${held.join(', ')} to put back later; ${held.length === 1 ? 'that device stays' : 'they stay'} as ${held.length === 1 ? 'it is' : 'they are'} now.`;
  confirmAction({
    id: 'auto-delete', title: `Delete ${v.name}?`, confirmText: `Delete ${v.name}`, opener, data: { 'data-automation': v.id },
    paragraphs: [`${v.name} stops acting on its own, and its history of runs goes with it.`, heldText, 'This cannot be undone; Duplicate keeps a copy first.'].filter(Boolean),
    act: () => app.run(async () => {
      await del(at`/automations/${v.id}`);
      if (state.draft && state.draft.id === v.id) state.draft = null;
      state.open.delete(v.id);
      state.runs.delete(v.id);
      await app.refreshNow();
      return true;
    }, `Deleted ${v.name}`),
  });
}

// lastRun says when the rule last ran and how it went.
function lastRun(v) {
  if (!v.last_run || when(v.last_run) === 'never') return h('p', { class: 'meta last-run', text: 'never ran' });
  const outcome = v.last_outcome || '';
  return h('p', { class: 'meta last-run' },
    h('span', {},
      'last ran ',
      h('time', { datetime: v.last_run, title: when(v.last_run), text: ago(v.last_run) }),
      outcome ? ' · ' : null,
      outcome ? h('span', { class: `outcome ${outcomeClass(outcome)}`, text: outcome }) : null));
}

function outcomeClass(o) {
  return { ok: 'good', partial: 'warn', failed: 'bad' }[o] || '';
}

// holding says which devices a "put things back" still holds, and until
// when.
function holding(app, v) {
  const held = v.holding || [];
  if (held.length === 0) return null;
  const names = held.map((id) => (app.device(id) || { name: id }).name);
  const until = v.restore_at ? ` until ${clock(v.restore_at)}` : '';
  return h('p', { class: 'holding', title: names.join(', ') },
    `holding ${held.length} device${held.length === 1 ? '' : 's'}${until}`,
    h('span', { class: 'visually-hidden', text: `: ${names.join(', ')}` }));
}

async function runNow(app, v, button) {
  const r = await busy(button, () => app.run(() => post(at`/automations/${v.id}/run`)));
  if (!r) return;
  const good = r.outcome === 'ok';
  toast(r.message || `${v.name}: ${r.outcome}`, good ? 'info' : 'error');
  if (good) state.runs.delete(v.id);
  else state.runs.set(v.id, r);
  app.refresh();
}

// runReport shows the actions that failed in the last run from this page.
function runReport(app, v) {
  const r = state.runs.get(v.id);
  if (!r) return null;
  const failed = (r.actions || []).filter((a) => !a.ok || (a.failed && a.failed.length));
  return h('div', { class: 'run-report', role: 'status' },
    h('p', { class: 'error', text: r.message || `The run ${r.outcome === 'partial' ? 'partly failed' : 'failed'}.` }),
    failed.length ? h('ul', { class: 'failed-actions' }, failed.map((a) => h('li', {}, actionResult(a)))) : null,
    h('button', {
      type: 'button', class: 'quiet', 'aria-label': `Dismiss the run report of ${v.name}`, text: 'Dismiss',
      onclick: () => { state.runs.delete(v.id); app.refresh(); },
    }));
}

// why is the disclosure that shows the rule's recent decisions.
function why(app, v) {
  const sid = safe(v.id);
  const isOpen = state.open.has(v.id);
  const body = h('div', { class: 'trace-body', id: `auto-trace-${sid}` });
  const details = h('details', { class: 'why', id: `auto-why-${sid}` },
    h('summary', {}, 'Why?', h('span', { class: 'visually-hidden', text: ` What ${v.name} decided, and why` })),
    body);
  if (isOpen) {
    details.open = true;
    const t = state.traces.get(v.id);
    if (t) {
      details.dataset.loaded = '1';
      replace(body, traceList(t));
    }
  }
  details.addEventListener('toggle', () => {
    if (!details.open) {
      state.open.delete(v.id);
      delete details.dataset.loaded;
      return;
    }
    state.open.add(v.id);
    if (!details.dataset.loaded) loadTrace(app, v.id);
  });
  return details;
}

async function loadTrace(app, id) {
  const sid = safe(id);
  const body = document.getElementById(`auto-trace-${sid}`);
  if (body) replace(body, h('p', { class: 'note', text: 'Loading…' }));
  const t = await attempt(app, () => get(at`/automations/${id}/trace?limit=${traceShown}`));
  if (!t) return;
  state.traces.set(id, t);
  const now = document.getElementById(`auto-trace-${sid}`); // a redraw may have replaced it
  const details = document.getElementById(`auto-why-${sid}`);
  if (now) replace(now, traceList(t));
  if (details) details.dataset.loaded = '1';
}

// traceShown is how many decisions "Why?" shows, newest first.
const traceShown = 25;

const kindClass = { fired: 'good', ran: 'good', skipped: 'warn', restored: '', released: '' };

// traceList draws a rule's decisions, newest first.
function traceList(t) {
  if (t.error) return h('p', { class: 'error', text: `The trace cannot be read: ${t.error}` });
  const entries = (t.value || []).slice(0, traceShown);
  if (entries.length === 0) return h('p', { class: 'empty', text: 'Nothing yet: this rule has not fired or run.' });
  return h('ol', { class: 'trace' }, entries.map((e) => h('li', { class: `trace-entry kind-${safe(e.kind)}` },
    h('div', { class: 'trace-head' },
      h('time', { datetime: e.at, title: when(e.at), text: stamp(e.at) }),
      h('span', { class: `badge ${kindClass[e.kind] ?? ''}`, text: e.kind })),
    e.why ? h('p', { class: 'trace-why', text: e.why }) : null,
    (e.actions || []).length ? h('ul', { class: 'trace-actions' }, e.actions.map((a) => h('li', {}, actionResult(a)))) : null)));
}

// actionResult is one action's result in words.
function actionResult(a) {
  const failed = (a.failed || []).map((f) => (f.error ? `${f.name}: ${f.error}` : f.name));
  return [
    h('span', { class: `badge ${a.ok ? 'good' : 'bad'}`, text: a.ok ? 'ok' : 'failed' }),
    ' ',
    h('span', { text: a.action }),
    a.error ? h('span', { class: 'action-error', text: ` — ${a.error}` }) : null,
    failed.length ? h('span', { class: 'action-error', text: ` (did not take it: ${failed.join('; ')})` }) : null,
  ];
}

// ago says how long ago an ISO time was: "just now", "5 min ago".
function ago(iso) {
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return 'never';
  const s = Math.round((Date.now() - t) / 1000);
  if (s < 45) return 'just now';
  if (s < 90 * 60) return `${Math.max(1, Math.round(s / 60))} min ago`;
  if (s < 24 * 3600) return `${Math.round(s / 3600)} h ago`;
  return `on ${when(iso)}`;
}

function sameDay(d) {
  const n = new Date();
  return d.getFullYear() === n.getFullYear() && d.getMonth() === n.getMonth() && d.getDate() === n.getDate();
}

// clock is an ISO time as HH:MM (today) or a date and time.
function clock(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  if (!sameDay(d)) return when(iso);
  return d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
}

// stamp is a trace entry's time: HH:MM:SS today, else a date and time.
function stamp(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  if (!sameDay(d)) return when(iso);
  return d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
}

// ---------------------------------------------------------------------
// The house, for the pickers.

function home(app) {
  const x = app.home || {};
  return {
    rooms: x.rooms || [], lights: x.lights || [], power: x.power || [], media: x.media || [],
    remotes: x.remotes || [], sensors: x.sensors || [], scenes: x.scenes || [],
  };
}

const byName = (a, b) => a.name.localeCompare(b.name);
const opts = (list) => [...list].sort(byName).map((x) => [x.id, x.name]);

function roomName(app, id) {
  const r = home(app).rooms.find((x) => x.id === id);
  return r ? r.name : (id || 'a room');
}

function deviceName(app, id) {
  const d = app.home && app.device(id);
  return d ? d.name : (id || 'a device');
}

function sceneName(app, id) {
  const s = home(app).scenes.find((x) => x.id === id);
  return s ? s.name : (id || 'a scene');
}

// The devices whose power a trigger or condition follows.
function powerGroups(app) {
  const x = home(app);
  return [
    { group: 'Lights', options: opts(x.lights) },
    { group: 'Power devices', options: opts(x.power) },
    { group: 'Media players and TVs', options: opts(x.media) },
  ].filter((g) => g.options.length);
}

// Readings: their names and units, and which are on/off states.
const readingLabels = {
  motion: 'motion', occupancy: 'presence', contact: 'contact', illuminance: 'illuminance', temperature: 'temperature',
  humidity: 'humidity', power: 'power draw', energy: 'energy', battery: 'battery',
};
const readingUnits = { illuminance: ' lx', temperature: ' °C', humidity: ' %', power: ' W', energy: ' kWh', battery: ' %' };
const binary = {
  motion: [['detected', 'detects motion', 'senses motion'], ['clear', 'stops detecting motion', 'senses no motion']],
  occupancy: [['detected', 'detects someone', 'senses someone'], ['clear', 'detects nobody', 'senses nobody']],
  contact: [['open', 'opens', 'is open'], ['closed', 'closes', 'is closed']],
};

// sensorChoices are what a sensor's readings can trigger on (or, for a
// condition, be): "motion:detected", "illuminance:above", …
function sensorChoices(app, id, forCondition) {
  const s = home(app).sensors.find((x) => x.id === id);
  const types = s ? [...new Set((s.readings || []).map((r) => r.type))] : [];
  const out = [];
  for (const t of types) {
    if (binary[t]) {
      for (const [to, event, st] of binary[t]) out.push([`${t}:${to}`, forCondition ? st : event]);
      continue;
    }
    const label = readingLabels[t] || t;
    out.push([`${t}:above`, forCondition ? `${label} is above` : `${label} rises above`]);
    out.push([`${t}:below`, forCondition ? `${label} is below` : `${label} drops below`]);
    if (forCondition) out.push([`${t}:between`, `${label} is between`]);
  }
  return out;
}

// fitWhat keeps a choice the sensor offers: one saved without its reading
// (":detected") takes the reading that has it; anything else the first.
function fitWhat(what, choices) {
  if (choices.some(([v]) => v === what)) return what;
  if (what && what.startsWith(':')) {
    const m = choices.find(([v]) => v.endsWith(what));
    if (m) return m[0];
  }
  return choices.length ? choices[0][0] : what;
}

// ---------------------------------------------------------------------
// The draft: the rule as the editor holds it, and the JSON it saves.

const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const dayNames = { mon: 'Mon', tue: 'Tue', wed: 'Wed', thu: 'Thu', fri: 'Fri', sat: 'Sat', sun: 'Sun' };

function blankDraft(app) {
  return {
    id: '', original: '', name: '', enabled: true,
    trigger: blankTrigger(app, 'occupancy'),
    conditions: [],
    actions: [blankAction(app, 'light')],
    cooldown: '', restore: '', error: '', saving: false,
  };
}

function blankTrigger(app, type) {
  const x = home(app);
  const t = { type, room: '', to: '', device: '', what: '', value: '', for: '', at: '', days: [], event: 'sunset', offset: '' };
  if (type === 'occupancy') { t.room = x.rooms[0] ? x.rooms[0].id : ''; t.to = 'occupied'; }
  if (type === 'sensor') {
    t.device = x.sensors.length ? opts(x.sensors)[0][0] : '';
    t.what = fitWhat('', sensorChoices(app, t.device, false));
  }
  if (type === 'power') { t.device = firstOf(powerGroups(app)); t.to = 'on'; }
  return t;
}

function blankCondition(app, type) {
  const x = home(app);
  const c = { key: nextKey(), type, after: '', before: '', days: [], sun: 'down', room: '', is: '', device: '', what: '', value: '', value2: '' };
  if (type === 'occupancy') { c.room = x.rooms[0] ? x.rooms[0].id : ''; c.is = 'occupied'; }
  if (type === 'sensor') {
    c.device = x.sensors.length ? opts(x.sensors)[0][0] : '';
    c.what = fitWhat('', sensorChoices(app, c.device, true));
  }
  if (type === 'power') { c.device = firstOf(powerGroups(app)); c.is = 'off'; }
  return c;
}

function blankAction(app, type) {
  const x = home(app);
  const a = { key: nextKey(), type, room: '', lights: [], device: '', scene: '', what: '', value: '', unit: 'm', raw: null };
  if (type === 'light') a.what = 'on';
  if (type === 'room') { a.room = x.rooms[0] ? x.rooms[0].id : ''; a.what = 'on'; }
  if (type === 'power') { a.device = x.power.length ? opts(x.power)[0][0] : ''; a.what = 'on'; }
  if (type === 'media') { a.device = x.media.length ? opts(x.media)[0][0] : ''; a.what = 'power-on'; }
  if (type === 'remote') { a.device = x.remotes.length ? opts(x.remotes)[0][0] : ''; a.what = 'key'; }
  if (type === 'scene') a.scene = x.scenes.length ? opts(x.scenes)[0][0] : '';
  return a;
}

function firstOf(groups) {
  return groups.length && groups[0].options.length ? groups[0].options[0][0] : '';
}

// seconds reads a Go duration ("15m", "1h30m", "-30m", "45s") or a number
// of seconds.
function seconds(d) {
  if (d === undefined || d === null || d === '') return 0;
  if (typeof d === 'number') return d;
  const s = String(d).trim();
  if (/^-?\d+(\.\d+)?$/.test(s)) return Number(s);
  const sign = s.startsWith('-') ? -1 : 1;
  const units = { h: 3600, m: 60, s: 1, ms: 0.001, us: 1e-6, 'µs': 1e-6, ns: 1e-9 };
  let total = 0;
  for (const [, n, u] of s.replace(/^[-+]/, '').matchAll(/(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/g)) total += Number(n) * units[u];
  return sign * total;
}

// minutesText is a duration as the minutes the editor shows ('' for none).
function minutesText(d) {
  const s = seconds(d);
  if (!s) return '';
  return String(Math.round((s / 60) * 100) / 100);
}

// minutes is what was typed in a minutes field as a duration to save.
function minutes(v) {
  return `${Number(v)}m`;
}

const given = (v) => v !== '' && v !== undefined && v !== null && !Number.isNaN(Number(v));

function fromRule(v) {
  return {
    id: v.id, original: v.name, name: v.name, enabled: !!v.enabled,
    trigger: triggerDraft(v.trigger || {}),
    conditions: (v.conditions || []).map(conditionDraft),
    actions: (v.actions || []).map(actionDraft),
    cooldown: minutesText(v.cooldown), restore: minutesText(v.restore_after), error: '', saving: false,
  };
}

function triggerDraft(t) {
  const d = {
    type: t.type || 'occupancy', room: t.room || '', to: t.to || '', device: t.device || '', what: '', value: '',
    for: minutesText(t.for), at: t.at || '', days: [...(t.days || [])], event: t.event || 'sunset', offset: minutesText(t.offset),
    hysteresis: t.hysteresis,
  };
  if (d.type === 'sensor') {
    const r = t.reading || '';
    if (t.above !== undefined && t.above !== null) { d.what = `${r}:above`; d.value = String(t.above); } else if (t.below !== undefined && t.below !== null) { d.what = `${r}:below`; d.value = String(t.below); } else d.what = `${r}:${t.to || ''}`;
  }
  return d;
}

function conditionDraft(c) {
  const d = {
    key: nextKey(), type: c.type || 'time', after: c.after || '', before: c.before || '', days: [...(c.days || [])],
    sun: c.sun || 'down', room: c.room || '', is: c.is || '', device: c.device || '', what: '', value: '', value2: '',
  };
  if (d.type === 'sensor') {
    const r = c.reading || '';
    const above = c.above !== undefined && c.above !== null;
    const below = c.below !== undefined && c.below !== null;
    if (above && below) { d.what = `${r}:between`; d.value = String(c.above); d.value2 = String(c.below); } else if (above) { d.what = `${r}:above`; d.value = String(c.above); } else if (below) { d.what = `${r}:below`; d.value = String(c.below); } else d.what = `${r}:${c.is || ''}`;
  }
  return d;
}

function actionDraft(a) {
  const s = a.state && typeof a.state === 'object' ? a.state : {};
  const d = {
    key: nextKey(), type: a.type || 'light', room: a.room || '', lights: [...(a.lights || [])], device: a.device || '',
    scene: a.scene || '', what: '', value: '', unit: 'm', raw: null,
  };
  const only = (...names) => Object.keys(s).every((k) => names.includes(k));
  const asRaw = () => { d.what = 'raw'; d.raw = s; };
  switch (d.type) {
    case 'light':
    case 'room':
      if (s.on === false && only('on')) d.what = 'off';
      else if (s.on === true && only('on', 'brightness')) { d.what = 'on'; d.value = s.brightness !== undefined ? String(s.brightness) : ''; } else if (s.brightness !== undefined && only('brightness')) { d.what = 'brightness'; d.value = String(s.brightness); } else if (s.kelvin !== undefined && only('kelvin', 'on')) { d.what = 'kelvin'; d.value = String(s.kelvin); } else asRaw();
      break;
    case 'power':
      d.what = s.on === false ? 'off' : 'on';
      if (!only('on')) asRaw();
      break;
    case 'media':
      if (only('power') && typeof s.power === 'boolean') d.what = s.power ? 'power-on' : 'power-off';
      else if (only('volume')) { d.what = 'volume'; d.value = String(s.volume); } else if (only('source')) { d.what = 'source'; d.value = String(s.source); } else asRaw();
      break;
    case 'remote':
      if (only('key') && s.key) { d.what = 'key'; d.value = s.key; } else if (only('app') && s.app) { d.what = 'app'; d.value = s.app; } else asRaw();
      break;
    case 'delay': {
      const secs = seconds(a.wait);
      if (secs && secs % 60 === 0) { d.unit = 'm'; d.value = String(secs / 60); } else { d.unit = 's'; d.value = secs ? String(secs) : ''; }
      break;
    }
    default:
      break;
  }
  return d;
}

// toRule is the draft as the rule JSON the hub takes.
function toRule(d) {
  const r = {
    name: d.name.trim(), enabled: d.enabled, trigger: triggerJSON(d.trigger),
    conditions: d.conditions.map(conditionJSON), actions: d.actions.map(actionJSON),
  };
  if (given(d.cooldown)) r.cooldown = minutes(d.cooldown);
  if (given(d.restore) && Number(d.restore) !== 0) r.restore_after = minutes(d.restore);
  return r;
}

function withFor(o, v) {
  if (given(v) && Number(v) !== 0) o.for = minutes(v);
  return o;
}

function triggerJSON(t) {
  switch (t.type) {
    case 'occupancy':
      return withFor({ type: t.type, room: t.room, to: t.to }, t.for);
    case 'sensor': {
      const [reading, op] = t.what.split(':');
      const o = { type: t.type, device: t.device };
      if (reading) o.reading = reading;
      if (op === 'above' || op === 'below') {
        if (given(t.value)) o[op] = Number(t.value);
        if (t.hysteresis !== undefined && t.hysteresis !== null) o.hysteresis = t.hysteresis;
      } else if (op) o.to = op;
      return withFor(o, t.for);
    }
    case 'power':
      return withFor({ type: t.type, device: t.device, to: t.to }, t.for);
    case 'time':
      return { type: t.type, at: t.at, days: t.days };
    case 'sun': {
      const o = { type: t.type, event: t.event, days: t.days };
      if (given(t.offset) && Number(t.offset) !== 0) o.offset = minutes(t.offset);
      return o;
    }
    default:
      return { type: t.type };
  }
}

function conditionJSON(c) {
  switch (c.type) {
    case 'time':
      return { type: c.type, after: c.after, before: c.before, days: c.days };
    case 'sun':
      return { type: c.type, sun: c.sun };
    case 'sensor': {
      const [reading, op] = c.what.split(':');
      const o = { type: c.type, device: c.device };
      if (reading) o.reading = reading;
      if (op === 'above' || op === 'between') { if (given(c.value)) o.above = Number(c.value); }
      if (op === 'below') { if (given(c.value)) o.below = Number(c.value); }
      if (op === 'between') { if (given(c.value2)) o.below = Number(c.value2); }
      if (!['above', 'below', 'between'].includes(op) && op) o.is = op;
      return o;
    }
    case 'occupancy':
      return { type: c.type, room: c.room, is: c.is };
    case 'power':
      return { type: c.type, device: c.device, is: c.is };
    default:
      return { type: c.type };
  }
}

function lightState(a) {
  if (a.what === 'raw') return a.raw;
  if (a.what === 'off') return { on: false };
  if (a.what === 'on') return given(a.value) ? { on: true, brightness: Number(a.value) } : { on: true };
  if (a.what === 'brightness') return given(a.value) ? { brightness: Number(a.value) } : {};
  if (a.what === 'kelvin') return given(a.value) ? { kelvin: Number(a.value) } : {};
  return {};
}

function actionJSON(a) {
  switch (a.type) {
    case 'light':
      return { type: a.type, lights: a.lights, state: lightState(a) };
    case 'room':
      return { type: a.type, room: a.room, state: lightState(a) };
    case 'power':
      return { type: a.type, device: a.device, state: a.what === 'raw' ? a.raw : { on: a.what === 'on' } };
    case 'media': {
      let s = {};
      if (a.what === 'raw') s = a.raw;
      else if (a.what === 'power-on' || a.what === 'power-off') s = { power: a.what === 'power-on' };
      else if (a.what === 'volume') s = given(a.value) ? { volume: Number(a.value) } : {};
      else if (a.what === 'source') s = a.value ? { source: a.value } : {};
      return { type: a.type, device: a.device, state: s };
    }
    case 'remote': {
      let s = {};
      if (a.what === 'raw') s = a.raw;
      else if (a.value) s = { [a.what]: a.value };
      return { type: a.type, device: a.device, state: s };
    }
    case 'scene':
      return { type: a.type, scene: a.scene };
    case 'delay': {
      const o = { type: a.type };
      if (given(a.value)) o.wait = `${Number(a.value)}${a.unit}`;
      return o;
    }
    default:
      return { type: a.type };
  }
}

// ---------------------------------------------------------------------
// The sentence the draft reads as, while it is built (the hub's own
// sentence is what the list shows once it is saved).

function list(names) {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

// span says a number of minutes in words: "5 min", "1 h 30 min", "45 s".
function span(mins) {
  const total = Math.round(Math.abs(Number(mins)) * 60);
  const hh = Math.floor(total / 3600);
  const mm = Math.floor((total % 3600) / 60);
  const ss = total % 60;
  const parts = [];
  if (hh) parts.push(`${hh} h`);
  if (mm) parts.push(`${mm} min`);
  if (ss) parts.push(`${ss} s`);
  return parts.join(' ') || '0 min';
}

function daysText(days) {
  if (!days || days.length === 0 || days.length === 7) return ' every day';
  const set = new Set(days);
  if (set.size === 5 && ['mon', 'tue', 'wed', 'thu', 'fri'].every((x) => set.has(x))) return ' on weekdays';
  if (set.size === 2 && set.has('sat') && set.has('sun')) return ' at weekends';
  return ` on ${weekdays.filter((x) => set.has(x)).map((x) => dayNames[x]).join(', ')}`;
}

function threshold(reading, v) {
  return `${given(v) ? v : '…'}${readingUnits[reading] || ''}`;
}

function triggerText(t, app) {
  const lasting = given(t.for) && Number(t.for) !== 0;
  switch (t.type) {
    case 'occupancy': {
      const room = roomName(app, t.room);
      return lasting ? `When ${room} has been ${t.to} for ${span(t.for)}` : `When ${room} becomes ${t.to}`;
    }
    case 'sensor': {
      const s = deviceName(app, t.device);
      const [reading, op] = t.what.split(':');
      const label = readingLabels[reading] || reading || 'reading';
      let text;
      if (op === 'above' || op === 'below') {
        const v = threshold(reading, t.value);
        text = lasting ? `'s ${label} has been ${op} ${v}` : `'s ${label} ${op === 'above' ? 'rises above' : 'drops below'} ${v}`;
      } else {
        const b = (binary[reading] || []).find(([to]) => to === op);
        text = b ? ` ${lasting ? b[2] : b[1]}` : ` reads ${op || '…'}`;
      }
      return `When ${s}${text}${lasting ? ` for ${span(t.for)}` : ''}`;
    }
    case 'power': {
      const dev = deviceName(app, t.device);
      return lasting ? `When ${dev} has been ${t.to} for ${span(t.for)}` : `When ${dev} turns ${t.to}`;
    }
    case 'time':
      return `At ${t.at || '--:--'}${daysText(t.days)}`;
    case 'sun': {
      const off = given(t.offset) ? Number(t.offset) : 0;
      const at = off === 0 ? `At ${t.event}` : `${span(off)} ${off < 0 ? 'before' : 'after'} ${t.event}`;
      return `${at}${daysText(t.days)}`;
    }
    default:
      return 'When …';
  }
}

function conditionText(c, app) {
  switch (c.type) {
    case 'time':
      return `it is between ${c.after || '--:--'} and ${c.before || '--:--'}${c.days.length ? daysText(c.days) : ''}`;
    case 'sun':
      return `the sun is ${c.sun}`;
    case 'sensor': {
      const s = deviceName(app, c.device);
      const [reading, op] = c.what.split(':');
      const label = readingLabels[reading] || reading || 'reading';
      if (op === 'between') return `${s}'s ${label} is between ${threshold(reading, c.value)} and ${threshold(reading, c.value2)}`;
      if (op === 'above' || op === 'below') return `${s}'s ${label} is ${op} ${threshold(reading, c.value)}`;
      const b = (binary[reading] || []).find(([to]) => to === op);
      return b ? `${s} ${b[2]}` : `${s} reads ${op || '…'}`;
    }
    case 'occupancy':
      return `${roomName(app, c.room)} is ${c.is}`;
    case 'power':
      return `${deviceName(app, c.device)} is ${c.is}`;
    default:
      return '';
  }
}

function lightText(target, a) {
  switch (a.what) {
    case 'off': return `turn ${target} off`;
    case 'on': return given(a.value) ? `turn ${target} on at ${a.value} %` : `turn ${target} on`;
    case 'brightness': return `set ${target} to ${given(a.value) ? a.value : '…'} %`;
    case 'kelvin': return `set ${target} to ${given(a.value) ? a.value : '…'} K`;
    default: return `set ${target} as saved`;
  }
}

function actionText(a, app) {
  switch (a.type) {
    case 'light':
      return lightText(a.lights.length ? list(a.lights.map((id) => (id === 'all' ? 'all lights' : deviceName(app, id)))) : '(no light chosen)', a);
    case 'room':
      return lightText(roomName(app, a.room), a);
    case 'power':
      return a.what === 'raw' ? `set ${deviceName(app, a.device)} as saved` : `turn ${deviceName(app, a.device)} ${a.what}`;
    case 'media': {
      const dev = deviceName(app, a.device);
      if (a.what === 'power-on') return `turn ${dev} on`;
      if (a.what === 'power-off') return `turn ${dev} off`;
      if (a.what === 'volume') return `set ${dev}'s volume to ${given(a.value) ? a.value : '…'}`;
      if (a.what === 'source') return `switch ${dev} to ${a.value || '…'}`;
      return `set ${dev} as saved`;
    }
    case 'remote': {
      const dev = deviceName(app, a.device);
      if (a.what === 'key') return `press ${keyName(a.value) || '…'} on ${dev}`;
      if (a.what === 'app') {
        const r = app.remote ? app.remote(a.device) : null;
        const found = r && (r.apps || []).find((x) => x.id === a.value);
        return `open ${found ? found.name : (a.value || '…')} on ${dev}`;
      }
      return `send ${dev} what was saved`;
    }
    case 'scene':
      return `activate ${sceneName(app, a.scene)}`;
    case 'delay':
      return `wait ${given(a.value) ? span(a.unit === 's' ? Number(a.value) / 60 : Number(a.value)) : '…'}`;
    default:
      return '';
  }
}

function keyName(k) {
  return k ? k.replace(/_/g, ' ') : '';
}

function sentence(d, app) {
  let s = triggerText(d.trigger, app);
  const conds = d.conditions.map((c) => conditionText(c, app)).filter(Boolean);
  if (conds.length) s += `, if ${conds.join(' and ')}`;
  const acts = d.actions.map((a) => actionText(a, app)).filter(Boolean);
  s += acts.length ? `, ${acts.join(', then ')}` : ', do nothing (add an action)';
  if (given(d.cooldown) && Number(d.cooldown) !== 0) s += `; at most once every ${span(d.cooldown)}`;
  if (given(d.restore) && Number(d.restore) !== 0) s += `; put things back after ${span(d.restore)}`;
  return `${s}.`;
}

// ---------------------------------------------------------------------
// The editor.

function openEditor(app, draft) {
  state.draft = draft;
  const slot = document.getElementById('auto-editor-slot');
  if (!slot) return;
  replace(slot, editor(app));
  const nb = document.getElementById('auto-new');
  if (nb) nb.hidden = true;
  slot.scrollIntoView({ block: 'start' });
  document.getElementById('auto-name').focus({ preventScroll: true });
}

function closeEditor(focusId) {
  state.draft = null;
  const slot = document.getElementById('auto-editor-slot');
  if (slot) replace(slot);
  const nb = document.getElementById('auto-new');
  if (nb) nb.hidden = false;
  const el = document.getElementById(focusId) || nb;
  if (el) el.focus();
}

// redraw draws the editor again from the draft (after a change of shape:
// a type, a row added or moved), keeping the focus.
function redraw(app, focusId) {
  const old = document.getElementById('auto-editor');
  if (!old) return;
  const active = focusId || (document.activeElement ? document.activeElement.id : '');
  old.replaceWith(editor(app));
  let el = active && document.getElementById(active);
  if (el && el.disabled) el = el.closest('.rule-row')?.querySelector('select');
  if (el) el.focus({ preventScroll: true });
}

function showPreview(app) {
  const p = document.getElementById('auto-preview');
  if (p && state.draft) p.textContent = sentence(state.draft, app);
}

// Controls bound to the draft. The label is the visible one; aria, when
// given, the fuller name assistive tech reads (a row's number with it).
function numberInput(id, value, set, app, attrs = {}) {
  const el = h('input', { type: 'number', id, value, inputmode: 'decimal', step: 'any', ...attrs });
  el.addEventListener('input', () => { set(el.value); showPreview(app); });
  return el;
}

function textInput(id, value, set, app, attrs = {}) {
  const el = h('input', { type: 'text', id, value, autocomplete: 'off', ...attrs });
  el.addEventListener('input', () => { set(el.value); showPreview(app); });
  return el;
}

function timeInput(id, value, set, app, attrs = {}) {
  const el = h('input', { type: 'time', id, value, ...attrs });
  el.addEventListener('input', () => { set(el.value); showPreview(app); });
  el.addEventListener('change', () => { set(el.value); showPreview(app); });
  return el;
}

// menu is a <select> of [value, text] options, or of { group, options }
// groups; a value it does not offer (a device since removed) is kept as an
// option of its own, and an empty one takes the first option.
function menu(id, options, value, set, app, { aria, reshape = false } = {}) {
  const flat = options.flatMap((o) => (Array.isArray(o) ? [o] : o.options));
  if (value === '' && flat.length) {
    value = flat[0][0];
    set(value);
  }
  const el = h('select', { id, 'aria-label': aria || null, 'data-initial': value });
  const option = ([v, text]) => h('option', { value: v, text, selected: v === value });
  for (const o of options) {
    if (Array.isArray(o)) el.append(option(o));
    else el.append(h('optgroup', { label: o.group }, o.options.map(option)));
  }
  if (flat.length === 0) el.append(h('option', { value: '', text: 'None in the house' }));
  else if (!flat.some(([v]) => v === value)) el.append(h('option', { value, text: `${value} (not in the house)`, selected: true }));
  el.addEventListener('change', () => {
    set(el.value);
    el.dataset.initial = el.value; // the draft has it: a redraw of the page keeps it
    if (reshape) redraw(app, el.id);
    else showPreview(app);
  });
  return el;
}

// labelled is field() with an accessible name that can say more than the
// visible label ("Brightness, action 2").
function labelled(label, control, aria, hint) {
  if (aria) control.setAttribute('aria-label', aria);
  const f = field(label, control, hint);
  if (hint) {
    const small = f.querySelector('.hint');
    small.id = `${control.id}-hint`;
    control.setAttribute('aria-describedby', small.id);
  }
  return f;
}

function daysPicker(prefix, days, app, legend) {
  return h('fieldset', { class: 'days' },
    h('legend', { text: legend }),
    weekdays.map((d) => {
      const box = h('input', { type: 'checkbox', id: `${prefix}-day-${d}`, value: d, checked: days.includes(d) });
      box.addEventListener('change', () => {
        const i = days.indexOf(d);
        if (box.checked && i < 0) days.push(d);
        if (!box.checked && i >= 0) days.splice(i, 1);
        days.sort((a, b) => weekdays.indexOf(a) - weekdays.indexOf(b));
        showPreview(app);
      });
      return h('label', { class: 'day', for: box.id }, box, h('span', { text: dayNames[d] }));
    }));
}

const triggerTypes = [
  ['occupancy', "A room's occupancy changes"],
  ['sensor', 'A sensor reads something'],
  ['power', 'A device turns on or off'],
  ['time', 'At a time of day'],
  ['sun', 'At sunrise or sunset'],
];
const conditionTypes = [
  ['time', 'The time is between'],
  ['sun', 'The sun is up or down'],
  ['sensor', 'A sensor reads'],
  ['occupancy', "A room's occupancy"],
  ['power', 'A device is on or off'],
];
const actionTypes = [
  ['light', 'Lights'],
  ['room', 'A room'],
  ['power', 'A power device'],
  ['media', 'A media player'],
  ['remote', 'A TV remote'],
  ['scene', 'A scene'],
  ['delay', 'Wait'],
];

function editor(app) {
  const d = state.draft;
  const name = h('input', { type: 'text', id: 'auto-name', value: d.name, required: true, maxlength: 100, autocomplete: 'off' });
  name.addEventListener('input', () => { d.name = name.value; });

  const save = h('button', { type: 'submit', class: 'primary', id: 'auto-save', text: d.saving ? 'Saving…' : 'Save', disabled: d.saving });
  const cancel = h('button', {
    type: 'button', id: 'auto-cancel', text: 'Cancel',
    onclick: () => closeEditor(d.id ? `auto-edit-${safe(d.id)}` : 'auto-new'),
  });
  const error = h('p', { class: 'error form-error', id: 'auto-error', role: 'alert', text: d.error });

  const form = h('form', { class: 'card editor', id: 'auto-editor', 'aria-labelledby': 'auto-editor-title', 'aria-describedby': 'auto-error' },
    h('h2', { id: 'auto-editor-title', text: d.id ? `Edit ${d.original}` : 'New automation' }),
    field('Name', name),
    triggerPart(app, d),
    conditionsPart(app, d),
    actionsPart(app, d),
    timingPart(app, d),
    h('div', { class: 'preview' },
      h('span', { class: 'label', id: 'auto-preview-label', text: 'Reads as' }),
      h('p', { id: 'auto-preview', 'aria-labelledby': 'auto-preview-label', text: sentence(d, app) })),
    error,
    h('div', { class: 'row buttons editor-buttons' }, save, cancel));

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (d.saving) return;
    d.saving = true;
    d.error = '';
    save.disabled = true;
    save.textContent = 'Saving…';
    error.textContent = '';
    const body = toRule(d);
    const res = await attempt(app, () => (d.id ? put(at`/automations/${d.id}`, body) : post('/automations', body)));
    d.saving = false;
    const btn = document.getElementById('auto-save'); // a redraw may have replaced it
    if (btn) { btn.disabled = false; btn.textContent = 'Save'; }
    if (!res) return;
    if (res.error) {
      d.error = res.error;
      const e = document.getElementById('auto-error');
      if (e) e.textContent = res.error;
      return;
    }
    if (state.draft === d) state.draft = null;
    toast(`Saved ${res.value.name}`);
    await app.refreshNow();
    const title = document.getElementById(`auto-title-${safe(res.value.id)}`);
    if (title) {
      title.setAttribute('tabindex', '-1');
      title.scrollIntoView({ block: 'center' });
      title.focus({ preventScroll: true });
    }
  });
  return form;
}

function triggerPart(app, d) {
  const t = d.trigger;
  const type = menu('auto-trigger-type', triggerTypes, t.type, (v) => { d.trigger = blankTrigger(app, v); }, app, { reshape: true });
  const set = (k) => (v) => { t[k] = v; };
  const fields = [];
  const stays = () => labelled('For at least (min)', numberInput('auto-trigger-for', t.for, set('for'), app, { min: 0 }),
    null, 'Empty: at once.');
  switch (t.type) {
    case 'occupancy':
      fields.push(
        field('Room', menu('auto-trigger-room', opts(home(app).rooms), t.room, set('room'), app)),
        field('Becomes', menu('auto-trigger-to', [['occupied', 'occupied'], ['empty', 'empty']], t.to, set('to'), app)),
        stays());
      break;
    case 'sensor': {
      const choices = sensorChoices(app, t.device, false);
      t.what = fitWhat(t.what, choices);
      const op = t.what.split(':')[1];
      const reading = t.what.split(':')[0];
      fields.push(
        field('Sensor', menu('auto-trigger-device', opts(home(app).sensors), t.device, (v) => {
          t.device = v;
          t.what = fitWhat(t.what, sensorChoices(app, v, false));
        }, app, { reshape: true })),
        field('What', menu('auto-trigger-what', choices, t.what, set('what'), app, { reshape: true })),
        op === 'above' || op === 'below'
          ? field(`Threshold${readingUnits[reading] ? ` (${readingUnits[reading].trim()})` : ''}`,
            numberInput('auto-trigger-value', t.value, set('value'), app))
          : null,
        stays());
      break;
    }
    case 'power':
      fields.push(
        field('Device', menu('auto-trigger-device', powerGroups(app), t.device, set('device'), app)),
        field('Turns', menu('auto-trigger-to', [['on', 'on'], ['off', 'off']], t.to, set('to'), app)),
        stays());
      break;
    case 'time':
      fields.push(
        field('Time', timeInput('auto-trigger-at', t.at, set('at'), app, { required: true })),
        daysPicker('auto-trigger', t.days, app, 'Days (none: every day)'));
      break;
    case 'sun':
      fields.push(
        field('At', menu('auto-trigger-event', [['sunrise', 'sunrise'], ['sunset', 'sunset']], t.event, set('event'), app)),
        labelled('Offset (min)', numberInput('auto-trigger-offset', t.offset, set('offset'), app), null, 'Minus is before: -30 is half an hour before.'),
        daysPicker('auto-trigger', t.days, app, 'Days (none: every day)'));
      break;
    default:
      break;
  }
  return h('fieldset', { class: 'part', id: 'auto-trigger' },
    h('legend', { text: 'When' }),
    field('Trigger', type),
    h('div', { class: 'part-fields' }, fields));
}

function conditionsPart(app, d) {
  const rows = d.conditions.map((c, i) => conditionRow(app, d, c, i));
  const add = h('button', {
    type: 'button', id: 'auto-add-condition', text: 'Add condition',
    onclick: () => {
      const c = blankCondition(app, 'time');
      d.conditions.push(c);
      redraw(app, `auto-cond-${c.key}-type`);
    },
  });
  return h('fieldset', { class: 'part', id: 'auto-conditions' },
    h('legend', { text: 'Only if' }),
    rows.length ? h('ol', { class: 'rows' }, rows) : h('p', { class: 'note', text: 'No conditions: it acts whenever it is triggered.' }),
    add);
}

function conditionRow(app, d, c, i) {
  const n = i + 1;
  const p = `auto-cond-${c.key}`;
  const what = `condition ${n}`;
  const set = (k) => (v) => { c[k] = v; };
  const type = menu(`${p}-type`, conditionTypes, c.type, (v) => {
    const fresh = blankCondition(app, v);
    fresh.key = c.key;
    d.conditions[i] = fresh;
  }, app, { reshape: true, aria: `Condition ${n}` });
  const fields = [];
  switch (c.type) {
    case 'time':
      fields.push(
        labelled('From', timeInput(`${p}-after`, c.after, set('after'), app), `From, ${what}`),
        labelled('Until', timeInput(`${p}-before`, c.before, set('before'), app), `Until, ${what}`),
        daysPicker(p, c.days, app, `Days of ${what} (none: every day)`));
      break;
    case 'sun':
      fields.push(labelled('The sun is', menu(`${p}-sun`, [['up', 'up'], ['down', 'down']], c.sun, set('sun'), app), `The sun is, ${what}`));
      break;
    case 'sensor': {
      const choices = sensorChoices(app, c.device, true);
      c.what = fitWhat(c.what, choices);
      const [reading, op] = c.what.split(':');
      const unit = readingUnits[reading] ? ` (${readingUnits[reading].trim()})` : '';
      fields.push(
        labelled('Sensor', menu(`${p}-device`, opts(home(app).sensors), c.device, (v) => {
          c.device = v;
          c.what = fitWhat(c.what, sensorChoices(app, v, true));
        }, app, { reshape: true, aria: `Sensor, ${what}` })),
        labelled('Is', menu(`${p}-what`, choices, c.what, set('what'), app, { reshape: true, aria: `Is, ${what}` })),
        ['above', 'below', 'between'].includes(op)
          ? labelled(`${op === 'between' ? 'From' : 'Value'}${unit}`, numberInput(`${p}-value`, c.value, set('value'), app), `${op === 'between' ? 'From' : 'Value'}, ${what}`)
          : null,
        op === 'between' ? labelled(`To${unit}`, numberInput(`${p}-value2`, c.value2, set('value2'), app), `To, ${what}`) : null);
      break;
    }
    case 'occupancy':
      fields.push(
        labelled('Room', menu(`${p}-room`, opts(home(app).rooms), c.room, set('room'), app), `Room, ${what}`),
        labelled('Is', menu(`${p}-is`, [['occupied', 'occupied'], ['empty', 'empty']], c.is, set('is'), app), `Is, ${what}`));
      break;
    case 'power':
      fields.push(
        labelled('Device', menu(`${p}-device`, powerGroups(app), c.device, set('device'), app), `Device, ${what}`),
        labelled('Is', menu(`${p}-is`, [['on', 'on'], ['off', 'off']], c.is, set('is'), app), `Is, ${what}`));
      break;
    default:
      break;
  }
  const remove = h('button', {
    type: 'button', class: 'quiet', id: `${p}-remove`, 'aria-label': `Remove condition ${n}`, text: 'Remove',
    onclick: () => {
      d.conditions.splice(i, 1);
      const next = d.conditions[i] || d.conditions[i - 1];
      redraw(app, next ? `auto-cond-${next.key}-remove` : 'auto-add-condition');
    },
  });
  return h('li', { class: 'rule-row', 'data-row': c.key },
    labelled('Condition', type, `Condition ${n}`),
    fields,
    h('div', { class: 'row-buttons' }, remove));
}

function actionsPart(app, d) {
  const rows = d.actions.map((a, i) => actionRow(app, d, a, i));
  const add = h('button', {
    type: 'button', id: 'auto-add-action', text: 'Add action',
    onclick: () => {
      const a = blankAction(app, 'light');
      d.actions.push(a);
      redraw(app, `auto-act-${a.key}-type`);
    },
  });
  return h('fieldset', { class: 'part', id: 'auto-actions' },
    h('legend', { text: 'Do' }),
    rows.length ? h('ol', { class: 'rows' }, rows) : h('p', { class: 'note', text: 'No actions yet.' }),
    add);
}

function actionRow(app, d, a, i) {
  const n = i + 1;
  const p = `auto-act-${a.key}`;
  const what = `action ${n}`;
  const set = (k) => (v) => { a[k] = v; };
  const x = home(app);
  const type = menu(`${p}-type`, actionTypes, a.type, (v) => {
    const fresh = blankAction(app, v);
    fresh.key = a.key;
    d.actions[i] = fresh;
  }, app, { reshape: true, aria: `Action ${n}` });
  const raw = a.what === 'raw' ? [['raw', `As saved: ${JSON.stringify(a.raw)}`]] : [];
  const lightHow = [['on', 'Turn on'], ['off', 'Turn off'], ['brightness', 'Set brightness'], ['kelvin', 'Set colour temperature'], ...raw];
  // A change of how keeps the value only when it means the same (a
  // brightness for "turn on at" and "set brightness").
  const setHow = (v) => {
    if (valueKind(a.type, v) !== valueKind(a.type, a.what)) a.value = '';
    a.what = v;
  };
  const howMenu = (options) => labelled('How', menu(`${p}-what`, options, a.what, setHow, app, { reshape: true, aria: `How, ${what}` }), `How, ${what}`);
  const lightValue = () => {
    if (a.what === 'on') return labelled('At brightness (%)', numberInput(`${p}-value`, a.value, set('value'), app, { min: 1, max: 100 }), `At brightness (%), ${what}`, 'Empty: as it was.');
    if (a.what === 'brightness') return labelled('Brightness (%)', numberInput(`${p}-value`, a.value, set('value'), app, { min: 1, max: 100 }), `Brightness (%), ${what}`);
    if (a.what === 'kelvin') return labelled('Colour temperature (K)', numberInput(`${p}-value`, a.value, set('value'), app, { min: 1000, max: 10000, step: 50 }), `Colour temperature (K), ${what}`);
    return null;
  };
  const fields = [];
  switch (a.type) {
    case 'light':
      fields.push(lightPicker(app, a, p, what), howMenu(lightHow), lightValue());
      break;
    case 'room':
      fields.push(labelled('Room', menu(`${p}-room`, opts(x.rooms), a.room, set('room'), app), `Room, ${what}`), howMenu(lightHow), lightValue());
      break;
    case 'power':
      fields.push(
        labelled('Device', menu(`${p}-device`, opts(x.power), a.device, set('device'), app), `Device, ${what}`),
        howMenu([['on', 'Turn on'], ['off', 'Turn off'], ...raw]));
      break;
    case 'media': {
      const m = x.media.find((y) => y.id === a.device);
      const sources = (m && m.state && m.state.sources) || [];
      fields.push(
        labelled('Player', menu(`${p}-device`, opts(x.media), a.device, set('device'), app, { reshape: true }), `Player, ${what}`),
        howMenu([['power-on', 'Turn on'], ['power-off', 'Turn off'], ['volume', 'Set volume'], ['source', 'Switch source'], ...raw]));
      if (a.what === 'volume') fields.push(labelled('Volume', numberInput(`${p}-value`, a.value, set('value'), app, { min: 0, max: 100 }), `Volume, ${what}`));
      if (a.what === 'source') {
        fields.push(sources.length
          ? labelled('Source', menu(`${p}-value`, sources.map((s) => [s, s]), a.value, set('value'), app), `Source, ${what}`)
          : labelled('Source', textInput(`${p}-value`, a.value, set('value'), app), `Source, ${what}`));
      }
      break;
    }
    case 'remote': {
      const r = x.remotes.find((y) => y.id === a.device);
      fields.push(
        labelled('Remote', menu(`${p}-device`, opts(x.remotes), a.device, set('device'), app, { reshape: true }), `Remote, ${what}`),
        howMenu([['key', 'Press a key'], ['app', 'Open an app'], ...raw]));
      if (a.what === 'key') {
        const keys = (r && r.keys) || [];
        fields.push(keys.length
          ? labelled('Key', menu(`${p}-value`, keys.map((k) => [k, keyName(k)]), a.value, set('value'), app), `Key, ${what}`)
          : labelled('Key', textInput(`${p}-value`, a.value, set('value'), app), `Key, ${what}`));
      }
      if (a.what === 'app') {
        const apps = (r && r.apps) || [];
        fields.push(apps.length
          ? labelled('App', menu(`${p}-value`, apps.map((y) => [y.id, y.name]), a.value, set('value'), app), `App, ${what}`)
          : labelled('App', textInput(`${p}-value`, a.value, set('value'), app), `App, ${what}`, 'Its name or package id.'));
      }
      break;
    }
    case 'scene':
      fields.push(labelled('Scene', menu(`${p}-scene`, opts(x.scenes), a.scene, set('scene'), app), `Scene, ${what}`));
      break;
    case 'delay':
      fields.push(
        labelled('Wait', numberInput(`${p}-value`, a.value, set('value'), app, { min: 0 }), `Wait, ${what}`),
        labelled('Unit', menu(`${p}-unit`, [['s', 'seconds'], ['m', 'minutes']], a.unit, set('unit'), app), `Unit, ${what}`));
      break;
    default:
      break;
  }
  const move = (to, focus) => {
    const [row] = d.actions.splice(i, 1);
    d.actions.splice(to, 0, row);
    redraw(app, focus);
  };
  const up = h('button', {
    type: 'button', class: 'quiet', id: `${p}-up`, 'aria-label': `Move action ${n} up`, text: 'Up', disabled: i === 0,
    onclick: () => move(i - 1, `${p}-up`),
  });
  const down = h('button', {
    type: 'button', class: 'quiet', id: `${p}-down`, 'aria-label': `Move action ${n} down`, text: 'Down', disabled: i === d.actions.length - 1,
    onclick: () => move(i + 1, `${p}-down`),
  });
  const remove = h('button', {
    type: 'button', class: 'quiet danger', id: `${p}-remove`, 'aria-label': `Remove action ${n}`, text: 'Remove',
    onclick: () => {
      d.actions.splice(i, 1);
      const next = d.actions[i] || d.actions[i - 1];
      redraw(app, next ? `auto-act-${next.key}-remove` : 'auto-add-action');
    },
  });
  return h('li', { class: 'rule-row', 'data-row': a.key },
    labelled('Action', type, `Action ${n}`),
    fields,
    h('div', { class: 'row-buttons' }, up, down, remove));
}

// valueKind is what an action's value means for a way of doing it.
function valueKind(type, how) {
  if (type === 'light' || type === 'room') return how === 'kelvin' ? 'kelvin' : 'percent';
  return how;
}

// lightPicker is a checkbox per light, for an action on one or more.
function lightPicker(app, a, p, what) {
  const real = [...home(app).lights].sort(byName);
  const lights = real.length ? [{ id: 'all', name: 'All lights' }, ...real] : [];
  const known = new Set(lights.map((l) => l.id));
  const missing = a.lights.filter((id) => !known.has(id)).map((id) => ({ id, name: `${id} (not in the house)` }));
  return h('fieldset', { class: 'lights-pick' },
    h('legend', { text: `Lights, ${what}` }),
    real.length || missing.length ? null : h('p', { class: 'note', text: 'No lights in the house.' }),
    [...lights, ...missing].map((l) => {
      const box = h('input', { type: 'checkbox', id: `${p}-light-${safe(l.id)}`, value: l.id, checked: a.lights.includes(l.id) });
      box.addEventListener('change', () => {
        const j = a.lights.indexOf(l.id);
        if (box.checked && j < 0) a.lights.push(l.id);
        if (!box.checked && j >= 0) a.lights.splice(j, 1);
        showPreview(app);
      });
      return h('label', { class: 'day', for: box.id }, box, h('span', { text: l.name }));
    }));
}

function timingPart(app, d) {
  return h('fieldset', { class: 'part', id: 'auto-timing' },
    h('legend', { text: 'Timing' }),
    h('div', { class: 'part-fields' },
      labelled('Cooldown (min)', numberInput('auto-cooldown', d.cooldown, (v) => { d.cooldown = v; }, app, { min: 0 }), null,
        'The least time between two runs. Empty: none.'),
      labelled('Put things back after (min)', numberInput('auto-restore', d.restore, (v) => { d.restore = v; }, app, { min: 0 }), null,
        'What the actions changed goes back as it was. Empty: never.')));
}
