// What a player plays, as pictures and time: its cover art (small on the
// tile, large in the details dialog, a neutral placeholder of the same
// size when there is none, so nothing moves when art arrives) and how far
// into the item it is, as a progress bar with times. The position comes
// from the hub with the moment it was read (position_at); while the
// player plays it runs on here, once a second, and each event resyncs it.

import { h } from './dom.js';

// The hub names art by its /api/v1 path; this page reads the same route
// under /api with its session.
export function artSrc(v) {
  const u = v && v.artwork_url;
  return u ? u.replace(/^\/api\/v1\//, '/api/') : '';
}

// clock is seconds as m:ss, or h:mm:ss from an hour.
export function clock(secs) {
  const t = Math.max(0, Math.floor(secs));
  const s = String(t % 60).padStart(2, '0');
  if (t >= 3600) return `${Math.floor(t / 3600)}:${String(Math.floor(t / 60) % 60).padStart(2, '0')}:${s}`;
  return `${Math.floor(t / 60)}:${s}`;
}

// position is where a player is now, in seconds, and its length (null
// when it has none); null when the hub does not know.
export function position(v, now = Date.now()) {
  if (!v || v.position_secs === undefined || v.position_secs === null || !v.position_at) return null;
  const st = v.state || {};
  let pos = v.position_secs;
  if (st.transport === 'playing') pos += Math.max(0, (now - Date.parse(v.position_at)) / 1000);
  const dur = v.duration_secs ?? null;
  if (dur !== null) pos = Math.min(pos, dur);
  return { pos, dur, playing: st.transport === 'playing' };
}

// One timer moves every bar shown while its player plays.
const running = new Set();
let timer = null;
function tick() {
  for (const bar of running) {
    if (!bar.el.isConnected) running.delete(bar);
    else bar.draw();
  }
  if (running.size === 0) {
    clearInterval(timer);
    timer = null;
  }
}
function run(bar, on) {
  if (!on) {
    running.delete(bar);
    return;
  }
  running.add(bar);
  if (!timer) timer = setInterval(tick, 1000);
}

// art is a cover-art box of a size ('small' or 'large'): the image when
// the hub holds one, the placeholder otherwise.
function art(size, placeholder) {
  const img = h('img', { alt: '', hidden: true, decoding: 'async' });
  const box = h('span', { class: `np-art ${size}`, 'aria-hidden': 'true' }, placeholder, img);
  img.addEventListener('load', () => box.classList.add('has-art'));
  img.addEventListener('error', () => { box.classList.remove('has-art'); img.hidden = true; });
  return {
    el: box,
    update(v) {
      const src = artSrc(v);
      if (!src) {
        box.classList.remove('has-art');
        img.hidden = true;
        img.removeAttribute('src');
        return;
      }
      if (img.getAttribute('src') !== src) img.src = src;
      img.hidden = false;
    },
  };
}

// bar is a progress bar with its times; label names the player.
function bar(label, withTimes) {
  const meter = h('progress', { class: 'np-bar', max: '1', value: '0', 'aria-label': `Position in what ${label} plays` });
  const at = h('span', { class: 'np-at' });
  const length = h('span', { class: 'np-length' });
  const el = h('div', { class: 'np-progress' }, meter, withTimes ? h('span', { class: 'np-times' }, at, length) : null);
  let view = null;
  const b = {
    el,
    draw() {
      const p = position(view);
      el.classList.toggle('unknown', !p);
      if (!p) {
        meter.removeAttribute('aria-valuetext');
        return;
      }
      const text = p.dur !== null ? `${clock(p.pos)} of ${clock(p.dur)}` : `${clock(p.pos)}, live`;
      meter.max = p.dur || 1;
      meter.value = p.dur ? p.pos : 0;
      meter.setAttribute('aria-valuetext', text);
      el.classList.toggle('live', p.dur === null);
      at.textContent = clock(p.pos);
      length.textContent = p.dur !== null ? clock(p.dur) : 'Live';
    },
    update(v) {
      view = v;
      b.draw();
      const p = position(v);
      run(b, !!p && p.playing);
    },
  };
  return b;
}

// tileNowPlaying puts small cover art in a media tile's icon (the icon is
// its placeholder) and a thin progress bar under its text.
export function tileNowPlaying(glyph, name) {
  const a = art('small', null);
  glyph.append(a.el);
  glyph.classList.add('np-glyph');
  const b = bar(name, false);
  b.el.classList.add('tile-progress');
  return {
    bar: b.el,
    update(v) {
      const on = !!v.online && !!(v.state && v.state.power);
      a.update(on ? v : null);
      glyph.classList.toggle('with-art', on && !!artSrc(v));
      b.update(on ? v : null);
    },
  };
}

// detailsNowPlaying is the large cover art and the progress with its times,
// for the details dialog, beside the now-playing line.
export function detailsNowPlaying(name, line) {
  const note = h('span', { class: 'np-note' });
  const a = art('large', note);
  const b = bar(name, true);
  const el = h('div', { class: 'np-details' }, a.el, h('div', { class: 'np-text' }, line, b.el));
  return {
    el,
    update(v) {
      a.update(v);
      b.update(v);
    },
  };
}
