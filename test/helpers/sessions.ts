/** Signed-in people of each root role, for the permission checks of route tests. */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { UserDocument } from '../../src/features/users/read-model.js';
import { JSON_ADMIN } from './app.js';
import { hashPassword } from '../../src/features/users/password.js';

type App = FastifyInstance;

const JSON_ONLY = { 'content-type': 'application/json' };
export const STRONG = 'Correct-Horse-9';
/** The origin a cookie-authenticated change must come from (BASE_URL of the tests). */
export const ORIGIN = 'http://localhost:4242';

export function sessionCookie(res: LightMyRequestResponse): string {
  const header = res.headers['set-cookie'];
  const line = (Array.isArray(header) ? header : [header ?? '']).find((c) => c.startsWith('vane-session='));
  if (!line) throw new Error(`no session cookie in ${res.statusCode} ${res.body}`);
  return line.split(';')[0]!;
}

export async function login(app: App, username: string, password: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/auth/simple/login', headers: JSON_ONLY, payload: { username, password } });
  if (res.statusCode !== 200) throw new Error(`login answered ${res.statusCode}: ${res.body}`);
  return sessionCookie(res);
}

/** A user with the given root role (invite-link joiners are Viewers; the role is then set in the database). */
export async function userWithRole(app: App, username: string, rootRole: number): Promise<number> {
  const link = await app.inject({
    method: 'POST', url: '/api/admin/invite-link/tokens', headers: JSON_ADMIN,
    payload: { name: `for ${username}`, expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString() },
  });
  const res = await app.inject({
    method: 'POST', url: `/invite/${link.json().secret}/signup`, headers: JSON_ONLY,
    payload: { name: username, email: `${username}@example.com`, username, password: STRONG },
  });
  if (res.statusCode !== 201) throw new Error(`signup answered ${res.statusCode}: ${res.body}`);
  const id = res.json().id as number;
  if (rootRole !== 3) await changeUser(app, id, (user) => ({ ...user, rootRole }));
  return id;
}

/**
 * Changes (null: deletes) a stored user as a write of this instance would (there is no API for
 * either): through the outbox, so the configuration state holds the result.
 */
export async function changeUser(app: App, id: number, change: (user: UserDocument) => UserDocument | null): Promise<void> {
  const outbox = app.database.outbox;
  const users = outbox.collection<UserDocument>('users');
  const current = outbox.state.mirror('users').get(id);
  if (!current) throw new Error(`no user ${id}`);
  const next = change(current);
  if (next) await outbox.replace(users, current, next, []);
  else await outbox.remove(users, current, []);
}

/** Cookies of a Viewer and an Editor (named `viewer` and `editor`). */
export async function roleCookies(app: App): Promise<{ viewer: string; editor: string }> {
  await userWithRole(app, 'viewer', 3);
  await userWithRole(app, 'editor', 2);
  return { viewer: await login(app, 'viewer', STRONG), editor: await login(app, 'editor', STRONG) };
}

/** Headers of a cookie-authenticated change (JSON body, this server's origin). */
export const asPerson = (cookie: string) => ({ cookie, origin: ORIGIN, 'content-type': 'application/json' });

/**
 * The first admin as Unleash 8.2 makes it (username `admin`, no name, no e-mail, id 1, no event),
 * so that recorded answers listing the users compare equal. Vane's own INIT_ADMIN_USER admin has
 * a name and an e-mail (docs/rules.md D17).
 */
export async function unleashAdmin(app: App, password: string): Promise<void> {
  const outbox = app.database.outbox;
  const admin: UserDocument = {
    _id: 1, name: null, email: null, username: 'admin', usernameKey: 'u:admin', imageUrl: null, rootRole: 1, seenAt: null,
    loginAttempts: 0, emailSent: false, accountType: 'User', createdAt: new Date(), passwordHash: await hashPassword(password),
  };
  await outbox.insert(outbox.collection<UserDocument>('users'), admin, []);
}
