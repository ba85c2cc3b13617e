import { buildEvents, ConcurrentModificationError, type AuditUser, type Outbox } from '../../db/outbox/index.js';
import { invalidOperation, notFound, schemaValidationError, validationError } from '../../errors.js';
import type { EnvironmentLookup, ProjectLookup } from './sources.js';
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

/**
 * A new token's fields as Unleash 8.2 echoes them: those its body named (type aside) in the body's
 * order, then the rest (measured on both create routes: `{type, tokenName, expiresAt, environment}`
 * answered tokenName, expiresAt, environment, projects, secret, type…; differential tester seed 3).
 */
export function inBodyOrder<T extends object>(view: T, bodyKeys: readonly string[]): T {
  // The views start tokenName, environment, projects: the ones the body did not name keep that order.
  const keys = new Set([...bodyKeys.filter((key) => ECHOED.includes(key) && key in view), ...Object.keys(view)]);
  return Object.fromEntries([...keys].map((key) => [key, view[key as keyof T]])) as T;
}

const ECHOED = ['tokenName', 'environment', 'expiresAt', 'projects'];

/**
 * A token's type as Unleash 8.2 reads it back from its store: a backend token is `client` everywhere
 * but in its creation's answer and event (its store says Edge must support the type first;
 * measured: a backend token's `api-token-updated` names `client`, differential tester seed 5).
 */
export function readBackType(type: TokenType): TokenType {
  return type === 'backend' ? 'client' : type;
}

/**
 * A token as Unleash 8.2 lists it (`GET /api/admin/api-tokens/:name`, a project's tokens, the
 * `api-token-updated` event), keys in its order. The secret is masked: Vane keeps only its hash.
 * `seenAt` is null: Vane does not record when a token was last used.
 */
export function listedToken(token: ApiTokenDocument) {
  return {
    secret: token.displaySecret,
    tokenName: token.tokenName,
    type: readBackType(token.type),
    project: token.projects.join(','),
    projects: token.projects,
    environment: token.environment,
    expiresAt: token.expiresAt ? token.expiresAt.toISOString() : null,
    createdAt: token.createdAt.toISOString(),
    alias: token.alias,
    seenAt: null,
    secure: false,
  };
}

/** The listed token without its secret, as Unleash's `api-token-updated` records it. */
function eventToken(token: ApiTokenDocument) {
  const { secret: _secret, ...rest } = listedToken(token);
  return rest;
}

/** A new token, its secret (shown once) and the body keys that order its answer. */
export interface CreatedToken {
  token: ApiTokenDocument;
  secret: string;
  bodyKeys: readonly string[];
}

export class ApiTokenService {
  constructor(
    private readonly store: ApiTokenStore,
    private readonly environments: EnvironmentLookup,
    private readonly outbox: Outbox,
    private readonly projects: ProjectLookup,
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

  /** Creates a token; `bodyKeys`: the request body's keys that order its answer and event (`inBodyOrder`). */
  async create(input: CreateTokenInput, audit: AuditUser, bodyKeys: readonly string[] = Object.keys(input)): Promise<CreatedToken> {
    const type = input.type.toLowerCase();
    if (type === 'admin') throw validationError('Admin tokens cannot be created through the API');
    if (!['client', 'backend', 'frontend'].includes(type)) {
      throw validationError(`"type" must be one of client, backend, frontend. You provided "${input.type}".`);
    }
    const environment = input.environment ?? 'development';
    // Both with Unleash's handler-level 400 form (measured on both create routes).
    if (environment === '*') {
      throw validationError(type === 'frontend' ? 'Frontend token cannot be scoped to all environments' : 'Client token cannot be scoped to all environments');
    }
    if (!(await this.environments.get(environment))) throw validationError(`Environment=${environment} does not exist`);
    const projects = input.projects ?? (input.project ? [input.project] : ['*']);
    if (projects.length === 0) throw validationError('"projects" must contain at least 1 items');
    const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
    const secret = generateSecret(projects, environment);
    const token: ApiTokenDocument = {
      _id: hashSecret(secret), tokenName: input.tokenName, type: type as TokenType, environment, projects,
      alias: null, displaySecret: maskSecret(secret), expiresAt, createdAt: new Date(),
    };
    await this.outbox.insert(this.store.collection, token, buildEvents(audit, [
      { type: 'api-token-created', data: inBodyOrder(publicToken(token), bodyKeys), project: token.projects.join(','), environment },
    ]));
    return { token, secret, bodyKeys };
  }

  /**
   * Tokens named `name`; only an admin token's caller sees admin tokens (Unleash 8.2, measured: an
   * Editor asking for `peer-admin` gets none).
   */
  async byName(name: string, callerIsAdminToken: boolean): Promise<ApiTokenDocument[]> {
    return (await this.store.list()).filter((t) => t.tokenName === name && (callerIsAdminToken || t.type !== 'admin'));
  }

  /**
   * Sets a token's expiry, with `api-token-updated` (none when it changes nothing). An unknown
   * secret answers 200 without an event, as Unleash 8.2 does (measured). A past date is taken: the
   * token stops authenticating.
   */
  async updateExpiry(secret: string, expiresAt: Date, audit: AuditUser): Promise<void> {
    const hash = hashSecret(secret);
    await this.outbox.exclusive(`api-token:${hash}`, async () => {
      const token = await this.store.get(hash);
      if (!token) return;
      const next = { ...token, expiresAt };
      // Unleash 8.2 records the updated token as its store returns it, without its projects: `*`
      // in data and in the event's project whatever the scope (measured on a `default` token; its
      // same expiry set again is recorded again, since data then differs from preData).
      const events = buildEvents(audit, [{
        type: 'api-token-updated', data: { ...eventToken(next), project: '*', projects: ['*'] }, preData: eventToken(token), project: '*', environment: token.environment,
      }]);
      if (events.length > 0) await this.outbox.replace(this.store.collection, token, next, events);
    });
  }

  /**
   * The tokens `GET /api/admin/projects/:projectId/api-tokens` lists: an admin token's caller sees
   * every token (Unleash's API admin), anyone else the client and frontend tokens scoped to the
   * project by name (not `*`). 404 `No project found` for an unknown project.
   */
  async projectTokens(projectId: string, callerIsAdminToken: boolean): Promise<ApiTokenDocument[]> {
    await this.requireProject(projectId);
    return this.visibleIn(projectId, callerIsAdminToken);
  }

  /** A token of one project: the body's rules first, then the project (404), then create's. */
  async createForProject(projectId: string, input: CreateTokenInput, audit: AuditUser): Promise<CreatedToken> {
    if (input.tokenName === '') throw schemaValidationError([{ message: '"tokenName" is not allowed to be empty.' }]);
    await this.requireProject(projectId);
    const { tokenName, type, environment, expiresAt } = input;
    // Projects sent here are ignored, and so is their place (recorded: test/fixtures/api-tokens/measured.json).
    const bodyKeys = Object.keys(input).filter((key) => key !== 'projects');
    return await this.create({ tokenName, type, environment, expiresAt, projects: [projectId] }, audit, bodyKeys);
  }

  /**
   * Revokes a token through its project, as Unleash 8.2 answers (measured): among the tokens the
   * caller sees, none with this secret → `not-found` (404), one not scoped to exactly this project
   * (a `*` token, another project's) → `other-project` (400); the project itself is not looked up.
   */
  async revokeInProject(projectId: string, secret: string, callerIsAdminToken: boolean, audit: AuditUser): Promise<'revoked' | 'not-found' | 'other-project'> {
    const hash = hashSecret(secret);
    const token = (await this.visibleIn(projectId, callerIsAdminToken)).find((t) => t._id === hash);
    if (!token) return 'not-found';
    if (token.projects.length !== 1 || token.projects[0] !== projectId) return 'other-project';
    await this.revoke(secret, audit);
    return 'revoked';
  }

  private async visibleIn(projectId: string, callerIsAdminToken: boolean): Promise<ApiTokenDocument[]> {
    const all = await this.store.list();
    return callerIsAdminToken ? all : all.filter((t) => t.type !== 'admin' && t.projects.includes(projectId));
  }

  private async requireProject(projectId: string): Promise<void> {
    if (!(await this.projects.get(projectId))) throw notFound('No project found');
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
      // The stored row without its secret (measured: with `seenAt` and `expiresAt`, null included).
      await this.outbox.remove(this.store.collection, token, buildEvents(audit, [
        { type: 'api-token-deleted', preData: eventToken(token), project: token.projects.join(','), environment: token.environment },
      ]));
    });
  }
}
