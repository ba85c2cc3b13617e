import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Collection } from 'mongodb';
import type { Outbox, StoredDocument } from '../../db/outbox/index.js';
import type { CollectionMirror, ConfigState } from '../../db/state.js';

/** What the configuration state holds of the collection (src/db/state.ts). */
declare module '../../db/state.js' {
  interface HeldDocuments {
    api_tokens: ApiTokenDocument;
  }
}

export type TokenType = 'admin' | 'client' | 'backend' | 'frontend';

export interface ApiTokenDocument extends StoredDocument {
  /** SHA-256 of the secret, hex. The plain secret is never stored. */
  _id: string;
  tokenName: string;
  type: TokenType;
  environment: string;
  projects: string[];
  alias: string | null;
  /** Secret with its random part masked, for listings (`default:development.ab12…`). */
  displaySecret: string;
  expiresAt: Date | null;
  createdAt: Date;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** `<project>:<environment>.<56 hex>`; `*` for all projects, `[]` for several (docs/rules.md §2.1). */
export function generateSecret(projects: string[], environment: string): string {
  const scope = projects.length > 1 ? '[]' : projects[0] ?? '*';
  return `${scope}:${environment}.${randomBytes(28).toString('hex')}`;
}

export function maskSecret(secret: string): string {
  const dot = secret.indexOf('.');
  return dot < 0 ? '****' : `${secret.slice(0, dot + 1)}${secret.slice(dot + 1, dot + 5)}…`;
}

/**
 * Tokens, read from the configuration state (src/db/state.ts): every admin request authenticates,
 * and a map look-up costs nothing next to a database round trip. A revocation on any instance
 * reaches every other one with the revision (REVISION_POLL_MS), not after a cache's lifetime.
 */
export class ApiTokenStore {
  readonly collection: Collection<ApiTokenDocument>;
  private readonly mirror: CollectionMirror<ApiTokenDocument>;

  constructor(outbox: Outbox) {
    this.collection = outbox.collection<ApiTokenDocument>('api_tokens');
    this.mirror = outbox.state.mirror('api_tokens');
    this.state = outbox.state;
  }

  private readonly state: ConfigState;
  private knownSecrets = { version: -1, secrets: new Map<string, ApiTokenDocument>() };

  /** The live token a secret belongs to, or null (unknown, revoked or expired). */
  lookup(secret: string): ApiTokenDocument | null {
    const token = this.verified(secret);
    if (!token) return null;
    if (token.expiresAt && token.expiresAt.getTime() <= Date.now()) return null;
    return token;
  }

  /**
   * The token a secret belongs to. Secrets already verified since the tokens last changed are
   * remembered (dropped on the collection's next change, so a revocation still takes effect at
   * once): every SDK request authenticates, and hashing the secret was ≈ 3 % of a frontend API
   * request's CPU. Kept per version of the tokens, not of the whole state: an admin client
   * writing one change after another would hash its secret on every request (0.24 s of the
   * 2 000-flag replay's main thread). Unknown secrets are never remembered, and at most
   * 10 000 known ones.
   */
  private verified(secret: string): ApiTokenDocument | undefined {
    if (this.knownSecrets.version !== this.mirror.version) this.knownSecrets = { version: this.mirror.version, secrets: new Map() };
    const known = this.knownSecrets.secrets;
    const remembered = known.get(secret);
    if (remembered) return remembered;
    const hash = hashSecret(secret);
    const token = this.mirror.get(hash);
    if (!token) return undefined;
    // The look-up is by hash already; compare the full digest in constant time anyway so no
    // branch depends on how much of a guessed secret was right.
    if (!timingSafeEqual(Buffer.from(token._id, 'hex'), Buffer.from(hash, 'hex'))) return undefined;
    if (known.size < 10_000) known.set(secret, token);
    return token;
  }

  async get(hash: string): Promise<ApiTokenDocument | null> {
    return this.mirror.get(hash) ?? null;
  }

  async list(): Promise<ApiTokenDocument[]> {
    return this.state.derived('api-tokens:list', () =>
      [...this.mirror.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()));
  }
}
