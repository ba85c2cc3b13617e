import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditUser } from '../db/outbox.js';
import { apiTokenRequired, authenticationRequired, noAccess, unauthorized, wrongTokenType } from '../errors.js';
import { ApiTokenStore } from '../features/api-tokens/store.js';
import { ADMIN_TOKEN_USER_ID } from '../features/api-tokens/service.js';

export type Principal = AdminPrincipal | SdkPrincipal;

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

/** Route-level permission (SPEC §2.2), declared as `config: { permission: 'ADMIN' }`. */
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
  }
}

const BEARER = /^bearer\s+/i;

async function authPlugin(app: FastifyInstance): Promise<void> {
  const tokens = new ApiTokenStore(app.database.outbox);
  // SDK tokens live long in SDKs; a revocation must reach every instance within the revision
  // interval, not the cache's 30 s. Costs one `_id` read per token per revision.
  app.database.outbox.onCommitted(() => tokens.clear());
  app.decorate('apiTokens', tokens);
  app.decorateRequest('principal', undefined);

  app.decorate('authenticate', async (request: FastifyRequest, family: TokenFamily = 'admin'): Promise<Principal> => {
    const header = request.headers.authorization;
    // SDK routes answer Unleash's API-token message for a missing and an unknown token alike.
    if (header === undefined) throw family === 'admin' ? authenticationRequired() : apiTokenRequired();
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
  // then in SPEC §1.2's order: authentication, permission, content type; schema validation follows.
  app.addHook('preValidation', async (request) => {
    const url = request.routeOptions.url ?? '';
    if (!url.startsWith('/api/')) return;
    const principal = await app.authenticate(request, request.routeOptions.config.tokenFamily);
    const permission = request.routeOptions.config.permission;
    // Admin tokens hold every permission; the check stays here for personal access tokens.
    if (permission && principal.kind !== 'admin-token') throw noAccess([permission]);
    app.checkContentType(request);
  });
}

/** The audit identity of the caller, for events. */
export function auditOf(request: FastifyRequest): AuditUser {
  if (!request.principal) throw unauthorized();
  return request.principal.audit;
}

export default fp(authPlugin, { name: 'auth', dependencies: ['database', 'errors'] });
