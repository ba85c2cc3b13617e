import type { Collection } from 'mongodb';
import { type Outbox, type PendingEvent, type StoredDocument } from '../../db/outbox/index.js';
import type { CollectionMirror, ConfigState } from '../../db/state.js';
import { insertUnderNextId, isDuplicateKey } from '../../db/keys.js';

/** What the configuration state holds of the collection (src/db/state.ts). */
declare module '../../db/state.js' {
  interface HeldDocuments {
    change_requests: ChangeRequestDocument;
  }
}

export const STATES = ['Draft', 'In review', 'Approved', 'Scheduled', 'Applied', 'Cancelled', 'Rejected'] as const;
export type ChangeRequestState = (typeof STATES)[number];
export const FINAL_STATES: ReadonlySet<ChangeRequestState> = new Set(['Applied', 'Cancelled', 'Rejected']);

export const FLAG_ACTIONS = [
  'updateEnabled', 'addStrategy', 'updateStrategy', 'deleteStrategy', 'patchVariant', 'reorderStrategy',
  'archiveFeature', 'addDependency', 'deleteDependency',
] as const;
export const SEGMENT_ACTIONS = ['updateSegment', 'deleteSegment'] as const;
export type FlagAction = (typeof FLAG_ACTIONS)[number];
export type SegmentAction = (typeof SEGMENT_ACTIONS)[number];
export type ChangeAction = FlagAction | SegmentAction;

export interface ChangeRequestUser {
  id: number | null;
  username: string;
  imageUrl: string;
}

/**
 * One pending change. Changes are kept in one list in the order they were added (that is the
 * order they are previewed and applied in); the view groups them per flag and lists segment
 * changes apart. The payload is stored as JSON text: strategy parameters may have keys with `.`
 * or `$`, which MongoDB-compatible servers refuse as field names.
 */
export interface StoredChange {
  /** Sequential within its change request, from 1. */
  id: number;
  action: ChangeAction;
  /** Flag changes: the flag's name. */
  feature?: string;
  /** Segment changes: the segment's id and (at the time the change was added) its name. */
  segment?: number;
  segmentName?: string;
  payloadJson: string;
  createdAt: Date;
  createdBy: ChangeRequestUser;
}

export interface Review {
  createdBy: ChangeRequestUser;
  createdAt: Date;
}

export interface ChangeRequestDocument extends StoredDocument {
  _id: number;
  title: string;
  environment: string;
  project: string;
  minApprovals: number;
  state: ChangeRequestState;
  createdBy: ChangeRequestUser;
  createdAt: Date;
  updatedAt: Date;
  changes: StoredChange[];
  nextChangeId: number;
  approvals: Review[];
  rejections: Review[];
  /**
   * Present only while the request is an open Draft: `project \n environment \n user`. A unique
   * (sparse) index on it makes "the caller's open Draft" unique across instances.
   */
  draftKey?: string;
  /**
   * Present only between the commit point of an apply and its end: the planned writes (EJSON
   * text, see service.ts `apply`). A restart resumes any request left with it.
   */
  applying?: string;
  /** Writes an interrupted apply could not complete (see service.ts `executePlan`). */
  applyErrors?: string[];
}

/** Look-ups of the requests the state holds, built once per revision. */
interface ChangeRequestIndex {
  byDraftKey: Map<string, ChangeRequestDocument>;
  byProject: Map<string, ChangeRequestDocument[]>;
  applying: ChangeRequestDocument[];
  highestId: number;
}

/**
 * Change requests, one document each, integer ids from 1 allocated with a unique `_id` and retry.
 * Read from the configuration state (src/db/state.ts); the unique `_id` and the unique draft key
 * stay the arbiters across instances (see insertNew).
 */
export class ChangeRequestStore {
  readonly collection: Collection<ChangeRequestDocument>;
  private readonly applies: Collection<{ _id: number; at: Date }>;
  private readonly mirror: CollectionMirror<ChangeRequestDocument>;
  private readonly state: ConfigState;

  constructor(private readonly outbox: Outbox) {
    this.collection = outbox.collection<ChangeRequestDocument>('change_requests');
    this.applies = outbox.collection<{ _id: number; at: Date }>('change_request_applies');
    this.state = outbox.state;
    this.mirror = outbox.state.mirror('change_requests');
    outbox.unique('change_requests', ['draftKey']);
  }

  private index(): ChangeRequestIndex {
    return this.state.derived('change-requests:index', () => {
      const index: ChangeRequestIndex = { byDraftKey: new Map(), byProject: new Map(), applying: [], highestId: 0 };
      for (const cr of [...this.mirror.values()].sort((a, b) => a._id - b._id)) {
        if (cr.draftKey !== undefined) index.byDraftKey.set(cr.draftKey, cr);
        const inProject = index.byProject.get(cr.project);
        if (inProject) inProject.push(cr);
        else index.byProject.set(cr.project, [cr]);
        if (cr.applying !== undefined) index.applying.push(cr);
        index.highestId = cr._id;
      }
      return index;
    });
  }

  /**
   * Claims the apply of request `id` for this caller: an insert under the request's id, which a
   * unique `_id` makes succeed exactly once on any server (FerretDB does not apply a conditional
   * replace atomically across processes, so the request's own revision cannot decide it).
   */
  async claimApply(id: number): Promise<boolean> {
    try {
      await this.applies.insertOne({ _id: id, at: new Date() });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  /** Gives up a claim before the apply's commit point (it failed; a later attempt may apply). */
  async releaseApply(id: number): Promise<void> {
    await this.applies.deleteOne({ _id: id });
  }

  async get(id: number): Promise<ChangeRequestDocument | null> {
    if (!Number.isSafeInteger(id)) return null;
    return this.mirror.get(id) ?? null;
  }

  /** Reads what other instances committed since the last poll: before a refusal based on the state. */
  async refresh(): Promise<void> {
    await this.outbox.poll();
  }

  async findDraft(draftKey: string): Promise<ChangeRequestDocument | null> {
    return this.index().byDraftKey.get(draftKey) ?? null;
  }

  /** By id. */
  async listByProject(project: string): Promise<ChangeRequestDocument[]> {
    return this.index().byProject.get(project) ?? [];
  }

  /** Requests whose apply was interrupted (a crash between its commit point and its end). */
  async listApplying(): Promise<ChangeRequestDocument[]> {
    return this.index().applying;
  }

  /**
   * Inserts a new request under the next free id (highest the state holds + 1, see
   * insertUnderNextId). A duplicate key that is not the id is the draft key: another request
   * became the caller's Draft first; it is read into the state, so the caller's retry appends to
   * it, and null is returned with nothing inserted.
   */
  async insertNew(build: (id: number) => { doc: ChangeRequestDocument; events: PendingEvent[] }): Promise<ChangeRequestDocument | null> {
    let draftKey: string | undefined;
    return await insertUnderNextId<ChangeRequestDocument | null>({
      firstFree: () => this.index().highestId + 1,
      insert: async (id) => {
        const { doc, events } = build(id);
        draftKey = doc.draftKey;
        await this.outbox.insert(this.collection, doc, events);
        return doc;
      },
      // Another request became the caller's Draft first: the state holds it now.
      otherKey: async (err) => {
        if (!draftKey) throw err;
        return null;
      },
      maxAttempts: 101,
    });
  }

  async replace(current: ChangeRequestDocument, next: ChangeRequestDocument, events: PendingEvent[]): Promise<void> {
    await this.outbox.replace(this.collection, current, next, events);
  }
}
