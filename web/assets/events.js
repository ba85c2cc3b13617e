import { api, formatDate, h, holds, showError, signedIn } from './common.js';

// Seed endpoint 2's filters and paging, kept in the address bar like the playground's query.
const PAGE = 50;
const pageMessage = document.getElementById('page-message');
const form = document.getElementById('filters');
const out = document.getElementById('events');
const FILTERS = ['type', 'feature', 'project', 'environment'];
const params = new URLSearchParams(location.search);
let offset = Number(params.get('offset') ?? 0) || 0;

function filterValue(text) {
  const values = text.split(',').map((v) => v.trim()).filter(Boolean);
  if (values.length === 0) return undefined;
  return values.length === 1 ? `IS:${values[0]}` : `IS_ANY_OF:${values.join(',')}`;
}

async function search() {
  const query = new URLSearchParams();
  const state = new URLSearchParams();
  const text = form.querySelector('#f-query').value.trim();
  if (text) { query.set('query', text); state.set('query', text); }
  for (const name of FILTERS) {
    const raw = form.querySelector(`#f-${name}`).value;
    const value = filterValue(raw);
    if (value) { query.set(name, value); state.set(name, raw); }
  }
  for (const name of ['from', 'to']) {
    const day = form.querySelector(`#f-${name}`).value;
    if (day) { query.set(name, `IS:${day}`); state.set(name, day); }
  }
  query.set('offset', String(offset));
  query.set('limit', String(PAGE));
  if (offset) state.set('offset', String(offset));
  history.replaceState(null, '', `/vane/admin/events${state.size ? `?${state}` : ''}`);
  out.setAttribute('aria-busy', 'true');
  out.replaceChildren(h('p', { class: 'loading' }, 'Searching…'));
  try {
    const { events, total } = await api(`/api/admin/search/events?${query}`);
    const last = Math.min(offset + events.length, total);
    const pager = h('div', { class: 'row' },
      h('button', { type: 'button', disabled: offset === 0, onclick: () => { offset = Math.max(0, offset - PAGE); search(); } }, 'Newer'),
      h('span', { class: 'counts' }, total ? `Events ${offset + 1}–${last} of ${total}` : 'No events match.'),
      h('button', { type: 'button', disabled: last >= total, onclick: () => { offset += PAGE; search(); } }, 'Older'));
    out.replaceChildren(pager, h('table', { class: 'plain' },
      h('caption', { class: 'sr-only' }, 'Events, newest first'),
      h('thead', {}, h('tr', {}, ['#', 'When', 'Type', 'By', 'Flag', 'Project', 'Environment', 'Summary'].map((t) => h('th', {}, t)))),
      h('tbody', {}, events.map((e) => h('tr', {},
        h('td', {}, String(e.id)), h('td', {}, formatDate(e.createdAt)), h('td', {}, e.type), h('td', {}, e.createdBy),
        h('td', {}, e.featureName ?? ''), h('td', {}, e.project ?? ''), h('td', {}, e.environment ?? ''),
        h('td', {}, e.label ?? e.summary ?? ''))))));
  } catch (err) {
    showError(out, err);
  } finally {
    out.removeAttribute('aria-busy');
  }
}

async function start() {
  try {
    const me = await signedIn();
    if (!holds(me, 'ADMIN')) {
      pageMessage.replaceChildren(h('div', { class: 'notice' }, `The event log page is for Admins; your role is ${me.user.rootRoleName}.`));
      return;
    }
  } catch (err) {
    if (err.status !== 401) showError(pageMessage, err);
    return;
  }
  pageMessage.replaceChildren();
  form.querySelector('#f-query').value = params.get('query') ?? '';
  for (const name of [...FILTERS, 'from', 'to']) form.querySelector(`#f-${name}`).value = params.get(name) ?? '';
  form.hidden = false;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    offset = 0;
    search();
  });
  await search();
}

start();
