// Signing in, and setting up the first admin with the code from the log.

import { get, post, ApiError } from './api.js';
import { h, replace, field } from './dom.js';

// renderAuth shows the setup page while the hub has no user, the sign-in
// page otherwise.
export async function renderAuth(main, { message, onSignedIn }) {
  const { needed } = await get('/setup');
  if (needed) renderSetup(main, { onSignedIn });
  else renderLogin(main, { message, onSignedIn });
}

function renderLogin(main, { message, onSignedIn, username = '' }) {
  const user = h('input', { name: 'username', autocomplete: 'username', required: true, autocapitalize: 'none', spellcheck: 'false', value: username });
  const pass = h('input', { name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const status = h('p', { class: message ? 'note' : 'note hidden', role: 'status', text: message || '' });
  const error = h('p', { class: 'error', role: 'alert', id: 'login-error' });
  const submit = h('button', { type: 'submit', class: 'primary', text: 'Sign in' });
  const form = h('form', { class: 'card narrow auth', 'aria-labelledby': 'login-title' },
    h('h1', { id: 'login-title', text: 'Sign in to Bifrost' }),
    status,
    field('Username', user),
    field('Password', pass),
    error,
    submit);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    error.textContent = '';
    submit.disabled = true;
    try {
      const session = await post('/login', { username: user.value, password: pass.value });
      onSignedIn(session);
    } catch (e) {
      error.textContent = e instanceof ApiError && e.status === 429
        ? `Too many failed attempts. Try again in ${e.retryAfter || 60} seconds.`
        : e.message;
      pass.value = '';
      pass.focus();
    } finally {
      submit.disabled = false;
    }
  });
  replace(main, form);
  (username ? pass : user).focus();
}

function renderSetup(main, { onSignedIn }) {
  const code = h('input', { name: 'code', autocomplete: 'one-time-code', required: true, autocapitalize: 'none', spellcheck: 'false' });
  const user = h('input', { name: 'username', autocomplete: 'username', required: true, autocapitalize: 'none', spellcheck: 'false' });
  const pass = h('input', { name: 'password', type: 'password', autocomplete: 'new-password', required: true, minlength: 8 });
  const error = h('p', { class: 'error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'primary', text: 'Create admin' });
  const form = h('form', { class: 'card narrow auth', 'aria-labelledby': 'setup-title' },
    h('h1', { id: 'setup-title', text: 'Set up Bifrost' }),
    h('p', { text: 'No one can sign in yet. Enter the one-time setup code that the hub printed in its log, and choose the first admin’s username and password.' }),
    field('Setup code', code, 'Looks like abcd-efgh-ijkl.'),
    field('Username', user),
    field('Password', pass, 'At least 8 characters.'),
    error,
    submit);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    error.textContent = '';
    submit.disabled = true;
    try {
      await post('/setup', { code: code.value, username: user.value, password: pass.value });
      renderLogin(main, { message: 'The admin is ready. Sign in.', onSignedIn, username: user.value });
    } catch (e) {
      error.textContent = e.message;
    } finally {
      submit.disabled = false;
    }
  });
  replace(main, form);
  code.focus();
}
