import { api, formatDate, h, holds, showError, signedIn } from './common.js';

const pageMessage = document.getElementById('page-message');
const list = document.getElementById('links');
const form = document.getElementById('create');
const createMessage = document.getElementById('create-message');
const TOKENS = '/api/admin/invite-link/tokens';

function copyButton(url, name) {
  const button = h('button', { type: 'button', 'aria-label': `Copy the URL of ${name}` }, 'Copy URL');
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(url);
      button.textContent = 'Copied';
    } catch {
      // No clipboard permission (plain http on another host): select the text for Ctrl+C instead.
      const input = button.parentElement.querySelector('input');
      input.focus();
      input.select();
      button.textContent = 'Press Ctrl+C';
    }
  });
  return button;
}

async function toggle(link) {
  try {
    await api(`${TOKENS}/${encodeURIComponent(link.secret)}`, { method: 'PUT', body: { enabled: !link.enabled } });
    await drawLinks();
  } catch (err) {
    showError(createMessage, err);
  }
}

async function drawLinks() {
  try {
    const { tokens } = await api(TOKENS);
    if (tokens.length === 0) return list.replaceChildren(h('p', {}, 'No invite links yet.'));
    list.replaceChildren(h('table', { class: 'plain' },
      h('caption', { class: 'sr-only' }, 'Invite links'),
      h('thead', {}, h('tr', {}, ['Name', 'URL', 'Expires', 'State', 'Joined', 'Created by', ''].map((t) => h('th', {}, t)))),
      h('tbody', {}, tokens.map((link) => h('tr', {},
        h('td', {}, link.name),
        h('td', {}, h('div', { class: 'row' },
          h('input', { type: 'text', readonly: true, value: link.url, 'aria-label': `URL of ${link.name}`, class: 'mono', style: 'width: 22em' }),
          copyButton(link.url, link.name))),
        h('td', {}, formatDate(link.expiresAt)),
        h('td', {}, link.enabled ? h('span', { class: 'badge on' }, 'active') : h('span', { class: 'badge off' }, 'disabled or expired')),
        h('td', {}, String(link.users.length)),
        h('td', {}, link.createdBy),
        h('td', {}, h('button', { type: 'button', onclick: () => toggle(link) }, link.enabled ? 'Disable' : 'Enable')))))));
  } catch (err) {
    showError(list, err);
  }
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const name = form.querySelector('#link-name').value.trim();
  const day = form.querySelector('#link-expiry').value;
  if (!name || !day) return showError(createMessage, 'Enter a name and an expiry date.');
  try {
    const link = await api(TOKENS, { method: 'POST', body: { name, expiresAt: new Date(`${day}T23:59:59Z`).toISOString() } });
    createMessage.replaceChildren(h('div', { class: 'success' }, `Created. Send this URL: `, h('span', { class: 'mono' }, link.url)));
    form.reset();
    setDefaultExpiry();
    await drawLinks();
  } catch (err) {
    showError(createMessage, err);
  }
});

function setDefaultExpiry() {
  form.querySelector('#link-expiry').value = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
}

async function start() {
  try {
    const me = await signedIn();
    if (!holds(me, 'ADMIN')) {
      pageMessage.replaceChildren(h('div', { class: 'notice' }, `Invite links are managed by Admins; your role is ${me.user.rootRoleName}.`));
      return;
    }
  } catch (err) {
    if (err.status !== 401) showError(pageMessage, err);
    return;
  }
  pageMessage.replaceChildren();
  document.getElementById('content').hidden = false;
  setDefaultExpiry();
  await drawLinks();
}

start();
