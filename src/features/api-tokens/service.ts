import { buildEvents, ConcurrentModificationError, type AuditUser, type Outbox } from '../../db/outbox/index.js';
import { badRequest, invalidOperation, validationError } from '../../errors.js';
import type { EnvironmentLookup } from './sources.js';
import { generateSecret, hashSecret, maskSecret, type ApiTokenDocument, type ApiTokenStore, type TokenType } from './store.js';
import { isDuplicateKey } from '../../db/keys.js';
import type { Static } from 'typebox';
import type { ApiTokenSchema } from './schemas.js';

export const SYSTEM_USER: AuditUser = { name: 'unleash_system_user', id: -1337 };

export interface CreateTokenInput {
  tokenName: string;
  type: string;
  environment?: string;
  projects?: string[];
  project?: string;
  expiresAt?: string;
}

/** The token as Unleash shows it, without the secret (event data, listings). */
/** A token as shown in responses and events, without its secret. */
export type PublicToken = Omit<Static<typeof ApiTokenSchema>, 'secret'>;

export function publicToken(token: ApiTokenDocument): PublicToken {
  return {
    tokenName: token.tokenName,
    environment: token.environment,
    projects: token.projects,
    type: token.type,
    alias: token.alias,
    project: token.projects.join(','),
    createdAt: token.createdAt.toISOString(),
    secure: false,
    ...(token.expiresAt ? { expiresAt: token.expiresAt.toISOString() } : {}),
  };
}

export class ApiTokenService {
  constructor(
    private readonly store: ApiTokenStore,
    private readonly environments: EnvironmentLookup,
    private readonly outbox: Outbox,
  ) {}

  /**
   * Admin tokens from INIT_ADMIN_API_TOKENS exist (by hash) with their `api-token-created` event;
   * an admin token whose secret was removed from the list is revoked (`api-token-deleted`). With
   * an empty list nothing is revoked (that would lock everybody out).
   */
  async ensureAdminTokens(secrets: string[], tokenName: string): Promise<void> {
    const configured = new Set(secrets.map(hashSecret));
    if (configured.size > 0) {
      for (const token of await this.store.list()) {
        if (token.type !== 'admin' || configured.has(token._id)) continue;
        await this.outbox.exclusive(`api-token:${token._id}`, async () => {
          const current = await this.store.get(token._id);
          if (!current) return;
          await this.outbox.remove(this.store.collection, current, buildEvents(SYSTEM_USER, [
            { type: 'api-token-deleted', preData: publicToken(current), project: '*', environment: '*' },
          ])).catch((err: unknown) => {
            if (!(err instanceof ConcurrentModificationError)) throw err; // another instance revoked it
          });
        });
      }
    }
    for (const secret of secrets) {
      const hash = hashSecret(secret);
      if (await this.store.get(hash)) continue;
      const token: ApiTokenDocument = {
        _id: hash, tokenName, type: 'admin', environment: '*', projects: ['*'], alias: null,
        displaySecret: maskSecret(secret), expiresAt: null, createdAt: new Date(),
      };
      const data = {
        projects: ['*'], environment: '*', tokenName, type: 'admin', alias: null, project: '*',
        createdAt: token.createdAt.toISOString(), secure: false,
      };
      try {
        await this.outbox.insert(this.store.collection, token, buildEvents(SYSTEM_USER, [
          { type: 'api-token-created', data, project: '*', environment: '*' },
        ]));
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
  }

  async create(input: CreateTokenInput, audit: AuditUser): Promise<{ token: ApiTokenDocument; secret: string }> {
    const type = input.type.toLowerCase();
    if (type === 'admin') throw validationError('Admin tokens cannot be created through the API');
    if (!['client', 'backend', 'frontend'].includes(type)) {
      throw validationError(`"type" must be one of client, backend, frontend. You provided "${input.type}".`);
    }
    const environment = input.environment ?? 'development';
    if (environment === '*') {
      throw badRequest(type === 'frontend' ? 'Frontend token cannot be scoped to all environments' : 'Client token cannot be scoped to all environments');
    }
    if (!(await this.environments.get(environment))) throw badRequest(`Environment=${environment} does not exist`);
    const projects = input.projects ?? (input.project ? [input.project] : ['*']);
    if (projects.length === 0) throw validationError('"projects" must contain at least 1 items');
    const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
    const secret = generateSecret(projects, environment);
    const token: ApiTokenDocument = {
      _id: hashSecret(secret), tokenName: input.tokenName, type: type as TokenType, environment, projects,
      alias: null, displaySecret: maskSecret(secret), expiresAt, createdAt: new Date(),
    };
    await this.outbox.insert(this.store.collection, token, buildEvents(audit, [
      { type: 'api-token-created', data: publicToken(token), project: token.projects.join(','), environment },
    ]));
    return { token, secret };
  }

  /** Revokes by secret; unknown secrets answer 200 too (docs/rules.md §1.4 S11). */
  async revoke(secret: string, audit: AuditUser): Promise<void> {
    const hash = hashSecret(secret);
    await this.outbox.exclusive(`api-token:${hash}`, async () => {
      const token = await this.store.get(hash);
      if (!token) return;
      if (token.type === 'admin' && (await this.store.list()).filter((t) => t.type === 'admin').length <= 1) {
        throw invalidOperation('The last admin token cannot be revoked: nobody could administer this instance without it.');
      }
      await this.outbox.remove(this.store.collection, token, buildEvents(audit, [
        { type: 'api-token-deleted', preData: publicToken(token), project: token.projects.join(','), environment: token.environment },
      ]));
    });
  }
}
