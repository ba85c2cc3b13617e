import { api, h, showError } from './common.js';

const params = new URLSearchParams(location.search);
const message = document.getElementById('message');
if (params.get('expired')) message.replaceChildren(h('div', { class: 'notice' }, 'Your session has ended. Sign in again to continue.'));

/** Only a path on this server: never an absolute URL (no open redirect). */
function nextPage() {
  const next = params.get('next') ?? '';
  return next.startsWith('/') && !next.startsWith('//') ? next : '/vane/playground';
}

document.getElementById('login').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const username = form.username.value.trim();
  const password = form.password.value;
  if (!username || !password) {
    showError(message, 'Enter your username (or e-mail) and your password.');
    return;
  }
  const button = form.querySelector('button');
  button.disabled = true;
  message.replaceChildren(h('p', { class: 'loading' }, 'Signing in…'));
  try {
    await api('/auth/simple/login', { method: 'POST', body: { username, password } });
    location.assign(nextPage());
  } catch (err) {
    showError(message, err.status === 401 ? 'That username and password do not match. Check both and try again.' : err);
    button.disabled = false;
    form.password.focus();
  }
});
