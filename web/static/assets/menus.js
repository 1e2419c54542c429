// Menus and confirmations shared by the pages: a "⋯" button that opens a
// menu of actions, and a modal dialog that asks before something that
// cannot be undone.

import { h, busy } from './dom.js';

// openMenu is the "⋯" menu open now: { key, wrap, close }. A redraw of the
// page (any change in the house causes one) draws it open again, and
// app.js puts the focus back on the item that had it.
let openMenu = null;

// A press anywhere but in the open menu or its button closes it.
document.addEventListener('pointerdown', (ev) => {
  if (openMenu && !openMenu.wrap.contains(ev.target)) openMenu.close(false);
}, true);

// menu is a "⋯" button (id, named label) that opens a menu of items
// ({ id, text, danger, act(button) }): arrow keys move through it, Escape
// closes it and goes back to the button, Tab or a click elsewhere closes
// it. The menu exists only while it is open; key tells a redraw which
// menu was open.
export function menu(key, id, label, items) {
  const listID = `${id}-menu`;
  const button = h('button', {
    type: 'button', class: 'menu-button', id, text: '⋯',
    'aria-haspopup': 'menu', 'aria-expanded': 'false', 'aria-controls': listID, 'aria-label': label,
  });
  const wrap = h('div', { class: 'menu-wrap' }, button);
  let list = null;
  const entries = () => (list ? [...list.querySelectorAll('[role="menuitem"]')] : []);
  const close = (refocus) => {
    if (!list) return;
    const gone = list;
    list = null;
    if (openMenu && openMenu.wrap === wrap) openMenu = null;
    gone.remove();
    button.setAttribute('aria-expanded', 'false');
    if (refocus) button.focus();
  };
  const move = (i) => {
    const all = entries();
    all[(i + all.length) % all.length].focus();
  };
  const open = (focus) => {
    if (openMenu) openMenu.close(false);
    list = h('div', { class: 'menu', role: 'menu', id: listID, 'aria-labelledby': button.id },
      items.map((it) => h('button', {
        type: 'button', role: 'menuitem', tabindex: '-1', id: it.id, class: it.danger ? 'danger' : null, text: it.text,
        onclick: () => { close(false); it.act(button); },
      })));
    list.addEventListener('keydown', (ev) => {
      const all = entries();
      const here = all.indexOf(document.activeElement);
      const keys = {
        ArrowDown: () => move(here + 1), ArrowUp: () => move(here - 1), Home: () => move(0), End: () => move(all.length - 1),
        Escape: () => close(true),
      };
      if (keys[ev.key]) {
        ev.preventDefault();
        ev.stopPropagation();
        keys[ev.key]();
      } else if (ev.key === 'Tab') {
        close(false);
      }
    });
    list.addEventListener('focusout', (ev) => {
      if (list && ev.relatedTarget && !wrap.contains(ev.relatedTarget)) close(false);
    });
    wrap.append(list);
    button.setAttribute('aria-expanded', 'true');
    openMenu = { key, wrap, close };
    if (focus === 'first') move(0);
    if (focus === 'last') move(-1);
  };
  button.addEventListener('click', () => (list ? close(true) : open('first')));
  button.addEventListener('keydown', (ev) => {
    if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      ev.preventDefault();
      if (!list) open(ev.key === 'ArrowUp' ? 'last' : 'first');
    } else if (ev.key === 'Escape' && list) {
      ev.preventDefault();
      close(true);
    }
  });
  if (openMenu && openMenu.key === key) open(null); // open before the redraw
  return { wrap, button };
}

// confirmAction asks, in a modal dialog, before an action that cannot be undone.
// id prefixes the dialog's element ids (id-dialog, id-title, id-what,
// id-cancel, id-confirm); paragraphs say what will happen; act does it and
// answers whether it was done (the dialog stays open, for another try,
// when it was not). Closed without acting, the focus goes back to opener
// (found anew by its id, since the page may have been redrawn); after
// acting, to the page's heading.
export function confirmAction({ id, title, paragraphs, confirmText, act, opener, data = {} }) {
  const cancel = h('button', { type: 'button', class: 'quiet', id: `${id}-cancel`, text: 'Cancel', autofocus: true });
  const yes = h('button', { type: 'submit', class: 'danger', id: `${id}-confirm`, text: confirmText });
  const form = h('form', { method: 'dialog' },
    h('h2', { id: `${id}-title`, text: title }),
    h('div', { id: `${id}-what` }, paragraphs.map((text) => h('p', { text }))),
    h('div', { class: 'row buttons dialog-buttons' }, cancel, yes));
  const dialog = h('dialog', {
    class: 'card confirm-dialog', id: `${id}-dialog`, 'aria-labelledby': `${id}-title`, 'aria-describedby': `${id}-what`, ...data,
  }, form);
  let done = false;
  cancel.addEventListener('click', () => dialog.close());
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!await busy(yes, act)) return;
    done = true;
    dialog.close();
    const heading = document.querySelector('main h1');
    if (heading) {
      heading.setAttribute('tabindex', '-1');
      heading.focus();
    }
  });
  dialog.addEventListener('close', () => {
    dialog.remove();
    if (!done && opener) (document.getElementById(opener.id) || opener).focus();
  });
  document.body.append(dialog);
  dialog.showModal();
}
