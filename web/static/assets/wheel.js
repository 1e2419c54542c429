// A colour wheel: hue around, saturation outwards, drawn on a canvas. It
// takes a pointer (tap or drag, set on release) and the keyboard (←/→ turn
// the hue by 10°, ↑/↓ change the saturation by 10 %, Shift for steps of 1,
// Enter or a pause sets it), and says its value to assistive tech.

import { h } from './dom.js';

const size = 180;

// colourWheel returns the wheel's element; onPick gets "#rrggbb".
// wheel.set(hex) shows a colour the hub reported.
export function colourWheel(label, hex, onPick, attrs = {}) {
  const canvas = h('canvas', {
    class: 'wheel', width: size, height: size, tabindex: 0, role: 'slider',
    'aria-label': label, 'aria-valuemin': 0, 'aria-valuemax': 359, ...attrs,
  });
  const swatch = h('span', { class: 'wheel-swatch', 'aria-hidden': 'true' });
  const wrap = h('div', { class: 'wheel-wrap' }, canvas, swatch);
  let { hue, sat } = hsOf(hex);
  let timer = null;
  const ctx = canvas.getContext('2d');
  const base = paint(ctx);

  const draw = () => {
    ctx.putImageData(base, 0, 0);
    const r = (size / 2 - 4) * sat;
    const a = (hue * Math.PI) / 180;
    const x = size / 2 + r * Math.cos(a);
    const y = size / 2 - r * Math.sin(a);
    ctx.lineWidth = 3;
    ctx.strokeStyle = '#ffffff';
    ctx.beginPath();
    ctx.arc(x, y, 7, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.lineWidth = 1.5;
    ctx.strokeStyle = '#000000';
    ctx.beginPath();
    ctx.arc(x, y, 8.5, 0, 2 * Math.PI);
    ctx.stroke();
    const now = hexOfHS(hue, sat);
    swatch.style.background = now;
    canvas.setAttribute('aria-valuenow', String(Math.round(hue)));
    canvas.setAttribute('aria-valuetext', `Hue ${Math.round(hue)}°, saturation ${Math.round(sat * 100)} %, ${now}`);
    canvas.dataset.hex = now;
  };
  const pick = () => {
    clearTimeout(timer);
    timer = null;
    onPick(hexOfHS(hue, sat));
  };
  const at = (ev) => {
    const box = canvas.getBoundingClientRect();
    const dx = ((ev.clientX - box.left) / box.width) * size - size / 2;
    const dy = size / 2 - ((ev.clientY - box.top) / box.height) * size;
    hue = ((Math.atan2(dy, dx) * 180) / Math.PI + 360) % 360;
    sat = Math.min(1, Math.hypot(dx, dy) / (size / 2 - 4));
    draw();
  };
  let dragging = false;
  canvas.addEventListener('pointerdown', (ev) => {
    dragging = true;
    canvas.setPointerCapture(ev.pointerId);
    at(ev);
  });
  canvas.addEventListener('pointermove', (ev) => { if (dragging) at(ev); });
  canvas.addEventListener('pointerup', (ev) => {
    if (!dragging) return;
    dragging = false;
    at(ev);
    pick();
  });
  canvas.addEventListener('keydown', (ev) => {
    const step = ev.shiftKey ? 1 : 10;
    switch (ev.key) {
      case 'ArrowLeft': hue = (hue - step + 360) % 360; break;
      case 'ArrowRight': hue = (hue + step) % 360; break;
      case 'ArrowUp': sat = Math.min(1, sat + step / 100); break;
      case 'ArrowDown': sat = Math.max(0, sat - step / 100); break;
      case 'Enter':
      case ' ':
        ev.preventDefault();
        pick();
        return;
      default: return;
    }
    ev.preventDefault();
    draw();
    clearTimeout(timer);
    timer = setTimeout(pick, 600); // a pause after the keys sets it
  });
  wrap.set = (reported) => {
    if (dragging || timer || !reported) return; // being moved: the hand wins
    ({ hue, sat } = hsOf(reported));
    draw();
  };
  wrap.canvas = canvas;
  draw();
  return wrap;
}

// paint draws the wheel once: hue by angle, saturation by radius, full
// value; outside the circle stays clear.
function paint(ctx) {
  const img = ctx.createImageData(size, size);
  const c = size / 2;
  const rmax = c - 4;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const dx = x - c;
      const dy = c - y;
      const r = Math.hypot(dx, dy);
      if (r > rmax) continue;
      const [rr, gg, bb] = rgbOfHSV(((Math.atan2(dy, dx) * 180) / Math.PI + 360) % 360, r / rmax, 1);
      const i = (y * size + x) * 4;
      img.data[i] = rr;
      img.data[i + 1] = gg;
      img.data[i + 2] = bb;
      img.data[i + 3] = Math.min(255, Math.round((rmax - r + 1) * 255)); // a soft rim
    }
  }
  ctx.putImageData(img, 0, 0);
  return img;
}

function rgbOfHSV(hue, s, v) {
  const f = (n) => {
    const k = (n + hue / 60) % 6;
    return Math.round(255 * (v - v * s * Math.max(0, Math.min(k, 4 - k, 1))));
  };
  return [f(5), f(3), f(1)];
}

export function hexOfHS(hue, sat) {
  return `#${rgbOfHSV(hue, sat, 1).map((n) => n.toString(16).padStart(2, '0')).join('')}`;
}

// hsOf is a colour's hue (degrees) and saturation (0–1).
export function hsOf(hex) {
  const m = /^#?([0-9a-f]{6})$/i.exec(hex || '');
  if (!m) return { hue: 0, sat: 0 };
  const n = parseInt(m[1], 16);
  const r = ((n >> 16) & 255) / 255;
  const g = ((n >> 8) & 255) / 255;
  const b = (n & 255) / 255;
  const hi = Math.max(r, g, b);
  const lo = Math.min(r, g, b);
  const d = hi - lo;
  let hue = 0;
  if (d > 0) {
    if (hi === r) hue = 60 * (((g - b) / d + 6) % 6);
    else if (hi === g) hue = 60 * ((b - r) / d + 2);
    else hue = 60 * ((r - g) / d + 4);
  }
  return { hue, sat: hi === 0 ? 0 : d / hi };
}

// kelvinRGB approximates the colour of a white of k kelvin, for showing a
// lamp's white on its tile.
export function kelvinRGB(k) {
  const t = Math.max(1000, Math.min(40000, k)) / 100;
  const clamp = (v) => Math.round(Math.max(0, Math.min(255, v)));
  const r = t <= 66 ? 255 : 329.698727446 * (t - 60) ** -0.1332047592;
  const g = t <= 66 ? 99.4708025861 * Math.log(t) - 161.1195681661 : 288.1221695283 * (t - 60) ** -0.0755148492;
  const b = t >= 66 ? 255 : t <= 19 ? 0 : 138.5177312231 * Math.log(t - 10) - 305.0447927307;
  return `rgb(${clamp(r)}, ${clamp(g)}, ${clamp(b)})`;
}
