// Sensor history as graphs, drawn in SVG from what the hub stored
// (GET /sensors/devices/{id}/history): a small line of the last 24 hours
// on a sensor's tile, and in its details a chart per reading with a range
// to choose, its axes, the band between each bucket's least and greatest
// value, and a sentence that says what it shows. Each keeps its place
// while it loads, so nothing moves; each reads again when the sensor's
// reading changes, at most once a minute.

import { get, at } from './api.js';
import { h } from './dom.js';

const ns = 'http://www.w3.org/2000/svg';
const minute = 60 * 1000;

function svg(tag, attrs) {
  const el = document.createElementNS(ns, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  return el;
}

const names = { temperature: 'Temperature', humidity: 'Humidity', illuminance: 'Illuminance', power: 'Power', energy: 'Energy', battery: 'Battery' };
const kept = Object.keys(names);

// numeric is the types of a sensor's readings the history keeps.
function numeric(s) {
  return (s.readings || []).filter((r) => typeof r.bool !== 'boolean' && kept.includes(r.type)).map((r) => r.type);
}

const round = (v) => Math.round(v * 10) / 10;
const withUnit = (v, unit) => `${round(v)}${unit ? `\u00a0${unit}` : ''}`;

// The tiles' lines, by sensor, so a redraw of the page draws at once
// what was read less than a minute ago.
const sparks = new Map(); // id → { at, answer }

async function history(id, since, type) {
  const q = new URLSearchParams({ since });
  if (type) q.set('type', type);
  return get(`${at`/sensors/devices/${id}/history`}?${q}`);
}

// scale maps a series onto a box: x across the span (from its first point
// when the history starts later, so a young history is not a sliver at
// the right), y across its values (a flat series in the middle).
function scale(answer, series, w, h0, top = 0) {
  const first = series.points.length ? Date.parse(series.points[0].at) : 0;
  const t1 = Date.parse(answer.until);
  const t0 = Math.min(Math.max(Date.parse(answer.since), first), t1 - minute);
  let lo = series.min;
  let hi = series.max;
  if (lo === hi) { lo -= 1; hi += 1; }
  return {
    x: (iso) => ((Date.parse(iso) - t0) / Math.max(1, t1 - t0)) * w,
    y: (v) => top + h0 - ((v - lo) / (hi - lo)) * h0,
    lo, hi, t0, t1,
  };
}

const fmt = (n) => n.toFixed(2).replace(/\.?0+$/, '');

// sparkline is the line on a sensor's tile: its first kept reading over
// the last 24 hours. It answers { el, changed(view) }.
export function sparkline(s) {
  const types = numeric(s);
  const box = svg('svg', { class: 'spark', viewBox: '0 0 100 24', preserveAspectRatio: 'none', 'aria-hidden': 'true', focusable: 'false' });
  if (!types.length) return { el: null, changed() {} };
  const type = types[0];
  box.dataset.type = type;
  const draw = (answer) => {
    box.replaceChildren();
    const series = (answer.series || []).find((x) => x.type === type);
    box.dataset.since = answer.since;
    box.dataset.until = answer.until;
    box.dataset.count = series ? String(series.points.length) : '0';
    if (!series || !series.points.length) return;
    box.dataset.min = String(series.min);
    box.dataset.max = String(series.max);
    box.dataset.last = String(series.last);
    const sc = scale(answer, series, 100, 20, 2);
    const pts = series.points.map((p) => `${fmt(sc.x(p.at))},${fmt(sc.y(p.value))}`);
    if (pts.length === 1) pts.push(`100,${pts[0].split(',')[1]}`); // one sample: a level line to now
    box.append(svg('polyline', { points: pts.join(' '), class: 'spark-line', 'vector-effect': 'non-scaling-stroke' }));
    box.dataset.drawn = 'true';
  };
  const load = async (force) => {
    const cached = sparks.get(s.id);
    if (cached && !force && Date.now() - cached.at < minute) {
      draw(cached.answer);
      return;
    }
    try {
      const answer = await history(s.id, '24h', type);
      sparks.set(s.id, { at: Date.now(), answer });
      draw(answer);
    } catch {
      // No line is no harm: the tile still says the reading.
    }
  };
  load(false);
  return {
    el: box,
    changed() {
      const cached = sparks.get(s.id);
      if (!cached || Date.now() - cached.at >= minute) load(true);
    },
  };
}

// The ranges a chart shows, and how each is said.
const ranges = [
  ['24h', '24 h', '24 hours'],
  ['7d', '7 days', '7 days'],
  ['30d', '30 days', '30 days'],
  ['365d', '1 year', 'a year'],
];

// historyPanel is the charts in a sensor's details: one per kept reading,
// over the chosen range. It reads when the details open (open()), and
// again on a change of the reading while they are open, at most once a
// minute. It answers { el, open(), changed(view) }.
export function historyPanel(s) {
  const types = numeric(s);
  if (!types.length) return { el: null, open() {}, changed() {} };
  let range = ranges[0];
  let loadedAt = 0;
  let shown = false;
  const buttons = ranges.map((r) => h('button', {
    type: 'button', class: 'quiet', 'aria-pressed': String(r === range), text: r[1],
    'data-range': r[0],
    onclick: () => {
      range = r;
      for (const b of buttons) b.setAttribute('aria-pressed', String(b.dataset.range === r[0]));
      load();
    },
  }));
  const charts = new Map(types.map((t) => [t, chartBox(s, t)]));
  const status = h('p', { class: 'history-status', role: 'status' });
  const el = h('section', { class: 'history', 'aria-label': `History of ${s.name}` },
    h('div', { class: 'history-ranges', role: 'group', 'aria-label': 'Range' }, buttons),
    [...charts.values()].map((c) => c.el), status);
  const load = async () => {
    loadedAt = Date.now();
    el.setAttribute('aria-busy', 'true');
    try {
      const answer = await history(s.id, range[0]);
      status.textContent = '';
      for (const [t, c] of charts) c.draw(answer, (answer.series || []).find((x) => x.type === t), range[2]);
    } catch (e) {
      status.textContent = `The history could not be read: ${e.message}`;
    } finally {
      el.removeAttribute('aria-busy');
    }
  };
  return {
    el,
    open() { shown = true; load(); },
    changed() {
      const dialog = el.closest('dialog');
      if (shown && dialog && dialog.open && Date.now() - loadedAt >= minute) load();
    },
  };
}

// chartBox is one reading's chart: a fixed box the chart is drawn into.
function chartBox(s, type) {
  const W = 320; const H = 150; const left = 40; const right = 8; const top = 10; const bottom = 22;
  const pw = W - left - right; const ph = H - top - bottom;
  const title = h('h3', { class: 'chart-title', text: names[type] });
  const pic = svg('svg', { class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'data-type': type });
  pic.setAttribute('aria-label', `${names[type]}: loading`);
  const draw = (answer, series, spoken) => {
    pic.replaceChildren();
    pic.dataset.since = answer.since;
    pic.dataset.until = answer.until;
    pic.dataset.resolution = answer.resolution;
    const unit = series ? series.unit : '';
    if (!series || !series.points.length) {
      pic.dataset.count = '0';
      pic.setAttribute('aria-label', `${names[type]} over ${spoken}: nothing kept yet`);
      pic.append(svg('text', { x: W / 2, y: H / 2, class: 'chart-empty', 'text-anchor': 'middle' }));
      pic.lastChild.textContent = 'Nothing kept yet';
      return;
    }
    pic.dataset.count = String(series.points.length);
    pic.dataset.min = String(series.min);
    pic.dataset.max = String(series.max);
    pic.dataset.last = String(series.last);
    pic.dataset.points = JSON.stringify(series.points.map((p) => [p.at, p.value]));
    pic.setAttribute('aria-label', `${names[type]} over ${spoken}: ${round(series.min)} to ${withUnit(series.max, unit)}, now ${withUnit(series.last, unit)}`);
    const sc = scale(answer, series, pw, ph, top);
    const X = (iso) => left + sc.x(iso);
    // Grid and value labels: the least, the middle and the greatest.
    const spread = sc.hi - sc.lo;
    const digits = spread < 1 ? 2 : spread < 10 ? 1 : 0; // labels that differ
    for (const v of [sc.lo, (sc.lo + sc.hi) / 2, sc.hi]) {
      const y = sc.y(v);
      pic.append(svg('line', { x1: left, x2: W - right, y1: fmt(y), y2: fmt(y), class: 'chart-grid' }));
      const label = svg('text', { x: left - 4, y: fmt(y + 3.5), class: 'chart-label', 'text-anchor': 'end' });
      label.textContent = String(Number(v.toFixed(digits)));
      pic.append(label);
    }
    title.textContent = unit ? `${names[type]} (${unit})` : names[type];
    // Time labels: the start, the middle and the end of the span.
    const span = sc.t1 - sc.t0;
    const long = span > 2 * 24 * 60 * minute;
    const short = span < 2 * 60 * minute;
    [0, 0.5, 1].forEach((f, i) => {
      const t = new Date(sc.t0 + f * span);
      const label = svg('text', { x: fmt(left + f * pw), y: H - 6, class: 'chart-label', 'text-anchor': ['start', 'middle', 'end'][i] });
      label.textContent = long ? t.toLocaleDateString(undefined, { day: 'numeric', month: 'short' })
        : t.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: short ? '2-digit' : undefined });
      pic.append(label);
    });
    const pts = series.points;
    // The band between each bucket's least and greatest value.
    if (pts.some((p) => typeof p.min === 'number')) {
      const upper = pts.map((p) => `${fmt(X(p.at))},${fmt(sc.y(p.max ?? p.value))}`);
      const lower = pts.slice().reverse().map((p) => `${fmt(X(p.at))},${fmt(sc.y(p.min ?? p.value))}`);
      pic.append(svg('polygon', { points: [...upper, ...lower].join(' '), class: 'chart-band' }));
    }
    const line = pts.map((p) => `${fmt(X(p.at))},${fmt(sc.y(p.value))}`);
    if (line.length === 1) line.push(`${W - right},${line[0].split(',')[1]}`);
    pic.append(svg('polyline', { points: line.join(' '), class: 'chart-line' }));
    const last = pts[pts.length - 1];
    pic.append(svg('circle', { cx: fmt(X(last.at)), cy: fmt(sc.y(last.value)), r: 3, class: 'chart-dot' }));
    pic.dataset.drawn = 'true';
  };
  return { el: h('figure', { class: 'chart-box' }, title, pic), draw };
}
