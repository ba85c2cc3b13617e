import type { Collection } from 'mongodb';
import type { Change, Outbox, PendingEvent, StoredDocument } from '../../db/outbox/index.js';
import type { UserDocument, UserReadModel } from './read-model.js';
import type { CollectionMirror, ConfigState } from '../../db/state.js';
import { insertUnderNextId } from '../../db/keys.js';

/** What the configuration state holds of the collection (src/db/state.ts). */
declare module '../../db/state.js' {
  interface HeldDocuments {
    users: UserDocument;
  }
}

export class UserExistsError extends Error {
  override name = 'UserExistsError';
}

const MAX_ATTEMPTS = 50;

export function usernameKey(username: string | null, id: number): string {
  return username === null ? `id:${id}` : `u:${username.toLowerCase()}`;
}

/** The look-ups sign-in and creation need, built from the state once per revision (deleted users left out). */
interface UserIndex {
  byEmail: Map<string, UserDocument>;
  byUsernameKey: Map<string, UserDocument>;
  bySignupToken: Map<string, UserDocument[]>;
  list: UserDocument[];
  /** The highest id ever given, deleted users included (an id is never given twice). */
  highestId: number;
}

/** The change replacing `current` (as read, with `_rev`) by `next`, or removing it (`next` null), or inserting `next` (`current` null). */
export function changeOf(coll: string, current: StoredDocument | null, next: StoredDocument | null): Change {
  if (current === null) {
    if (next === null) throw new Error('changeOf: neither a document nor its next version');
    return { coll, id: next._id, base: null, doc: { ...next, _rev: 1 } };
  }
  const rev = current._rev ?? 0;
  return { coll, id: current._id, base: rev, doc: next === null ? null : { ...next, _id: current._id, _rev: rev + 1 } };
}

/**
 * Users, read from the configuration state (src/db/state.ts): the user of every session-signed
 * request, sign-in by e-mail or username, the admin list. A user removed or changed on one
 * instance is seen so by the others with the next revision. The unique indexes on e-mail and
 * username stay the arbiter across instances (see insertNew).
 */
export class UserStore implements UserReadModel {
  readonly collection: Collection<UserDocument>;
  private readonly mirror: CollectionMirror<UserDocument>;
  private readonly state: ConfigState;
  private nextId: number | undefined;

  constructor(private readonly outbox: Outbox) {
    this.collection = outbox.collection<UserDocument>('users');
    this.state = outbox.state;
    this.mirror = outbox.state.mirror('users');
    // Unique e-mail and username; the id is the `_id`, unique by construction.
    outbox.unique('users', ['email', 'usernameKey']);
  }

  private index(): UserIndex {
    return this.state.derived('users:index', () => {
      const all = [...this.mirror.values()];
      const list = all.filter((user) => user.deletedAt === undefined).sort((a, b) => a._id - b._id);
      const highestId = all.reduce((highest, user) => Math.max(highest, user._id), 0);
      const index: UserIndex = { byEmail: new Map(), byUsernameKey: new Map(), bySignupToken: new Map(), list, highestId };
      for (const user of list) {
        if (user.email !== null) index.byEmail.set(user.email, user);
        index.byUsernameKey.set(user.usernameKey, user);
        if (user.signupToken !== undefined) {
          const joined = index.bySignupToken.get(user.signupToken);
          if (joined) joined.push(user);
          else index.bySignupToken.set(user.signupToken, [user]);
        }
      }
      return index;
    });
  }

  async exists(email: string | null, username: string | null): Promise<boolean> {
    const index = this.index();
    return (email !== null && index.byEmail.has(email)) || (username !== null && index.byUsernameKey.has(usernameKey(username, 0)));
  }

  /** The live user with this e-mail (any case). */
  byEmail(email: string): UserDocument | null {
    return this.index().byEmail.get(email.toLowerCase()) ?? null;
  }

  /** Whether the id is a deleted user's (its tombstone). */
  isDeleted(id: number): boolean {
    return this.mirror.get(id)?.deletedAt !== undefined;
  }

  async list(): Promise<UserDocument[]> {
    return this.index().list;
  }

  /** The user signing in with this name: an e-mail address (any case) or a username (any case). */
  async findByLogin(login: string): Promise<UserDocument | null> {
    const key = login.trim().toLowerCase();
    if (key === '') return null;
    const index = this.index();
    return index.byEmail.get(key) ?? index.byUsernameKey.get(usernameKey(key, 0)) ?? null;
  }

  /**
   * The same look-up after reading what other instances committed since the last poll: for a
   * user another instance may have created a moment ago (two instances creating the first admin
   * at once).
   */
  async findByLoginInDatabase(login: string): Promise<UserDocument | null> {
    await this.outbox.poll();
    return await this.findByLogin(login);
  }

  async get(id: number): Promise<UserDocument | null> {
    const user = this.mirror.get(id);
    return user === undefined || user.deletedAt !== undefined ? null : user;
  }

  /** Users who joined through any of these invite links, by id. */
  async joinedThrough(secrets: string[]): Promise<UserDocument[]> {
    const index = this.index();
    return [...new Set(secrets)].flatMap((secret) => index.bySignupToken.get(secret) ?? []).sort((a, b) => a._id - b._id);
  }

  /**
   * Replaces a user read from the state (ConcurrentModificationError when it changed meanwhile),
   * with other changes of the same operation (its reset links) in the same commit.
   */
  async replace(current: UserDocument, next: UserDocument, events: PendingEvent[], also: Change[] = []): Promise<void> {
    await this.outbox.write([changeOf(this.collection.collectionName, current, next), ...also], events);
  }

  /**
   * Inserts a new user under the next free id (the highest the state holds + 1, see
   * insertUnderNextId), with its events in the same write. A duplicate key that is not the id is a
   * taken e-mail/username (UserExistsError).
   */
  async insertNew(
    build: (id: number) => UserDocument, events: (user: UserDocument) => PendingEvent[], also: (user: UserDocument) => Change[] = () => [],
  ): Promise<UserDocument> {
    return await this.outbox.exclusive('users:insert', () => insertUnderNextId<UserDocument>({
      firstFree: () => Math.max(this.nextId ?? 0, this.index().highestId + 1),
      insert: async (id) => {
        const user = build(id);
        await this.outbox.write([changeOf(this.collection.collectionName, null, user), ...also(user)], events(user));
        this.nextId = id + 1;
        return user;
      },
      otherKey: async () => {
        throw new UserExistsError('User already exists');
      },
      maxAttempts: MAX_ATTEMPTS,
    }));
  }
}
