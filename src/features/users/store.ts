import type { Collection } from 'mongodb';
import { LIVE, type Outbox, type PendingEvent, type StoredDocument } from '../../db/outbox.js';
import { isDuplicateKey, nextIntegerId } from '../../db/keys.js';

export interface UserDocument extends StoredDocument {
  /** The user id: sequential integers from 1, allocated through the unique `_id` and retried. */
  _id: number;
  name: string | null;
  /** Trimmed and lower-cased; unique. */
  email: string;
  username: string | null;
  /** Uniqueness key for usernames: `u:<lower-cased username>`, or `id:<id>` for users without one. */
  usernameKey: string;
  imageUrl: string | null;
  rootRole: number;
  seenAt: Date | null;
  loginAttempts: number;
  emailSent: boolean;
  accountType: 'User';
  createdAt: Date;
  /** scrypt hash (see password.ts); absent when the user has no password. Never leaves the store. */
  passwordHash?: string;
  /** Secret of the invite link the user joined through. */
  signupToken?: string;
}

export class UserExistsError extends Error {
  override name = 'UserExistsError';
}

const MAX_ATTEMPTS = 50;

export function usernameKey(username: string | null, id: number): string {
  return username === null ? `id:${id}` : `u:${username.toLowerCase()}`;
}

export class UserStore {
  readonly collection: Collection<UserDocument>;
  private nextId: number | undefined;

  constructor(private readonly outbox: Outbox) {
    this.collection = outbox.collection<UserDocument>('users');
  }

  /** Unique e-mail and username; the id is the `_id`, unique by construction. Idempotent. */
  async init(): Promise<void> {
    await this.collection.createIndex({ email: 1 }, { unique: true, name: 'email_unique' });
    await this.collection.createIndex({ usernameKey: 1 }, { unique: true, name: 'username_unique' });
    await this.collection.createIndex({ signupToken: 1 }, { name: 'signup_token' });
  }

  async exists(email: string, username: string | null): Promise<boolean> {
    const or: object[] = [{ email }];
    if (username !== null) or.push({ usernameKey: usernameKey(username, 0) });
    return (await this.collection.findOne({ $or: or, ...LIVE } as never, { projection: { _id: 1 } })) !== null;
  }

  async list(): Promise<UserDocument[]> {
    return await this.collection.find({ ...LIVE }).sort({ _id: 1 }).toArray();
  }

  /** The user signing in with this name: an e-mail address (any case) or a username (any case). */
  async findByLogin(login: string): Promise<UserDocument | null> {
    const key = login.trim().toLowerCase();
    if (key === '') return null;
    return await this.collection.findOne({ $or: [{ email: key }, { usernameKey: usernameKey(key, 0) }], ...LIVE } as never);
  }

  async get(id: number): Promise<UserDocument | null> {
    return await this.collection.findOne({ _id: id, ...LIVE });
  }

  /** Users who joined through any of these invite links, by id. */
  async joinedThrough(secrets: string[]): Promise<UserDocument[]> {
    if (secrets.length === 0) return [];
    return await this.collection.find({ signupToken: { $in: secrets }, ...LIVE }).sort({ _id: 1 }).toArray();
  }

  /**
   * Inserts a new user under the next free id, with its events in the same write. A duplicate key
   * is either a taken id (another instance got there first: re-read the maximum and retry) or a
   * taken e-mail/username (UserExistsError). Never a counter document: FerretDB does not make
   * `$inc`/`findOneAndUpdate` atomic under concurrency, a unique key is.
   */
  async insertNew(build: (id: number) => UserDocument, events: (user: UserDocument) => PendingEvent[]): Promise<UserDocument> {
    return await this.outbox.exclusive('users:insert', async () => {
      for (let attempt = 0; ; attempt++) {
        if (this.nextId === undefined) {
          this.nextId = await nextIntegerId(this.collection as never);
        }
        const user = build(this.nextId);
        try {
          await this.outbox.insert(this.collection, user, events(user));
          this.nextId = user._id + 1;
          return user;
        } catch (err) {
          if (!isDuplicateKey(err) || attempt >= MAX_ATTEMPTS) throw err;
          if (await this.exists(user.email, user.username)) throw new UserExistsError('User already exists');
          this.nextId = undefined;
        }
      }
    });
  }
}
