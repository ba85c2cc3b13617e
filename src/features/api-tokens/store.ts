import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Collection } from 'mongodb';
import { LIVE, type Outbox, type StoredDocument } from '../../db/outbox.js';

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

/** `<project>:<environment>.<56 hex>`; `*` for all projects, `[]` for several (SPEC §2.1). */
export function generateSecret(projects: string[], environment: string): string {
  const scope = projects.length > 1 ? '[]' : projects[0] ?? '*';
  return `${scope}:${environment}.${randomBytes(28).toString('hex')}`;
}

export function maskSecret(secret: string): string {
  const dot = secret.indexOf('.');
  return dot < 0 ? '****' : `${secret.slice(0, dot + 1)}${secret.slice(dot + 1, dot + 5)}…`;
}

interface CacheEntry {
  token: ApiTokenDocument | null;
  until: number;
}

/**
 * Token look-ups are cached: every admin request authenticates, and a database round trip per
 * request would cost more than the rest of a typical admin call. Positive entries live 30 s,
 * negative ones 5 s (so a token created on another instance works within 5 s). A revoke on this
 * instance evicts at once; another instance honours it within 30 s.
 */
const POSITIVE_TTL_MS = 30_000;
const NEGATIVE_TTL_MS = 5_000;
const CACHE_LIMIT = 10_000;

export class ApiTokenStore {
  readonly collection: Collection<ApiTokenDocument>;
  private readonly cache = new Map<string, CacheEntry>();

  constructor(private readonly outbox: Outbox) {
    this.collection = outbox.collection<ApiTokenDocument>('api_tokens');
  }

  async lookup(secret: string): Promise<ApiTokenDocument | null> {
    const hash = hashSecret(secret);
    const now = Date.now();
    let entry = this.cache.get(hash);
    if (!entry || entry.until < now) {
      const token = await this.collection.findOne({ _id: hash, ...LIVE });
      entry = { token, until: now + (token ? POSITIVE_TTL_MS : NEGATIVE_TTL_MS) };
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(hash, entry);
    }
    const token = entry.token;
    if (!token) return null;
    // The look-up is by hash already; compare the full digest in constant time anyway so no
    // branch depends on how much of a guessed secret was right.
    if (!timingSafeEqual(Buffer.from(token._id, 'hex'), Buffer.from(hash, 'hex'))) return null;
    if (token.expiresAt && token.expiresAt.getTime() <= now) return null;
    return token;
  }

  evict(hash: string): void {
    this.cache.delete(hash);
  }

  /** Forgets every cached look-up (on each revision: a revoke elsewhere is honoured within REVISION_POLL_MS). */
  clear(): void {
    this.cache.clear();
  }

  async get(hash: string): Promise<ApiTokenDocument | null> {
    return await this.collection.findOne({ _id: hash, ...LIVE });
  }

  async list(): Promise<ApiTokenDocument[]> {
    return await this.collection.find({ ...LIVE }).sort({ createdAt: 1 }).toArray();
  }
}
