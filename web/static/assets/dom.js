// Building the page. Every piece of text from the hub (names of devices,
// rooms, scenes, users, keys, messages) goes in as a text node or a
// property value, never as markup: a device named <img src=x onerror=…>
// shows those characters and runs nothing.

// Properties set as DOM properties rather than attributes.
const props = new Set(['value', 'checked', 'disabled', 'selected', 'hidden', 'indeterminate']);

// h creates an element. attrs: "class", "text" (its text), "on<event>"
// handlers, DOM properties, and plain attributes. Children are nodes,
// strings (as text), arrays, or null (skipped).
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = String(v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'value' && tag === 'input') el.defaultValue = el.value = String(v); // typed-in values can be told apart
    else if (props.has(k)) el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

// append adds children (nodes, strings as text, arrays, nulls skipped).
export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// replace empties el and appends children.
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

// The shapes of the transport icons, on a 24×24 grid.
const iconPaths = {
  play: 'M7 4.5v15l12-7.5z',
  pause: 'M6 4h4v16H6zM14 4h4v16h-4z',
  previous: 'M6 5h2.5v14H6zM19 5v14L9 12z',
  next: 'M15.5 5H18v14h-2.5zM5 5v14l10-7z',
};

// icon draws a small icon; the button around it carries the label.
export function icon(name) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', iconPaths[name]);
  svg.append(path);
  return svg;
}

// toast shows a short message in the live region; errors stay longer.
// With an action (a button: { text, label, run, keys }) it stays for ms
// (10 s), and longer while a pointer is over it or focus is in it; it
// never takes the focus. It answers the toast's element, whose done()
// removes it.
export function toast(message, kind = 'info', { action, ms } = {}) {
  const box = document.getElementById('toasts');
  const t = h('div', { class: `toast ${kind}`, role: kind === 'error' ? 'alert' : null },
    h('span', { class: 'toast-text', text: message }));
  box.append(t);
  while (box.children.length > 3) box.firstElementChild.remove(); // the newest few are enough
  let timer = null;
  const wait = ms || (action ? 10000 : kind === 'error' ? 8000 : 4000);
  const hold = () => clearTimeout(timer);
  const leave = () => {
    hold();
    if (!t.matches(':hover, :focus-within')) timer = setTimeout(() => t.remove(), wait);
  };
  t.done = () => { hold(); t.remove(); };
  if (action) {
    t.classList.add('has-action');
    t.append(h('button', {
      type: 'button', class: 'toast-action', text: action.text, 'aria-label': action.label,
      'aria-keyshortcuts': action.keys, onclick: () => action.run(t),
    }));
    for (const ev of ['pointerenter', 'focusin']) t.addEventListener(ev, hold);
    for (const ev of ['pointerleave', 'focusout']) t.addEventListener(ev, () => setTimeout(leave));
  }
  timer = setTimeout(() => t.remove(), wait);
  t.restart = leave;
  return t;
}

let unique = 0;

// uid returns a fresh element id, for label/for pairs.
export function uid(prefix = 'f') {
  unique += 1;
  return `${prefix}-${unique}`;
}

// field is a visible label with its control.
export function field(label, control, hint) {
  if (!control.id) control.id = uid();
  return h('div', { class: 'field' },
    h('label', { for: control.id, text: label }),
    control,
    hint ? h('small', { class: 'hint', text: hint }) : null);
}

// toggle is a checkbox drawn as a switch, labelled for assistive tech.
export function toggle(label, checked, onChange, attrs = {}) {
  const input = h('input', { type: 'checkbox', role: 'switch', class: 'switch', 'aria-label': label, checked: !!checked, ...attrs });
  input.addEventListener('change', () => onChange(input.checked, input));
  return input;
}

// slider is a labelled range input that reports on release (and on each
// keyboard step); it shows its value beside it.
export function slider(label, value, min, max, onChange, attrs = {}) {
  const { unit, ...rest } = attrs;
  const input = h('input', { type: 'range', min, max, step: 1, 'aria-label': label, ...rest });
  input.value = String(value ?? min); // after min and max, or it would be clamped to the defaults
  const out = h('output', { class: 'value', text: format(input.value, unit), 'aria-hidden': 'true' });
  input.addEventListener('input', () => { out.textContent = format(input.value, unit); });
  input.addEventListener('change', () => onChange(Number(input.value), input));
  const wrap = h('span', { class: 'slider' }, input, out);
  wrap.set = (v) => {
    if (input.matches(':active')) return; // being dragged: the hand wins
    input.value = String(v);
    out.textContent = format(input.value, unit);
  };
  wrap.input = input;
  return wrap;
}

function format(v, unit) {
  return unit ? `${v}${unit}` : String(v);
}

// select is a labelled <select> of [value, text] options.
export function select(label, options, value, attrs = {}) {
  const el = h('select', { 'aria-label': label, 'data-initial': value ?? '', ...attrs });
  for (const [v, text] of options) el.append(h('option', { value: v, text, selected: v === value }));
  return el;
}

// confirmButton asks for a second press before doing something that
// cannot be undone; the prompt reverts after a few seconds.
export function confirmButton(text, ask, action, attrs = {}) {
  const b = h('button', { type: 'button', class: 'danger', text, ...attrs });
  const label = attrs['aria-label'];
  let armed = null;
  const disarm = () => {
    armed = null;
    b.textContent = text;
    if (label) b.setAttribute('aria-label', label);
  };
  b.addEventListener('click', () => {
    if (armed) {
      clearTimeout(armed);
      disarm();
      action(b);
      return;
    }
    b.textContent = ask;
    if (label) b.setAttribute('aria-label', `${ask}: ${label}`);
    armed = setTimeout(disarm, 4000);
  });
  return b;
}

// when formats an ISO time for people, or "never".
export function when(iso) {
  if (!iso) return 'never';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime()) || d.getFullYear() < 2000) return 'never';
  return d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

// busy disables a button while a promise runs.
export async function busy(button, work) {
  if (button) button.disabled = true;
  try {
    return await work();
  } finally {
    if (button) button.disabled = false;
  }
}
