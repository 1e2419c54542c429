// Arranging the dashboard. Each person keeps their own order of the rooms
// and of each room's tiles, the devices pinned to the top and those
// hidden, on the hub (GET/PUT /api/dashboard). The dashboard draws its
// cards and tiles as usual; place() puts them where the layout says, and
// in Arrange mode offers buttons to move, pin, hide and show, and drags
// by pointer (mouse, pen or touch) with a marker where the drop will land.
// Every change is saved at once, whole; a save that fails springs back to
// what was saved and says why.
//
// What the layout does not name keeps its usual place after what it
// names. The devices in no room are ordered under the key NO_ROOM.

import { get, put } from './api.js';
import { h } from './dom.js';

export const NO_ROOM = 'no_room';

const state = {
  user: null, // whose layout this is
  layout: null, // as shown: the last saved, with the changes under way
  saved: null, // as the hub last answered it
  failed: '', // why the layout could not be read
  arranging: false,
  pending: 0, // saves under way
  gen: 0, // bumped by a failed save: saves queued behind it are dropped
  queue: Promise.resolve(),
};

// The page being arranged: set by place(), read by the handlers.
let view = null;

// Leaving the dashboard ends Arrange mode.
window.addEventListener('hashchange', () => { state.arranging = false; });

// load reads the signed-in person's layout from the hub. While they are
// arranging, or a save is under way, the layout on screen is kept: a
// redraw (a device added, a room renamed) must not undo what they did.
export async function load(app) {
  const user = app.session && app.session.user ? app.session.user.id || app.session.user.username : '';
  if (state.user !== user) {
    Object.assign(state, { user, layout: null, saved: null, arranging: false });
  }
  if (state.layout && (state.arranging || state.pending > 0)) return;
  try {
    state.saved = filled(await get('/dashboard'));
    state.layout = clone(state.saved);
    state.failed = '';
  } catch (e) {
    state.failed = e.message;
    if (!state.layout) state.layout = filled({});
  }
}

function filled(l) {
  return { rooms: l.rooms || [], tiles: l.tiles || {}, pinned: l.pinned || [], hidden: l.hidden || [] };
}

function clone(l) {
  return JSON.parse(JSON.stringify(l));
}

// ordered lists ids in the order saved names them, then the rest in
// their usual order.
export function ordered(ids, saved) {
  const known = new Set(ids);
  const first = (saved || []).filter((id) => known.has(id));
  const named = new Set(first);
  return [...first, ...ids.filter((id) => !named.has(id))];
}

// place arranges the drawn dashboard (page: its root) by the layout and
// adds what arranging needs: the Arrange button, the Pinned section, the
// Hidden area and the bars of buttons on the cards and tiles.
export function place(app, page) {
  const grid = page.querySelector('.grid.rooms');
  const head = page.querySelector('.page-head');
  if (!grid || !head) return page;
  view = {
    app, page, grid,
    rooms: [], // { id, name, card, bar }
    lists: new Map(), // tiles key → { ul, ids }
    tiles: new Map(), // device id → { li, name, key, bar, pin }
    noRoom: grid.querySelector(':scope > [data-no-room]'),
  };
  for (const card of grid.querySelectorAll(':scope > section[data-room]')) {
    const id = card.dataset.room;
    const name = card.querySelector('h2').textContent;
    view.rooms.push({ id, name, card, bar: roomBar(id, name, card) });
    scanTiles(card, id);
  }
  if (view.noRoom) scanTiles(view.noRoom, NO_ROOM);

  view.toggle = h('button', { type: 'button', id: 'arrange-toggle', class: 'arrange-toggle', 'aria-pressed': 'false', onclick: toggleMode });
  if (state.failed) {
    view.toggle.disabled = true;
    view.toggle.title = `Your arrangement could not be read: ${state.failed}`;
  }
  head.append(view.toggle);
  view.said = h('p', { class: 'arrange-said', id: 'arrange-said', role: 'status', 'aria-live': 'polite' });
  view.help = h('p', { class: 'note arrange-help', text: 'Move rooms and devices with their buttons, or drag them by ⠿. Each change is saved as you make it.' });
  view.hiddenNote = h('p', { class: 'note hidden-note' });
  head.after(view.help, view.said, view.hiddenNote);
  view.pinnedList = h('ul', { class: 'tiles', 'data-tiles': 'pinned' });
  view.pinnedEmpty = h('p', { class: 'note', text: 'Pin a device to keep it here, at the top.' });
  view.pinned = h('section', { class: 'card pinned', 'aria-labelledby': 'pinned-title' },
    h('div', { class: 'card-head' }, h('h2', { id: 'pinned-title', text: 'Pinned' })),
    view.pinnedEmpty, view.pinnedList);
  view.hiddenList = h('ul', { class: 'hidden-list' });
  view.hidden = h('section', { class: 'card hidden-area', 'aria-labelledby': 'hidden-title' },
    h('div', { class: 'card-head' }, h('h2', { id: 'hidden-title', text: 'Hidden' })),
    view.hiddenList);
  grid.before(view.pinned);
  grid.after(view.hidden);
  draggable(view.pinnedList, 'li[data-device]', 'tile');
  draggable(grid, 'section[data-room]', 'room');
  apply();
  return page;
}

// scanTiles finds a card's tiles (key: the room's id, or NO_ROOM).
function scanTiles(card, key) {
  const ul = card.querySelector(':scope > ul.tiles');
  if (!ul) return;
  ul.dataset.tiles = key;
  const ids = [];
  for (const li of ul.querySelectorAll(':scope > li[data-device]')) {
    const id = li.dataset.device;
    const d = view.app.device(id);
    const name = d ? d.name : li.querySelector('.name').textContent;
    ids.push(id);
    view.tiles.set(id, { li, name, key, ...tileBar(id, name, li) });
  }
  view.lists.set(key, { ul, ids });
  draggable(ul, 'li[data-device]', 'tile');
}

// button is one of the arranging buttons: real buttons, named for what
// they do to what ("Move Office up"), with ids so that a redraw keeps
// focus on them.
function button(id, text, label, onclick) {
  return h('button', { type: 'button', class: 'quiet arrange-button', id, text, 'aria-label': label, onclick });
}

function grip() {
  return h('span', { class: 'grip', 'aria-hidden': 'true', title: 'Drag to move', text: '⠿' });
}

function roomBar(id, name, card) {
  const bar = h('div', { class: 'arrange-bar', role: 'group', 'aria-label': `Arrange ${name}` },
    grip(),
    button(`arrange-up-${id}`, '↑ Up', `Move ${name} up`, () => moveRoom(id, -1)),
    button(`arrange-down-${id}`, '↓ Down', `Move ${name} down`, () => moveRoom(id, +1)));
  card.querySelector('.card-head').after(bar);
  return bar;
}

function tileBar(id, name, li) {
  const pin = button(`arrange-pin-${id}`, 'Pin', `Pin ${name}`, () => togglePin(id));
  const bar = h('div', { class: 'arrange-bar', role: 'group', 'aria-label': `Arrange ${name}` },
    grip(),
    button(`arrange-earlier-${id}`, '←', `Move ${name} earlier`, () => moveTile(id, -1)),
    button(`arrange-later-${id}`, '→', `Move ${name} later`, () => moveTile(id, +1)),
    pin,
    button(`arrange-hide-${id}`, 'Hide', `Hide ${name}`, () => hide(id)));
  li.append(bar);
  return { bar, pin };
}

function toggleMode() {
  state.arranging = !state.arranging;
  apply();
  say(state.arranging ? 'Arranging the dashboard' : 'Done arranging');
}

// apply puts every card and tile where the layout says, and shows or
// hides what Arrange mode adds. Nodes already in place are not moved, so
// a control keeps its focus and state.
function apply() {
  if (!view) return;
  const l = state.layout;
  const focused = document.activeElement;
  const pinned = l.pinned.filter((id) => view.tiles.has(id));
  const hidden = l.hidden.filter((id) => view.tiles.has(id));
  const off = new Set([...pinned, ...hidden]);

  const rooms = ordered(view.rooms.map((r) => r.id), l.rooms).map((id) => view.rooms.find((r) => r.id === id).card);
  arrangeChildren(view.grid, view.noRoom ? [...rooms, view.noRoom] : rooms, 'section');
  for (const [key, list] of view.lists) {
    const ids = ordered(list.ids, l.tiles[key]).filter((id) => !off.has(id));
    arrangeChildren(list.ul, ids.map((id) => view.tiles.get(id).li), 'li');
  }
  // The devices in no room have no card of their own when none is shown.
  if (view.noRoom && view.lists.has(NO_ROOM)) view.noRoom.hidden = view.lists.get(NO_ROOM).ul.children.length === 0;
  arrangeChildren(view.pinnedList, pinned.map((id) => view.tiles.get(id).li), 'li');
  for (const id of hidden) view.tiles.get(id).li.remove();

  const on = state.arranging;
  view.page.classList.toggle('arranging', on);
  view.toggle.textContent = on ? 'Done' : 'Arrange';
  view.toggle.setAttribute('aria-pressed', String(on));
  view.toggle.setAttribute('aria-label', on ? 'Done arranging' : 'Arrange the dashboard');
  view.help.hidden = !on;
  view.pinned.hidden = pinned.length === 0 && !on;
  view.pinnedEmpty.hidden = pinned.length > 0;
  for (const r of view.rooms) r.bar.hidden = !on;
  for (const [id, t] of view.tiles) {
    t.bar.hidden = !on;
    const isPinned = pinned.includes(id);
    t.pin.textContent = isPinned ? 'Unpin' : 'Pin';
    t.pin.setAttribute('aria-label', `${isPinned ? 'Unpin' : 'Pin'} ${t.name}`);
    // While arranging, a tile's face does not switch the device: a tap
    // meant to pick it up must not turn a lamp off.
    for (const el of t.li.querySelectorAll(':scope > .tile-main, :scope > .chevron')) el.inert = on;
  }
  view.hidden.hidden = !on;
  view.hiddenList.replaceChildren(...hidden.map((id) => hiddenRow(id)));
  if (hidden.length === 0) view.hiddenList.append(h('li', { class: 'note', text: 'No device is hidden.' }));
  view.hiddenNote.hidden = on || hidden.length === 0;
  view.hiddenNote.textContent = `${hidden.length} device${hidden.length === 1 ? ' is' : 's are'} hidden; Arrange shows ${hidden.length === 1 ? 'it' : 'them'}.`;
  if (focused && focused !== document.activeElement && focused.isConnected && !focused.inert) focused.focus();
}

// arrangeChildren makes nodes the children of parent matching tag, in
// order, moving only those out of place (other children stay).
function arrangeChildren(parent, nodes, tag) {
  const want = new Set(nodes);
  for (const c of [...parent.children]) {
    if (c.tagName.toLowerCase() === tag && !want.has(c) && !c.classList.contains('drop-marker')) c.remove();
  }
  let ref = parent.firstElementChild;
  for (const n of nodes) {
    while (ref && !want.has(ref) && ref !== n) ref = ref.nextElementSibling;
    if (ref === n) {
      ref = ref.nextElementSibling;
      continue;
    }
    parent.insertBefore(n, ref);
  }
}

function hiddenRow(id) {
  const t = view.tiles.get(id);
  const room = t.key === NO_ROOM ? 'Not in a room' : (view.rooms.find((r) => r.id === t.key) || {}).name;
  return h('li', { class: 'hidden-row' },
    h('span', { class: 'name', text: t.name }),
    room ? h('span', { class: 'note', text: room }) : null,
    button(`arrange-show-${id}`, 'Show', `Show ${t.name}`, () => show(id)));
}

// moved is list with the id moved by step among the items visible(id)
// allows (items it does not allow keep their places); null when it is at
// that end already.
function moved(list, id, step, visible = () => true) {
  const i = list.indexOf(id);
  let j = i + step;
  while (j >= 0 && j < list.length && !visible(list[j])) j += step;
  if (i < 0 || j < 0 || j >= list.length) return null;
  const out = list.filter((x) => x !== id);
  out.splice(j, 0, id);
  return out;
}

// movedTo is list with the id put at index among the visible items.
function movedTo(list, id, index, visible = () => true) {
  const rest = list.filter((x) => x !== id);
  const shown = rest.filter(visible);
  const at = index < shown.length ? rest.indexOf(shown[index]) : (shown.length ? rest.indexOf(shown[shown.length - 1]) + 1 : rest.length);
  rest.splice(at, 0, id);
  return rest;
}

function roomOrder() {
  return ordered(view.rooms.map((r) => r.id), state.layout.rooms);
}

function roomName(id) {
  return view.rooms.find((r) => r.id === id).name;
}

function moveRoom(id, step) {
  const next = moved(roomOrder(), id, step);
  if (!next) {
    say(`${roomName(id)} is ${step < 0 ? 'first' : 'last'} already`);
    return;
  }
  change((l) => { l.rooms = next; }, `Moved ${roomName(id)} ${step < 0 ? 'up' : 'down'}`);
}

// tileList is the full order of the list a tile is shown in (its room's,
// or the pinned), and which of its items are shown there.
function tileList(id) {
  const l = state.layout;
  if (l.pinned.includes(id)) {
    return { key: 'pinned', list: l.pinned.filter((x) => view.tiles.has(x)), visible: () => true };
  }
  const t = view.tiles.get(id);
  const off = new Set([...l.pinned, ...l.hidden]);
  return { key: t.key, list: ordered(view.lists.get(t.key).ids, l.tiles[t.key]), visible: (x) => !off.has(x) };
}

function setTileList(l, key, list) {
  if (key === 'pinned') l.pinned = list;
  else l.tiles[key] = list;
}

function moveTile(id, step) {
  const { key, list, visible } = tileList(id);
  const name = view.tiles.get(id).name;
  const next = moved(list, id, step, visible);
  if (!next) {
    say(`${name} is ${step < 0 ? 'first' : 'last'} already`);
    return;
  }
  change((l) => setTileList(l, key, next), `Moved ${name} ${step < 0 ? 'earlier' : 'later'}`);
}

function togglePin(id) {
  const name = view.tiles.get(id).name;
  if (state.layout.pinned.includes(id)) {
    change((l) => { l.pinned = l.pinned.filter((x) => x !== id); }, `Unpinned ${name}`);
    return;
  }
  change((l) => {
    l.hidden = l.hidden.filter((x) => x !== id);
    l.pinned = [...l.pinned, id];
  }, `Pinned ${name} to the top`);
}

function hide(id) {
  const name = view.tiles.get(id).name;
  // Focus goes on to the next tile's Hide, or the Hidden area.
  change((l) => {
    l.pinned = l.pinned.filter((x) => x !== id);
    l.hidden = [...l.hidden, id];
  }, `Hid ${name}`);
  const showButton = document.getElementById(`arrange-show-${id}`);
  if (showButton) showButton.focus();
}

function show(id) {
  const name = view.tiles.get(id).name;
  change((l) => { l.hidden = l.hidden.filter((x) => x !== id); }, `Showing ${name} again`);
  const hideButton = document.getElementById(`arrange-hide-${id}`);
  if (hideButton) hideButton.focus();
}

// change applies edit to the layout on screen, says what it did, and
// saves the whole layout. Saves go one after another; when one fails the
// layout springs back to what the hub last saved, the changes queued
// behind it are dropped with it, and the reason is said.
function change(edit, said) {
  const l = clone(state.layout);
  edit(l);
  state.layout = l;
  apply();
  say(said);
  const gen = state.gen;
  const body = clone(l);
  const { app } = view;
  state.pending++;
  state.queue = state.queue.then(async () => {
    if (gen !== state.gen) return;
    const { value, error } = await app.attempt(() => put('/dashboard', body));
    if (error) {
      state.gen++;
      state.layout = clone(state.saved || filled({}));
      apply();
      say(`Not saved: ${error.message}. The dashboard is back as it was saved.`, true);
      return;
    }
    state.saved = filled(value || body);
  }).finally(() => { state.pending--; });
}

function say(text, error = false) {
  if (!view) return;
  view.said.textContent = text;
  view.said.classList.toggle('error', error);
}

// draggable lets the items (matching sel) of container be dragged by
// their grip with any pointer. A marker shows where the item will land;
// Escape, or a cancelled pointer, leaves it where it was.
function draggable(container, sel, kind) {
  container.addEventListener('pointerdown', (ev) => {
    const g = ev.target.closest('.grip');
    if (!g || !state.arranging || ev.button !== 0) return;
    const item = g.closest(sel);
    if (!item || item.parentElement !== container) return;
    ev.preventDefault();
    ev.stopPropagation(); // a tile's drag, not its room's too
    g.setPointerCapture(ev.pointerId);
    const marker = h(kind === 'tile' ? 'li' : 'div', { class: `drop-marker ${kind}`, 'aria-hidden': 'true' });
    marker.style.minHeight = `${Math.min(item.offsetHeight, kind === 'tile' ? 200 : 120)}px`;
    item.classList.add('dragging');
    container.insertBefore(marker, item.nextSibling);
    let done = false;
    let last = { clientX: ev.clientX, clientY: ev.clientY };
    const over = (e) => {
      last = { clientX: e.clientX, clientY: e.clientY };
      const ref = slotAt(container, sel, item, marker, e.clientX, e.clientY, kind);
      if (ref !== undefined && ref !== marker) container.insertBefore(marker, ref);
    };
    // Held near the top or bottom of the window, the page scrolls, so a
    // card can be taken past what the screen shows.
    const edge = 56;
    const scroll = () => {
      if (done) return;
      const y = last.clientY;
      const by = y < edge ? -Math.ceil((edge - y) / 4) : y > innerHeight - edge ? Math.ceil((y - innerHeight + edge) / 4) : 0;
      if (by) {
        window.scrollBy(0, by);
        over(last);
      }
      requestAnimationFrame(scroll);
    };
    requestAnimationFrame(scroll);
    const finish = (drop) => {
      if (done) return;
      done = true;
      g.removeEventListener('pointermove', over);
      g.removeEventListener('pointerup', up);
      g.removeEventListener('pointercancel', cancel);
      document.removeEventListener('keydown', key, true);
      const index = [...container.children].filter((c) => c === marker || (c !== item && c.matches(sel))).indexOf(marker);
      marker.remove();
      item.classList.remove('dragging');
      if (drop) dropped(kind, item, index);
    };
    const up = () => finish(true); // where the marker shows
    const cancel = () => finish(false);
    const key = (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        finish(false);
        say('Drag cancelled');
      }
    };
    g.addEventListener('pointermove', over);
    g.addEventListener('pointerup', up);
    g.addEventListener('pointercancel', cancel);
    document.addEventListener('keydown', key, true);
  });
}

// slotAt is the node the marker goes before for a pointer at x, y: before
// or after the item nearest it (beside it in a row of tiles, above or
// below it in a column of rooms); undefined when the pointer is on the
// marker (or no item is near), which then stays where it is.
function slotAt(container, sel, item, marker, x, y, kind) {
  const m = marker.getBoundingClientRect();
  if (x >= m.left && x <= m.right && y >= m.top && y <= m.bottom) return undefined; // on the marker: it stays
  let best = null;
  let bestD = Infinity;
  for (const c of container.children) {
    if (c === item || c === marker || !c.matches(sel)) continue;
    const r = c.getBoundingClientRect();
    const dx = Math.max(r.left - x, 0, x - r.right);
    const dy = Math.max(r.top - y, 0, y - r.bottom);
    const d = dx * dx + dy * dy;
    if (d < bestD) { bestD = d; best = { c, r }; }
  }
  if (!best) return undefined;
  const { c, r } = best;
  const before = kind === 'tile' && y >= r.top && y <= r.bottom ? x < r.left + r.width / 2 : y < r.top + r.height / 2;
  return before ? c : c.nextSibling;
}

// dropped saves the order a drag made: item is now at index among the
// items of its list.
function dropped(kind, item, index) {
  if (kind === 'room') {
    const id = item.dataset.room;
    const order = roomOrder();
    const next = movedTo(order, id, index);
    if (next.join() === order.join()) return;
    change((l) => { l.rooms = next; }, `Moved ${roomName(id)} to place ${index + 1} of ${order.length}`);
    return;
  }
  const id = item.dataset.device;
  const { key, list, visible } = tileList(id);
  const next = movedTo(list, id, index, visible);
  if (next.join() === list.join()) return;
  const count = list.filter(visible).length;
  change((l) => setTileList(l, key, next), `Moved ${view.tiles.get(id).name} to place ${index + 1} of ${count}`);
}
