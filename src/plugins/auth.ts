import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditUser } from '../db/outbox.js';
import { authenticationRequired, noAccess, unauthorized, wrongTokenType } from '../errors.js';
import { ApiTokenStore } from '../features/api-tokens/store.js';
import { ADMIN_TOKEN_USER_ID } from '../features/api-tokens/service.js';

export interface Principal {
  kind: 'admin-token';
  tokenName: string;
  audit: AuditUser;
}

/** Route-level permission (SPEC §2.2), declared as `config: { permission: 'ADMIN' }`. */
declare module 'fastify' {
  interface FastifyContextConfig {
    permission?: string;
    /** Routes outside /api that need no credential (health, docs, invite join flow). */
    public?: boolean;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
  interface FastifyInstance {
    apiTokens: ApiTokenStore;
    authenticate(request: FastifyRequest): Promise<Principal>;
  }
}

const BEARER = /^bearer\s+/i;

async function authPlugin(app: FastifyInstance): Promise<void> {
  const tokens = new ApiTokenStore(app.database.outbox);
  app.decorate('apiTokens', tokens);
  app.decorateRequest('principal', undefined);

  app.decorate('authenticate', async (request: FastifyRequest): Promise<Principal> => {
    const header = request.headers.authorization;
    if (header === undefined) throw authenticationRequired();
    const secret = header.replace(BEARER, '').trim();
    if (!secret) throw unauthorized();
    const token = await tokens.lookup(secret);
    if (!token) throw unauthorized();
    if (token.type !== 'admin') throw wrongTokenType();
    const principal: Principal = {
      kind: 'admin-token',
      tokenName: token.tokenName,
      audit: { name: token.tokenName, id: ADMIN_TOKEN_USER_ID },
    };
    request.principal = principal;
    return principal;
  });

  // Runs after body parsing, as Unleash does (malformed JSON is a 400 even without credentials),
  // then in SPEC §1.2's order: authentication, permission, content type; schema validation follows.
  app.addHook('preValidation', async (request) => {
    const url = request.routeOptions.url ?? '';
    if (!url.startsWith('/api/')) return;
    const principal = await app.authenticate(request);
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
