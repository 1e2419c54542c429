// The web UI's shell: the session, the page router, the snapshot of the
// house and the live event stream that keeps it current.

import { get, post, setCSRF, follow, ApiError } from './api.js';
import { replace, toast, h } from './dom.js';
import { renderAuth } from './auth.js';
import * as dashboard from './dashboard.js';
import * as rooms from './rooms.js';
import * as devices from './devices.js';
import * as scenes from './scenes.js';
import * as automations from './automations.js';
import * as settings from './settings.js';

const pages = {
  '/': { title: 'Dashboard', module: dashboard },
  '/rooms': { title: 'Rooms', module: rooms },
  '/devices': { title: 'Devices', module: devices },
  '/scenes': { title: 'Scenes', module: scenes },
  '/automations': { title: 'Automations', module: automations },
  '/settings': { title: 'Settings', module: settings },
};

// Event types that carry a device's new live view, and where the snapshot
// keeps that kind.
const stateLists = { light: 'lights', media: 'media', power: 'power', remote: 'remotes', sensor: 'sensors' };

const main = document.getElementById('main');
const top = document.getElementById('top');
const live = document.getElementById('live');

// app is what pages see: the session, the house, and ways to act on it.
export const app = {
  session: null,
  home: null,
  watchers: new Map(), // device id → functions to call with its new view
  stream: null,
  path: '/',

  // watch calls fn with the device's new view whenever it changes, until
  // the page is drawn again; with a type ('media', 'remote', …), only with
  // views of that type (a TV has a media view and a remote view).
  watch(id, fn, type = '') {
    if (!this.watchers.has(id)) this.watchers.set(id, new Set());
    this.watchers.get(id).add({ fn, type });
  },

  // remote finds the remote face of a device (a TV's), if it has one.
  remote(id) {
    return (this.home.remotes || []).find((x) => x.id === id) || null;
  },

  // run runs an action, showing its error; a lost session goes back to
  // the sign-in page. It answers the action's value, undefined when it
  // failed.
  async run(work, success) {
    const { value, error } = await this.attempt(work, success);
    return error ? undefined : value;
  },

  // attempt is run answering { value } or { error }, for a control that
  // has to tell a failure apart (to spring back and say why).
  async attempt(work, success) {
    try {
      const value = await work();
      if (success) toast(typeof success === 'function' ? success(value) : success);
      return { value };
    } catch (error) {
      if (error instanceof ApiError && error.status === 401 && this.session) {
        signedOut('Your session has ended. Sign in again.');
      } else {
        toast(error.message, 'error');
      }
      return { error };
    }
  },

  // refresh reads the house again and redraws the page (at most once per
  // burst of changes).
  refresh() {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(() => { refreshTimer = null; reload(); }, 120);
    settled();
  },

  // refreshNow reads the house again and redraws the page at once; it
  // resolves when the page is drawn.
  refreshNow() {
    clearTimeout(refreshTimer);
    refreshTimer = null;
    return reload();
  },

  // device finds a device's live view in the snapshot.
  device(id) {
    for (const list of Object.values(stateLists)) {
      const d = (this.home[list] || []).find((x) => x.id === id);
      if (d) return d;
    }
    return null;
  },
};

let refreshTimer = null;
let drawsUnderWay = 0;
const hearing = new Set(); // the lists of changes heard by reloads under way

// settled marks the page busy while a redraw is due or under way (the
// body's data-busy attribute), so that scripts driving the page, and its
// tests, can wait for it to hold still.
function settled() {
  document.body.toggleAttribute('data-busy', refreshTimer !== null || drawsUnderWay > 0);
}

// busyWhile runs a redraw with the page marked busy.
async function busyWhile(work) {
  drawsUnderWay++;
  settled();
  try {
    await work();
  } finally {
    drawsUnderWay--;
    settled();
  }
}

function reload() {
  return busyWhile(async () => {
    // Changes heard while the house is read may be newer than what the
    // answer says; they are put into it before it is drawn.
    const heard = [];
    hearing.add(heard);
    try {
      const home = await app.run(() => get('/home'));
      if (!home) return;
      for (const e of heard) merge(home, e);
      app.home = home;
    } finally {
      hearing.delete(heard);
    }
    await draw({ keepPlace: true });
  });
}

let drawing = 0; // the latest draw; an older one that finishes later is dropped

// draw renders the current page. Redrawing the same page keeps focus,
// scroll, and whatever was being typed.
async function draw({ keepPlace = false } = {}) {
  const page = pages[app.path] || pages['/'];
  const seq = ++drawing;
  const y = window.scrollY;
  app.watchers = new Map();
  const node = await page.module.render(app);
  if (seq !== drawing) return;
  // What is focused and typed is read now, not before the page's requests:
  // keys typed while they were under way are kept too.
  const focused = keepPlace && document.activeElement && document.activeElement.id ? document.activeElement.id : null;
  const typed = keepPlace ? typedValues() : {};
  replace(main, node);
  restoreValues(typed);
  document.title = `${page.title} · Bifrost`;
  for (const a of top.querySelectorAll('nav a')) {
    if (a.dataset.page === app.path) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  if (keepPlace) {
    window.scrollTo(0, y);
    const el = focused && document.getElementById(focused);
    if (el) el.focus({ preventScroll: true });
  }
}

// typedValues collects what people typed in the page's text fields and
// chose in its menus.
function typedValues() {
  const out = {};
  for (const el of main.querySelectorAll('input[id]')) {
    if (['text', 'password', 'search'].includes(el.type) && el.value !== el.defaultValue) out[el.id] = el.value;
  }
  // Menus in forms wait for a submit; those outside save at once, and the
  // redrawn page shows what the hub has.
  for (const el of main.querySelectorAll('form select[id]')) {
    if (el.value !== (el.dataset.initial ?? '')) out[el.id] = el.value;
  }
  return out;
}

// restoreValues puts them back in the redrawn page; a choice the new menu
// no longer offers is dropped.
function restoreValues(typed) {
  for (const [id, value] of Object.entries(typed)) {
    const el = document.getElementById(id);
    if (!el) continue;
    if (el.tagName === 'SELECT' && ![...el.options].some((o) => o.value === value)) continue;
    el.value = value;
  }
}

// route draws the page the location names and moves focus to it.
async function route() {
  if (!app.session) return;
  if (location.hash !== '' && !location.hash.startsWith('#/')) return; // e.g. the skip link
  const path = location.hash ? location.hash.slice(1) : '/';
  app.path = pages[path] ? path : '/';
  clearTimeout(refreshTimer); // the new page is drawn from scratch
  refreshTimer = null;
  await busyWhile(() => draw());
  window.scrollTo(0, 0);
  const heading = main.querySelector('h1');
  if (heading) {
    heading.setAttribute('tabindex', '-1');
    heading.focus({ preventScroll: true });
  }
}

// merge puts one device's change into a snapshot of the house and
// returns the device's new view, or null when the snapshot lacks it. A
// whole view (it says whether the device is online) replaces the old one;
// the answer to a write (its new state) updates it.
function merge(home, e) {
  const items = home[stateLists[e.type]] || [];
  const i = items.findIndex((x) => x.id === e.id);
  if (i < 0) return null;
  items[i] = 'online' in e.data ? e.data : { ...items[i], ...e.data };
  return items[i];
}

// onEvent applies one change from the hub: a device's new state is put in
// place; anything that changes the shape of the house redraws the page.
function onEvent(e) {
  const page = (pages[app.path] || pages['/']).module;
  if (page.onEvent && page.onEvent(e, app)) return;
  if (stateLists[e.type] && e.action === 'changed' && e.data && app.home) {
    for (const heard of hearing) heard.push(e);
    const view = merge(app.home, e);
    if (view) {
      for (const w of app.watchers.get(e.id) || []) {
        if (!w.type || w.type === e.type) w.fn(view);
      }
      return;
    }
  }
  if (e.type === 'key' || (e.type === 'scene' && e.action === 'activated')) return; // the devices report their own changes
  if (e.type === 'kiosk' || e.type === 'enrollment') return; // only Settings shows them
  if (e.type === 'automation' && app.path !== '/automations') return; // a rule fired or changed: only its page shows rules
  app.refresh();
}

// Event types the page follows besides those api.js's follow() listens
// for: an EventSource hears only the types it is asked for.
const moreEventTypes = ['automation', 'kiosk', 'enrollment'];

function listenMore(es) {
  for (const t of moreEventTypes) {
    es.addEventListener(t, (msg) => {
      try {
        onEvent(JSON.parse(msg.data));
      } catch (err) {
        console.error('bad event', err);
      }
    });
  }
}

function startEvents() {
  stopEvents();
  let wasOpen = false;
  app.stream = follow(onEvent, async (state) => {
    live.className = `live ${state === 'open' ? 'on' : 'off'}`;
    live.textContent = state === 'open' ? 'Live' : 'Reconnecting…';
    if (state === 'open') {
      if (wasOpen) app.refresh(); // catch up on what happened meanwhile
      wasOpen = true;
    }
    if (state === 'closed') {
      try {
        await get('/session');
        setTimeout(startEvents, 3000);
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) signedOut('Your session has ended. Sign in again.');
        else setTimeout(startEvents, 3000);
      }
    }
  });
  listenMore(app.stream);
}

function stopEvents() {
  if (app.stream) app.stream.close();
  app.stream = null;
}

// signedIn shows the app for a session.
async function signedIn(session) {
  app.session = session;
  setCSRF(session.csrf_token);
  document.getElementById('who').textContent = session.user.username;
  top.hidden = false;
  app.home = await get('/home');
  startEvents();
  if (!location.hash.startsWith('#/')) history.replaceState(null, '', '#/');
  await route();
}

// signedOut goes back to the sign-in page.
function signedOut(message) {
  app.session = null;
  app.home = null;
  setCSRF('');
  stopEvents();
  top.hidden = true;
  showAuth(message);
}

function showAuth(message) {
  document.title = 'Sign in · Bifrost';
  renderAuth(main, { message, onSignedIn: (s) => signedIn(s).catch(fatal) }).catch(fatal);
}

function fatal(e) {
  replace(main, h('div', { class: 'card narrow' },
    h('h1', { text: 'Bifrost cannot start' }),
    h('p', { role: 'alert', text: e.message || String(e) }),
    h('button', { type: 'button', onclick: () => location.reload(), text: 'Try again' })));
}

// The theme: the system's, or light or dark as chosen on this browser.
const themeKey = 'bifrost-theme';
const themeMenu = document.getElementById('theme');
function applyTheme(theme) {
  document.documentElement.style.colorScheme = theme === 'light' || theme === 'dark' ? theme : '';
  themeMenu.value = theme === 'light' || theme === 'dark' ? theme : '';
}
applyTheme(localStorage.getItem(themeKey) || '');
themeMenu.addEventListener('change', () => {
  if (themeMenu.value) localStorage.setItem(themeKey, themeMenu.value);
  else localStorage.removeItem(themeKey);
  applyTheme(themeMenu.value);
});

document.getElementById('logout').addEventListener('click', async () => {
  await app.run(() => post('/logout'));
  signedOut('You are signed out.');
});

window.addEventListener('hashchange', () => { route().catch(fatal); });

async function start() {
  try {
    await signedIn(await get('/session'));
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) showAuth();
    else fatal(e);
  }
}

start();
