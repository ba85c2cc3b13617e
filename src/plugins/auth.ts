import fp from 'fastify-plugin';
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditUser } from '../db/outbox/index.js';
import {
  apiTokenRequired, asError, authenticationRequired, crossSiteRequest, maintenanceMode, noAccess, sessionExpired, unauthorized,
  wrongTokenType,
} from '../errors.js';
import type { ApiTokenStore } from '../features/api-tokens/store.js';
import { ADMIN_TOKEN_USER_ID, SESSION_COOKIE } from '../features/shared.js';
import { ADMIN_ROLE_ID, ANY_ROLE, requiredPermission, roleHolds } from '../features/sessions/roles.js';
import type { SessionService } from '../features/sessions/service.js';
import { isPatSecret, type PatService } from '../features/personal-access-tokens/service.js';
import type { UserDocument } from '../features/users/read-model.js';

export type Principal = AdminPrincipal | SdkPrincipal | SessionPrincipal;

/** A person signed in through /auth/simple/login, holding the permissions of their root role. */
export interface SessionPrincipal {
  kind: 'session';
  user: UserDocument;
  /** When the session, or the personal access token, expires. */
  expiresAt: Date;
  audit: AuditUser;
  /** The id of the personal access token the person authenticated with (`Authorization: user:…`); absent for a session cookie. */
  pat?: number;
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
    /** The session cookie's secret, parsed from the Cookie header on demand. */
    sessionSecret(request: FastifyRequest): string | undefined;
    /** Refuses a cookie-authenticated change that does not come from this server's own pages. */
    checkSameOrigin(request: FastifyRequest): void;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const BEARER = /^bearer\s+/i;

export interface AuthOptions {
  /** Built with the other stores in src/composition.ts. */
  tokens: ApiTokenStore;
  /** Resolves session cookies (src/composition.ts). */
  sessions: SessionService;
  /** Resolves personal access tokens; without it a `user:…` secret is looked up as an API token. */
  pats?: PatService;
  /** Whether maintenance mode refuses this method and URL (features/maintenance); a map read, asked of every authenticated request. */
  writesRefused?: (method: string, url: string) => boolean;
}

async function authPlugin(app: FastifyInstance, { tokens, sessions, pats, writesRefused = () => false }: AuthOptions): Promise<void> {
  // Tokens are read from the configuration state, so a revocation reaches every instance with
  // the revision (no cache of its own to clear).
  app.decorate('apiTokens', tokens);
  app.decorateRequest('principal', undefined);

  // Cookies are parsed when a route asks for the session (`sessionSecret`), not on every request
  // (`hook: false`): SDK requests never carry one, and the parsing hook was ≈ 2 µs of a 304's CPU.
  await app.register(cookie, { hook: false });
  app.decorate('sessionSecret', (request: FastifyRequest): string | undefined => {
    const header = request.headers.cookie;
    return header ? app.parseCookie(header)[SESSION_COOKIE] : undefined;
  });

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
    const found = await sessions.resolve(secret);
    if (!found) throw sessionExpired();
    const { user, expiresAt } = found;
    return { kind: 'session', user, expiresAt, audit: { name: user.username ?? user.email ?? '', id: user._id } };
  };

  /**
   * The principal of an API token, without a promise: every SDK request authenticates, and token
   * look-ups are map reads in the configuration state. Throws the 401/403 of docs/rules.md §2.
   */
  const tokenPrincipal = (header: string, family: TokenFamily): Principal => {
    const secret = header.replace(BEARER, '').trim();
    if (!secret) throw family === 'admin' ? unauthorized() : apiTokenRequired();
    const token = tokens.lookup(secret);
    if (!token) throw family === 'admin' ? unauthorized() : apiTokenRequired();
    const audit = { name: token.tokenName, id: ADMIN_TOKEN_USER_ID };
    if (token.type === 'admin') {
      if (family !== 'admin') throw wrongTokenType();
      return { kind: 'admin-token', tokenName: token.tokenName, audit };
    }
    const kind = token.type === 'frontend' ? 'frontend-token' : 'client-token';
    if (family !== (kind === 'frontend-token' ? 'frontend' : 'client')) throw wrongTokenType();
    return { kind, tokenName: token.tokenName, projects: token.projects, environment: token.environment, audit };
  };

  /**
   * The person a personal access token belongs to, with their root role's permissions. A secret
   * that is no PAT is then looked up as an API token (a project named `user` makes `user:<env>.…`
   * ones). On an SDK route a PAT is the wrong token type, as in Unleash (403, measured).
   */
  const patPrincipal = async (secret: string, header: string, family: TokenFamily): Promise<Principal> => {
    const holder = pats ? await pats.authenticate(secret) : null;
    if (!holder) return tokenPrincipal(header, family);
    if (family !== 'admin') throw wrongTokenType();
    const { user, pat } = holder;
    return { kind: 'session', user, expiresAt: pat.expiresAt, audit: { name: user.username ?? user.email ?? '', id: user._id }, pat: pat._id };
  };

  /** The PAT secret an Authorization header may carry (`user:…`, with or without `Bearer`). */
  const patSecretOf = (header: string): string | undefined => {
    if (!pats || !header.includes('user:')) return undefined;
    const secret = header.replace(BEARER, '').trim();
    return isPatSecret(secret) ? secret : undefined;
  };

  /** Only admin routes take the session cookie; SDK routes answer Unleash's API-token message. */
  const cookieSecret = (request: FastifyRequest, family: TokenFamily): string => {
    const secret = family === 'admin' ? app.sessionSecret(request) : undefined;
    if (!secret) throw family === 'admin' ? authenticationRequired() : apiTokenRequired();
    if (!SAFE_METHODS.has(request.method)) app.checkSameOrigin(request);
    return secret;
  };

  /**
   * The request's principal, set on it: at once for an API token (a map read in the configuration
   * state), a promise only for a session, whose look-up may read the database.
   */
  const identify = (request: FastifyRequest, family: TokenFamily): Principal | Promise<Principal> => {
    const header = request.headers.authorization;
    if (header !== undefined) {
      const pat = patSecretOf(header);
      if (pat !== undefined) return patPrincipal(pat, header, family).then((principal) => (request.principal = principal));
      return (request.principal = tokenPrincipal(header, family));
    }
    return sessionPrincipal(cookieSecret(request, family)).then((principal) => (request.principal = principal));
  };

  app.decorate('authenticate', async (request: FastifyRequest, family: TokenFamily = 'admin'): Promise<Principal> => await identify(request, family));

  /** docs/rules.md §1.2 after authentication: the route's permission, then the content type. */
  const authorize = (request: FastifyRequest, principal: Principal, url: string): void => {
    if (principal.kind === 'session') {
      // Session users hold the permissions of their root role.
      const permission = requiredPermission(request.method, url, request.routeOptions.config.permission);
      if (permission && !roleHolds(principal.user.rootRole, permission)) throw noAccess([permission]);
    } else {
      const permission = request.routeOptions.config.permission;
      // Admin tokens hold every permission; the check stays here for personal access tokens.
      if (permission && permission !== ANY_ROLE && principal.kind !== 'admin-token') throw noAccess([permission]);
    }
    app.checkContentType(request);
  };

  // Runs after body parsing, as Unleash does (malformed JSON is a 400 even without credentials),
  // then in docs/rules.md §1.2's order: authentication, maintenance mode (Unleash's middleware runs
  // before any route's permission: a Viewer's write answered 503, not 403), permission, content
  // type; schema validation follows. Callback style, and a token is checked without a promise (only a session or a
  // personal access token waits for its look-up): no promise per request, which an async hook costs even when it does not wait.
  app.addHook('preValidation', (request, _reply, done) => {
    const url = request.routeOptions.url ?? '';
    if (!url.startsWith('/api/')) return done();
    const authorized = (principal: Principal) => {
      if (writesRefused(request.method, request.url)) return done(maintenanceMode());
      try {
        authorize(request, principal, url);
      } catch (err) {
        return done(asError(err));
      }
      done();
    };
    let principal: Principal | Promise<Principal>;
    try {
      principal = identify(request, request.routeOptions.config.tokenFamily ?? 'admin');
    } catch (err) {
      return done(asError(err));
    }
    if (principal instanceof Promise) principal.then(authorized, (err: unknown) => done(asError(err)));
    else authorized(principal);
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
