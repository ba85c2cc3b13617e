import fp from 'fastify-plugin';
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditUser } from '../db/outbox.js';
import { apiTokenRequired, authenticationRequired, crossSiteRequest, noAccess, sessionExpired, unauthorized, wrongTokenType } from '../errors.js';
import type { ApiTokenStore } from '../features/api-tokens/store.js';
import { ADMIN_TOKEN_USER_ID, SESSION_COOKIE } from '../features/shared.js';
import { ADMIN_ROLE_ID, requiredPermission, roleHolds } from '../features/sessions/roles.js';
import type { SessionService } from '../features/sessions/service.js';
import type { UserDocument } from '../features/users/store.js';

export type Principal = AdminPrincipal | SdkPrincipal | SessionPrincipal;

/** A person signed in through /auth/simple/login, holding the permissions of their root role. */
export interface SessionPrincipal {
  kind: 'session';
  user: UserDocument;
  expiresAt: Date;
  audit: AuditUser;
}

/** Root admins see everything, events outside projects included: admin tokens and Admin users. */
export function isRootAdmin(principal: Principal | undefined): boolean {
  return principal?.kind === 'admin-token' || (principal?.kind === 'session' && principal.user.rootRole === ADMIN_ROLE_ID);
}

export interface AdminPrincipal {
  kind: 'admin-token';
  tokenName: string;
  audit: AuditUser;
}

/** A client (alias backend) or frontend token: what it may read is its projects in one environment. */
export interface SdkPrincipal {
  kind: 'client-token' | 'frontend-token';
  tokenName: string;
  /** `['*']` for every project. */
  projects: string[];
  environment: string;
  audit: AuditUser;
}

/** Which token type a route family takes (Unleash 8 is strict: any other type is a 403). */
export type TokenFamily = 'admin' | 'client' | 'frontend';

/** Route-level permission (docs/rules.md §2.2), declared as `config: { permission: 'ADMIN' }`. */
declare module 'fastify' {
  interface FastifyContextConfig {
    permission?: string;
    /** Routes outside /api that need no credential (health, docs, invite join flow). */
    public?: boolean;
    /** The token type the route takes; admin when absent. */
    tokenFamily?: TokenFamily;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
  interface FastifyInstance {
    apiTokens: ApiTokenStore;
    authenticate(request: FastifyRequest, family?: TokenFamily): Promise<Principal>;
    /** Set once the services exist (the auth plugin is registered before them). */
    sessionService?: SessionService;
    /** Refuses a cookie-authenticated change that does not come from this server's own pages. */
    checkSameOrigin(request: FastifyRequest): void;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const BEARER = /^bearer\s+/i;

export interface AuthOptions {
  /** Built with the other stores in src/composition.ts. */
  tokens: ApiTokenStore;
}

async function authPlugin(app: FastifyInstance, { tokens }: AuthOptions): Promise<void> {
  // Tokens are read from the configuration state, so a revocation reaches every instance with
  // the revision (no cache of its own to clear).
  app.decorate('apiTokens', tokens);
  app.decorateRequest('principal', undefined);

  await app.register(cookie);
  app.decorate('sessionService', undefined);

  // CSRF defence for cookie-authenticated requests (besides SameSite=Lax): browsers always send
  // Origin on cross-origin and on non-GET fetches, and cannot forge it. A change is accepted when
  // Origin (or, for old browsers, Referer) is this server as BASE_URL names it or as the Host
  // header reaches it. API-token requests carry no ambient credential and are not checked.
  const baseOrigin = new URL(app.config.baseUrl).origin;
  app.decorate('checkSameOrigin', (request: FastifyRequest) => {
    const origin = request.headers.origin ?? originOf(request.headers.referer);
    const own = `${request.protocol}://${request.headers.host ?? ''}`;
    if (!origin || (origin !== baseOrigin && origin !== own)) throw crossSiteRequest(origin ?? '');
  });

  const sessionPrincipal = async (secret: string): Promise<Principal> => {
    const found = await app.sessionService?.resolve(secret);
    if (!found) throw sessionExpired();
    const { user, expiresAt } = found;
    return { kind: 'session', user, expiresAt, audit: { name: user.username ?? user.email, id: user._id } };
  };

  app.decorate('authenticate', async (request: FastifyRequest, family: TokenFamily = 'admin'): Promise<Principal> => {
    const header = request.headers.authorization;
    if (header === undefined) {
      // Only admin routes take the session cookie. SDK routes answer Unleash's API-token message
      // for a missing and an unknown token alike.
      const secret = family === 'admin' ? request.cookies[SESSION_COOKIE] : undefined;
      if (!secret) throw family === 'admin' ? authenticationRequired() : apiTokenRequired();
      if (!SAFE_METHODS.has(request.method)) app.checkSameOrigin(request);
      const principal = await sessionPrincipal(secret);
      request.principal = principal;
      return principal;
    }
    const secret = header.replace(BEARER, '').trim();
    if (!secret) throw family === 'admin' ? unauthorized() : apiTokenRequired();
    const token = await tokens.lookup(secret);
    if (!token) throw family === 'admin' ? unauthorized() : apiTokenRequired();
    const audit = { name: token.tokenName, id: ADMIN_TOKEN_USER_ID };
    let principal: Principal;
    if (token.type === 'admin') {
      if (family !== 'admin') throw wrongTokenType();
      principal = { kind: 'admin-token', tokenName: token.tokenName, audit };
    } else {
      const kind = token.type === 'frontend' ? 'frontend-token' : 'client-token';
      if (family !== (kind === 'frontend-token' ? 'frontend' : 'client')) throw wrongTokenType();
      principal = { kind, tokenName: token.tokenName, projects: token.projects, environment: token.environment, audit };
    }
    request.principal = principal;
    return principal;
  });

  // Runs after body parsing, as Unleash does (malformed JSON is a 400 even without credentials),
  // then in docs/rules.md §1.2's order: authentication, permission, content type; schema validation follows.
  app.addHook('preValidation', async (request) => {
    const url = request.routeOptions.url ?? '';
    if (!url.startsWith('/api/')) return;
    const principal = await app.authenticate(request, request.routeOptions.config.tokenFamily);
    if (principal.kind === 'session') {
      // Session users hold the permissions of their root role.
      const permission = requiredPermission(request.method, url, request.routeOptions.config.permission);
      if (permission && !roleHolds(principal.user.rootRole, permission)) throw noAccess([permission]);
    } else {
      const permission = request.routeOptions.config.permission;
      // Admin tokens hold every permission; the check stays here for personal access tokens.
      if (permission && principal.kind !== 'admin-token') throw noAccess([permission]);
    }
    app.checkContentType(request);
  });
}

function originOf(referer: string | undefined): string | undefined {
  if (!referer) return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return undefined;
  }
}

export default fp(authPlugin, { name: 'auth', dependencies: ['database', 'errors'] });
