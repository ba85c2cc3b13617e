import type { Collection } from 'mongodb';
import type { Outbox, PendingEvent, StoredDocument } from '../../db/outbox/index.js';
import type { CollectionMirror, ConfigState } from '../../db/state.js';
import { isDuplicateKey } from '../../db/keys.js';
import type { ContextField } from './read-model.js';

/** What the configuration state holds of the collection (src/db/state.ts). */
declare module '../../db/state.js' {
  interface HeldDocuments {
    context_fields: ContextFieldDocument;
  }
}

/** A context field as the store keeps it: `_id` is its name (unique across projects, as in Unleash). */
export interface ContextFieldDocument extends StoredDocument, ContextField {
  _id: string;
}

export function toContextField(doc: ContextFieldDocument): ContextField {
  const { name, description, stickiness, sortOrder, legalValues, createdAt, project } = doc;
  return { name, description, stickiness, sortOrder, legalValues, createdAt, project };
}

/**
 * The five fields a fresh Unleash 8.2 lists (measured on the reference before any write), created
 * by its migrations, so without events.
 */
const BUILT_IN: ReadonlyArray<Pick<ContextField, 'name' | 'description' | 'stickiness' | 'sortOrder'>> = [
  { name: 'environment', description: 'Allows you to constrain on application environment', stickiness: false, sortOrder: 0 },
  { name: 'userId', description: 'Allows you to constrain on userId', stickiness: false, sortOrder: 1 },
  { name: 'appName', description: 'Allows you to constrain on application name', stickiness: false, sortOrder: 2 },
  { name: 'currentTime', description: 'Allows you to constrain on date values', stickiness: false, sortOrder: 3 },
  { name: 'sessionId', description: 'Allows you to constrain on sessionId', stickiness: true, sortOrder: 4 },
];

/** Code-unit order: the reference listed `hx-B` before `hx-a` and `hx_z` after `hx-tier` (C collation). */
const byName = (a: ContextField, b: ContextField) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Written once, when the built-in fields have been created (not part of the configuration state). */
interface SeedDocument extends StoredDocument {
  _id: string;
  at: Date;
}

/** Context fields, read from the configuration state (src/db/state.ts). */
export class ContextFieldStore {
  readonly collection: Collection<ContextFieldDocument>;
  private readonly mirror: CollectionMirror<ContextFieldDocument>;
  private readonly state: ConfigState;
  private readonly seeds: Collection<SeedDocument>;

  constructor(private readonly outbox: Outbox) {
    this.collection = outbox.collection<ContextFieldDocument>('context_fields');
    this.seeds = outbox.collection<SeedDocument>('context_field_seeds');
    this.state = outbox.state;
    this.mirror = outbox.state.mirror('context_fields');
  }

  /**
   * The built-in fields of a fresh database, in one commit (idempotent; safe with several
   * instances). Only once per database: a built-in field deleted through the API (the reference
   * allows it, 200) stays deleted, so a marker outside the state records that they were made.
   */
  async init(): Promise<void> {
    if (await this.seeds.findOne({ _id: 'built-in' })) return;
    const createdAt = new Date();
    const missing = BUILT_IN.filter((field) => !this.mirror.get(field.name));
    const changes: Parameters<Outbox['write']>[0] = missing.map((field) => ({
      coll: this.collection.collectionName,
      id: field.name,
      base: null,
      doc: { _id: field.name, _rev: 1, ...field, legalValues: [], createdAt, project: null } satisfies ContextFieldDocument,
    }));
    if (changes.length > 0) {
      await this.outbox.write(changes, []).catch((err: unknown) => {
        if (!isDuplicateKey(err)) throw err; // another instance committed them first
      });
    }
    await this.seeds.insertOne({ _id: 'built-in', at: createdAt }).catch((err: unknown) => {
      if (!isDuplicateKey(err)) throw err;
    });
  }

  async get(name: string): Promise<ContextField | null> {
    const doc = this.mirror.get(name);
    return doc ? toContextField(doc) : null;
  }

  /** The stored document with its revision, for read-modify-write. */
  async getDocument(name: string): Promise<ContextFieldDocument | null> {
    return this.mirror.get(name) ?? null;
  }

  /** Every field, by name; built once per revision. */
  async list(): Promise<ContextField[]> {
    return this.state.derived('context-fields:list', () => [...this.mirror.values()].map(toContextField).sort(byName));
  }

  async insert(doc: ContextFieldDocument, events: PendingEvent[]): Promise<void> {
    await this.outbox.insert(this.collection, doc, events);
  }

  async replace(current: ContextFieldDocument, next: ContextFieldDocument, events: PendingEvent[]): Promise<void> {
    await this.outbox.replace(this.collection, current, next, events);
  }

  async remove(current: ContextFieldDocument, events: PendingEvent[]): Promise<void> {
    await this.outbox.remove(this.collection, current, events);
  }
}
