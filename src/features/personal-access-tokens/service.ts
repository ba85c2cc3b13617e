import { buildEvents, ConcurrentModificationError, type AuditUser } from '../../db/outbox/index.js';
import { nameExists, operationDenied, validationError } from '../../errors.js';
import type { UserDocument, UserReadModel } from '../users/read-model.js';
import type { CreatedPatView, PatView } from './schemas.js';
import { descriptionKey, generatePatSecret, hashPatSecret, PAT_PREFIX, type PatDocument, type PatStore } from './store.js';

/** Unleash 8.2's limit per user: the 11th is refused (test/fixtures/personal-access-tokens/reference.json, `limit`). */
export const PAT_LIMIT = 10;

/**
 * `seenAt` is written at most this often per token: every admin call with a PAT would otherwise be
 * a commit, and each commit is a new revision every cache rebuilds for.
 */
export const SEEN_INTERVAL_MS = 60_000;

export function publicPat(doc: PatDocument): PatView {
  return {
    id: doc._id,
    description: doc.description,
    expiresAt: doc.expiresAt.toISOString(),
    userId: doc.userId,
    createdAt: doc.createdAt.toISOString(),
    seenAt: doc.seenAt ? doc.seenAt.toISOString() : null,
  };
}

/** The data of `pat-created` and `pat-deleted` (measured: no user id, no secret). */
function eventData(doc: PatDocument) {
  return { id: doc._id, description: doc.description, expiresAt: doc.expiresAt.toISOString(), secure: false };
}

export interface PatInput {
  description: string;
  expiresAt: string;
}

/** The person a PAT authenticates, and the token. */
export interface PatHolder {
  pat: PatDocument;
  user: UserDocument;
}

export function isPatSecret(secret: string): boolean {
  return secret.startsWith(PAT_PREFIX);
}

export class PatService {
  /** When `seenAt` was last written (or tried) per token id, so a failing write is not retried on every request. */
  private readonly seenWrites = new Map<number, number>();

  constructor(
    private readonly store: PatStore,
    private readonly users: UserReadModel,
    private readonly log: { warn(obj: object, message: string): void } = { warn: () => undefined },
  ) {}

  list(userId: number): PatView[] {
    return this.store.ofUser(userId).map(publicPat);
  }

  /** Unleash's order of checks (measured): empty description, expiry, the limit, then a taken description. */
  async create(userId: number, input: PatInput, audit: AuditUser): Promise<CreatedPatView> {
    if (input.description === '') throw validationError('PAT description cannot be empty.');
    const expiresAt = new Date(input.expiresAt);
    const createdAt = new Date();
    if (expiresAt.getTime() <= createdAt.getTime()) throw validationError('The expiry date should be in future.');
    const own = this.store.ofUser(userId);
    if (own.length >= PAT_LIMIT) throw operationDenied(`Too many PATs (${PAT_LIMIT}) already exist for this user.`);
    const taken = () => nameExists('PAT description already exists.');
    if (own.some((pat) => pat.description === input.description)) throw taken();
    const secret = generatePatSecret();
    const doc = await this.store.insertNew(
      (id) => ({
        _id: id,
        secretHash: hashPatSecret(secret),
        description: input.description,
        descriptionKey: descriptionKey(userId, input.description),
        userId,
        expiresAt,
        createdAt,
        seenAt: null,
      }),
      (created) => buildEvents(audit, [{ type: 'pat-created', data: eventData(created) }], { at: createdAt }),
      async () => {
        throw taken();
      },
    );
    return { ...publicPat(doc), secret };
  }

  /** Deletes one of the user's tokens; another user's or an unknown id is a silent no-op, as in Unleash (measured). */
  async delete(userId: number, id: number, audit: AuditUser): Promise<void> {
    const current = this.store.get(id);
    if (!current || current.userId !== userId) return;
    await this.store.remove(current, buildEvents(audit, [{ type: 'pat-deleted', data: eventData(current) }]));
  }

  /**
   * The person a PAT secret belongs to, or null (unknown, deleted, expired, or its user gone).
   * Notes the use for `seenAt`.
   */
  async authenticate(secret: string): Promise<PatHolder | null> {
    const pat = this.store.byHash(hashPatSecret(secret));
    if (!pat) return null;
    const now = Date.now();
    if (pat.expiresAt.getTime() <= now) return null;
    const user = await this.users.get(pat.userId);
    if (!user) return null;
    this.noteSeen(pat, now);
    return { pat, user };
  }

  /** Writes `seenAt` after the request, through the outbox, when the stored one is a minute old. */
  private noteSeen(pat: PatDocument, now: number): void {
    const last = Math.max(pat.seenAt?.getTime() ?? 0, this.seenWrites.get(pat._id) ?? 0);
    if (now - last < SEEN_INTERVAL_MS) return;
    this.seenWrites.set(pat._id, now);
    if (this.seenWrites.size > 10_000) {
      for (const [id, at] of this.seenWrites) if (now - at >= SEEN_INTERVAL_MS) this.seenWrites.delete(id);
    }
    const write = async () => {
      const current = this.store.get(pat._id);
      if (!current) return;
      await this.store.replace(current, { ...current, seenAt: new Date(now) }, []);
    };
    write().catch((err: unknown) => {
      // A token changed or deleted meanwhile, or the database busy: the next use a minute on writes it.
      if (!(err instanceof ConcurrentModificationError)) this.log.warn({ err, pat: pat._id }, 'personal access token: seenAt not written');
    });
  }
}
