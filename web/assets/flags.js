import { api, formatDate, h, holds, showError, signedIn } from './common.js';

const pageMessage = document.getElementById('page-message');
const select = document.getElementById('project');
const list = document.getElementById('flags');
const createForm = document.getElementById('create');
const createMessage = document.getElementById('create-message');

async function drawFlags() {
  list.replaceChildren(h('p', { class: 'loading' }, 'Loading flags…'));
  try {
    const { features } = await api(`/api/admin/projects/${encodeURIComponent(select.value)}/features`);
    if (features.length === 0) return list.replaceChildren(h('p', {}, 'This project has no flags yet.'));
    list.replaceChildren(h('table', { class: 'plain' },
      h('caption', { class: 'sr-only' }, `Flags of ${select.value}`),
      h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Type'), h('th', {}, 'Environments on'), h('th', {}, 'Created'))),
      h('tbody', {}, features.map((f) => h('tr', {},
        h('td', {}, f.name), h('td', {}, f.type ?? ''),
        h('td', {}, (f.environments ?? []).filter((e) => e.enabled).map((e) => e.name).join(', ') || 'none'),
        h('td', {}, formatDate(f.createdAt)))))));
  } catch (err) {
    showError(list, err);
  }
}

async function start() {
  let me;
  try {
    me = await signedIn();
    const { projects } = await api('/api/admin/projects');
    select.replaceChildren(...projects.map((p) => h('option', { value: p.id }, p.name ?? p.id)));
  } catch (err) {
    if (err.status !== 401) showError(pageMessage, err);
    return;
  }
  pageMessage.replaceChildren();
  document.getElementById('content').hidden = false;
  if (!holds(me, 'CREATE_FEATURE')) {
    // The API would answer 403 NoAccessError; the page says so before anyone tries.
    document.getElementById('create-permission').replaceChildren(h('div', { class: 'notice', id: 'no-create' },
      `You cannot create flags: your role is ${me.user.rootRoleName}, and creating a flag needs the CREATE_FEATURE permission, which Editors and Admins have.`));
    for (const el of createForm.elements) el.disabled = true;
  }
  select.addEventListener('change', drawFlags);
  await drawFlags();
}

createForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  const name = createForm.querySelector('#flag-name').value.trim();
  const description = createForm.querySelector('#flag-description').value.trim();
  if (!name) return showError(createMessage, 'Enter a name for the flag.');
  try {
    await api(`/api/admin/projects/${encodeURIComponent(select.value)}/features`, {
      method: 'POST', body: { name, ...(description ? { description } : {}) },
    });
    createMessage.replaceChildren(h('div', { class: 'success' }, `Flag "${name}" created.`));
    createForm.reset();
    await drawFlags();
  } catch (err) {
    showError(createMessage, err);
  }
});

start();
