// Shared by every page: calls to the API with the session cookie, the header, small DOM helpers.

export class ApiFailure extends Error {
  constructor(status, body) {
    super(body?.message ?? `The server answered ${status}.`);
    this.status = status;
    this.body = body;
  }
}

/** Where a signed-out visitor goes: the login page, coming back here afterwards. */
export function toLogin(expired = false) {
  const next = location.pathname + location.search;
  location.assign(`/vane/login?next=${encodeURIComponent(next)}${expired ? '&expired=1' : ''}`);
}

/** JSON call to Vane. 401 (no or expired session) sends the browser to the login page. */
export async function api(path, { method = 'GET', body } = {}) {
  const init = { method, credentials: 'same-origin', headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const text = await res.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = { message: text }; }
  }
  if (res.status === 401 && !path.startsWith('/auth/')) {
    toLogin(true);
    throw new ApiFailure(401, data);
  }
  if (!res.ok) throw new ApiFailure(res.status, data);
  return data;
}

/** Element builder: h('p', {class: 'x'}, 'text', child). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'text') el.textContent = value;
    // Through the CSSOM: the Content-Security-Policy refuses style attributes written as markup.
    else if (key === 'style') el.style.cssText = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function showError(container, err) {
  container.replaceChildren(h('div', { class: 'error', role: 'alert' }, err instanceof Error ? err.message : String(err)));
}

export const ROLE_NAMES = { 1: 'Admin', 2: 'Editor', 3: 'Viewer' };

export function holds(me, permission) {
  return me.permissions.some((p) => p.permission === 'ADMIN' || p.permission === permission);
}

/** Signed-in user, or a trip to the login page. Draws the header with the pages this user may use. */
export async function signedIn() {
  const me = await api('/api/admin/user');
  const header = document.getElementById('top');
  const link = (href, label) => h('a', { href, 'aria-current': location.pathname === href ? 'page' : undefined }, label);
  const isAdmin = holds(me, 'ADMIN');
  header.className = 'top';
  header.replaceChildren(
    h('a', { class: 'brand', href: '/vane/playground' }, 'Vane'),
    h('nav', { 'aria-label': 'Main' },
      link('/vane/playground', 'Playground'),
      link('/vane/flags', 'Flags'),
      isAdmin && link('/vane/admin/invite-links', 'Invite links'),
      isAdmin && link('/vane/admin/events', 'Event log'),
    ),
    h('span', { id: 'whoami' }, `${me.user.name ?? me.user.username ?? me.user.email} (${me.user.rootRoleName})`),
    h('button', { type: 'button', onclick: signOut }, 'Sign out'),
  );
  return me;
}

async function signOut() {
  await fetch('/logout', { method: 'POST', credentials: 'same-origin' });
  location.assign('/vane/login');
}

export function formatDate(iso) {
  if (!iso) return '';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
