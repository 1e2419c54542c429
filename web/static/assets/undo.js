// Undo from a toast: after a change made on the dashboard goes through,
// the toast offers to undo it (POST /api/undo undoes the signed-in
// person's last change) and then says what the hub put back. Only the
// latest change can be undone, so a new offer replaces the one before.
// Ctrl+Z (⌘Z) presses the offer on screen, outside text fields.

import { post, ApiError } from './api.js';
import { toast } from './dom.js';

let offer = null; // the toast offering to undo, while it is on screen

// offerUndo shows message (or "Changed <what>") with an Undo button named
// "Undo <what>". The toast never takes the focus; the control that made
// the change gets it back after the undo.
export function offerUndo(app, what, message) {
  if (offer) offer.done();
  const from = document.activeElement;
  offer = toast(message || `Changed ${what}`, 'info', {
    action: { text: 'Undo', label: `Undo ${what}`, keys: 'Control+Z Meta+Z', run: (t) => undo(app, t, what, from) },
  });
  offer.dataset.undo = what;
}

async function undo(app, t, what, from) {
  const b = t.querySelector('.toast-action');
  if (b.disabled) return;
  b.disabled = true;
  const text = t.querySelector('.toast-text');
  text.textContent = `Undoing ${what}…`;
  let res = null;
  try {
    res = await post('/undo');
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      t.done();
      await app.run(() => Promise.reject(e)); // the session ended: back to sign-in
      return;
    }
    said(t, `Not undone: ${e.message}`, true);
    return;
  } finally {
    if (offer === t) offer = null;
    if (from && from.isConnected && t.contains(document.activeElement)) from.focus({ preventScroll: true });
  }
  const failed = (res.result && res.result.failed) || [];
  said(t, [res.message, ...failed.map((f) => `${f.name}: ${f.error}`)].join('; '), failed.length > 0);
}

// said turns the offer into what the undo did.
function said(t, message, error) {
  t.querySelector('.toast-action').remove();
  t.classList.remove('has-action');
  t.classList.toggle('error', error);
  if (error) t.setAttribute('role', 'alert');
  t.querySelector('.toast-text').textContent = message;
  t.restart();
}

document.addEventListener('keydown', (ev) => {
  if (!offer || !offer.isConnected || ev.key.toLowerCase() !== 'z' || ev.shiftKey || ev.altKey || !(ev.ctrlKey || ev.metaKey)) return;
  const el = ev.target;
  if (el && (el.isContentEditable || (el.tagName === 'INPUT' && !['checkbox', 'radio', 'range', 'button'].includes(el.type)) || el.tagName === 'TEXTAREA')) return;
  ev.preventDefault();
  offer.querySelector('.toast-action').click();
});
