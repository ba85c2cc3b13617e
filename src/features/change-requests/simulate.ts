/**
 * A change request's changes applied in memory, in order, with the live endpoints' own rules
 * (the pure functions of src/features/flags/apply.ts and the segment body rules). Used three
 * ways: to validate a change when it is added (against the current state with the request's
 * earlier changes applied), to preview a request (E3, docs/glossary.md), and as the dry run of an apply, whose
 * result is the exact set of document writes (with their events) the apply then performs.
 * Nothing here writes.
 */
import { buildEvents, jsonEqual, withoutBookkeeping, type AuditUser, type PendingEvent } from '../../db/outbox/index.js';
import { conflict, invalidOperation, nameExists, notFound, validationError } from '../../errors.js';
import type { SnapshotChanges } from '../../evaluation/index.js';
import {
  applyAddDependency, applyAddStrategy, applyArchive, applyDeleteStrategy, applyRemoveDependency, applyReorderStrategies,
  applySetEnabled, applySetVariants, applyUpdateStrategy,
  type Applied, type ApplyContext, type SegmentInfo,
} from '../flags/apply.js';
import type { FlagService } from '../flags/service.js';
import { toFlagConfig, type FlagData, type FlagDocument } from '../flags/read-model.js';
import type { SegmentInput, SegmentService } from '../segments/service.js';
import { toSegmentConfig, type Segment, type SegmentReadModel } from '../segments/read-model.js';
import type { ValidChange } from './schemas.js';
import type { FlagDocuments } from './sources.js';
import type { ChangeAction } from './store.js';

/** A change as the simulation takes it (payload already schema-validated). */
/** A change to simulate: its payload has passed its action's schema (when it was added). */
export type SimChange = ValidChange & {
  id?: number;
  feature?: string;
  segment?: number;
};

export interface SimulationDeps {
  /** The live rules' context of a flag (FlagService.context). */
  flags: FlagService;
  flagDocuments: FlagDocuments;
  segmentReads: SegmentReadModel;
  segments: SegmentService;
}

interface FlagTrack {
  /** As read (with `_rev`); the write of an apply is conditional on it. */
  original: FlagDocument;
  current: FlagData;
  events: PendingEvent[];
  changeIds: number[];
}

interface SegmentTrack {
  original: Segment;
  /** null once deleted. */
  current: Segment | null;
  changeIds: number[];
}

export interface FlagWrite {
  name: string;
  original: FlagDocument;
  next: FlagData;
  events: PendingEvent[];
  changeIds: number[];
}

export type SegmentOp =
  | { kind: 'update'; id: number; input: SegmentInput; changeIds: number[] }
  | { kind: 'delete'; id: number; changeIds: number[] };

export class Simulation {
  private readonly flags = new Map<string, FlagTrack>();
  private readonly segments = new Map<number, SegmentTrack>();
  private base: ApplyContext | undefined;
  private otherFlags: FlagData[] | undefined;
  private allSegments: Segment[] | undefined;

  constructor(
    private readonly deps: SimulationDeps,
    readonly project: string,
    readonly environment: string,
    private readonly audit: AuditUser,
    readonly now = new Date(),
  ) {}

  /** Reads every flag of the project (archived ones too: changes to them fail like live ones). */
  async load(): Promise<this> {
    const store = this.deps.flagDocuments;
    const docs = [
      ...(await store.listByProject(this.project)),
      ...(await store.listByProject(this.project, { archived: true })),
    ];
    for (const doc of docs) {
      this.flags.set(doc.name, { original: doc, current: withoutBookkeeping(doc) as FlagData, events: [], changeIds: [] });
    }
    // What the rules need beyond the flag depends on the project only (types, environments, stickiness).
    this.base = await this.deps.flags.context({ project: this.project } as FlagData, [], this.now);
    return this;
  }

  /** Applies one change; throws the live endpoint's error when it does not apply. */
  async apply(change: SimChange): Promise<void> {
    if (change.action === 'updateSegment' || change.action === 'deleteSegment') await this.applySegment(change);
    else await this.applyFlag(change);
  }

  // -------------------------------------------------------------------------------------------
  // flags

  private async track(name: string, action: ChangeAction): Promise<FlagTrack> {
    const track = this.flags.get(name);
    if (track) return track;
    if (action === 'archiveFeature' && !(await this.deps.flagDocuments.get(name))) {
      throw notFound(`Could not find feature flag "${name}"`);
    }
    // Not in the project: the live endpoints' 404 (naming the project that has it, if any).
    await this.deps.flags.requireFlag(this.project, name);
    throw notFound(`There's no feature named "${name}" in project "${this.project}".`);
  }

  private async contextFor(segmentIds: unknown): Promise<ApplyContext> {
    const segments = new Map<number, SegmentInfo>();
    for (const id of Array.isArray(segmentIds) ? segmentIds : []) {
      if (typeof id !== 'number' || segments.has(id)) continue;
      const segment = (await this.segmentTrack(id))?.current;
      if (segment) segments.set(id, segment);
    }
    return { ...this.base!, segments };
  }

  /** Names of the non-archived flags that depend on `name` (as FlagStore.children, in memory). */
  private children(name: string): string[] {
    return [...this.flags.values()]
      .filter((t) => !t.current.archived && t.current.dependencies.some((d) => d.feature === name))
      .sort((a, b) => a.current.createdAt.getTime() - b.current.createdAt.getTime() || (a.current.name < b.current.name ? -1 : 1))
      .map((t) => t.current.name);
  }

  /** The 403 of docs/rules.md §1.4 S4 for a strategy id that belongs to another flag or project. */
  private async assertStrategyNotElsewhere(flag: FlagData, strategyId: string): Promise<void> {
    for (const t of this.flags.values()) {
      if (t.current.name === flag.name) continue;
      if (Object.values(t.current.environments).some((env) => env.strategies.some((s) => s.id === strategyId))) {
        throw invalidOperation('You can not change the featureName for an activation strategy.');
      }
    }
    const owner = await this.deps.flagDocuments.findByStrategyId(strategyId);
    if (owner && owner.project !== this.project) throw invalidOperation('You can not change the projectId for an activation strategy.');
  }

  private async applyFlag(change: Exclude<SimChange, { action: 'updateSegment' | 'deleteSegment' }>): Promise<void> {
    const name = change.feature!;
    const track = await this.track(name, change.action);
    const flag = track.current;
    const env = this.environment;
    let applied: Applied<unknown>;
    switch (change.action) {
      case 'updateEnabled':
        applied = applySetEnabled(flag, env, change.payload.enabled, await this.contextFor([]));
        break;
      case 'addStrategy':
        applied = applyAddStrategy(flag, env, change.payload, await this.contextFor(change.payload.segments));
        break;
      case 'updateStrategy': {
        const { id: strategyId, ...input } = change.payload;
        if (!flag.environments[env]?.strategies.some((s) => s.id === strategyId)) await this.assertStrategyNotElsewhere(flag, strategyId);
        applied = applyUpdateStrategy(flag, env, strategyId, input, await this.contextFor(input.segments));
        break;
      }
      case 'deleteStrategy': {
        // Live, an unknown id is a silent no-op; a change request's change must still apply (the
        // strategy deleted meanwhile is a conflict), so it fails as an update would.
        const ctx = await this.contextFor([]);
        applied = applyDeleteStrategy(flag, env, change.payload.id, ctx);
        if (applied.result === null) throw notFound(`Could not find strategy with id ${change.payload.id}`);
        break;
      }
      case 'patchVariant':
        applied = applySetVariants(flag, env, change.payload.variants, await this.contextFor([]));
        break;
      case 'reorderStrategy':
        applied = applyReorderStrategies(flag, env, change.payload, await this.contextFor([]));
        break;
      case 'archiveFeature':
        applied = applyArchive(flag, this.children(name), await this.contextFor([]));
        break;
      case 'addDependency': {
        const input = change.payload;
        let parent: FlagData | null = null;
        if (input.feature !== name) {
          const inProject = this.flags.get(input.feature);
          if (inProject) parent = inProject.current;
          else {
            const elsewhere = await this.deps.flagDocuments.get(input.feature);
            parent = elsewhere ? (withoutBookkeeping(elsewhere) as FlagData) : null;
          }
        }
        applied = applyAddDependency(flag, input, { parent, childChildren: this.children(name) });
        break;
      }
      case 'deleteDependency':
        applied = applyRemoveDependency(flag, change.payload.feature);
        break;
      default: {
        // Every action is handled (the compiler checks); a stored change of an unknown one still fails cleanly.
        const unhandled: never = change;
        throw validationError(`Unknown change action in ${JSON.stringify(unhandled)}`);
      }
    }
    track.current = applied.next;
    track.events.push(...buildEvents(this.audit, applied.events, { transactional: applied.transactional, at: this.now }));
    if (change.id !== undefined) track.changeIds.push(change.id);
  }

  // -------------------------------------------------------------------------------------------
  // segments

  private async segmentTrack(id: number): Promise<SegmentTrack | null> {
    const known = this.segments.get(id);
    if (known) return known;
    const segment = await this.deps.segmentReads.get(id);
    if (!segment) return null;
    const track = { original: segment, current: segment, changeIds: [] };
    this.segments.set(id, track);
    return track;
  }

  /** Every flag (all projects, archived included) with this simulation's state for the project's. */
  private async everyFlag(): Promise<FlagData[]> {
    if (!this.otherFlags) {
      this.otherFlags = (await this.deps.flagDocuments.all())
        .filter((f) => f.project !== this.project)
        .map((f) => withoutBookkeeping(f) as FlagData);
    }
    return [...this.otherFlags, ...[...this.flags.values()].map((t) => t.current)];
  }

  /** Projects whose flags (archived ones too) have a strategy using the segment. */
  private async projectsUsing(id: number): Promise<Set<string>> {
    const projects = new Set<string>();
    for (const flag of await this.everyFlag()) {
      const uses = Object.values(flag.environments).some((env) => env.strategies.some((s) => (s.segments ?? []).includes(id)));
      if (uses) projects.add(flag.project);
    }
    return projects;
  }

  private async nameTaken(name: string, exceptId: number): Promise<boolean> {
    this.allSegments ??= await this.deps.segmentReads.list();
    for (const stored of this.allSegments) {
      if (stored.id === exceptId) continue;
      const current = this.segments.has(stored.id) ? this.segments.get(stored.id)!.current : stored;
      if (current?.name === name) return true;
    }
    return false;
  }

  private async applySegment(change: Extract<SimChange, { action: 'updateSegment' | 'deleteSegment' }>): Promise<void> {
    const id = change.segment!;
    const track = await this.segmentTrack(id);
    if (!track?.current) throw notFound(`No segment exists with ID "${id}"`);
    const current = track.current;
    if (change.action === 'deleteSegment') {
      // Live, a segment in use answers 409; so does a change request that would delete one.
      if ((await this.projectsUsing(id)).size > 0) {
        throw conflict(`Segment "${current.name}" is used by strategies and cannot be deleted`);
      }
      track.current = null;
    } else {
      const { id: _id, ...body } = change.payload;
      const valid = await this.deps.segments.checkInput(body);
      if (current.name !== valid.name && (await this.nameTaken(valid.name, id))) throw nameExists('Segment name already exists');
      if (valid.project) {
        const used = await this.projectsUsing(id);
        if (used.size > 1 || (used.size === 1 && !used.has(valid.project))) {
          throw validationError(`Invalid project. Segment is being used by strategies in other projects: ${[...used].join(', ')}`);
        }
      }
      track.current = {
        ...current,
        name: valid.name,
        description: valid.description === undefined ? current.description : valid.description,
        project: valid.project,
        constraints: valid.constraints,
      };
    }
    if (change.id !== undefined) track.changeIds.push(change.id);
  }

  // -------------------------------------------------------------------------------------------
  // results

  /** The flags and segments whose state differs from the stored one, as the evaluation engine wants them. */
  snapshotChanges(): SnapshotChanges {
    const flags = [];
    for (const track of this.flags.values()) {
      const before = toFlagConfig(withoutBookkeeping(track.original) as FlagData);
      const after = toFlagConfig(track.current);
      if (!jsonEqual(before, after)) flags.push(after);
    }
    const segments = [];
    const removedSegments: number[] = [];
    for (const [id, track] of this.segments) {
      if (track.current === null) removedSegments.push(id);
      else if (!jsonEqual(toSegmentConfig(track.original), toSegmentConfig(track.current))) segments.push(toSegmentConfig(track.current));
    }
    return {
      ...(flags.length ? { flags } : {}),
      ...(segments.length ? { segments } : {}),
      ...(removedSegments.length ? { removedSegments } : {}),
    };
  }

  /** One write per changed flag document, carrying that flag's events in change order. */
  flagWrites(): FlagWrite[] {
    const writes: FlagWrite[] = [];
    for (const [name, track] of this.flags) {
      const unchanged = jsonEqual(withoutBookkeeping(track.original), track.current);
      if (track.events.length === 0 && unchanged) continue;
      writes.push({ name, original: track.original, next: track.current, events: track.events, changeIds: track.changeIds });
    }
    return writes;
  }

  /** The final state of each changed segment, as one segment-service call each. */
  segmentOps(): SegmentOp[] {
    const ops: SegmentOp[] = [];
    for (const [id, track] of this.segments) {
      if (track.changeIds.length === 0) continue;
      if (track.current === null) ops.push({ kind: 'delete', id, changeIds: track.changeIds });
      else {
        const s = track.current;
        const input: SegmentInput = { name: s.name, description: s.description, project: s.project, constraints: s.constraints };
        ops.push({ kind: 'update', id, input, changeIds: track.changeIds });
      }
    }
    return ops;
  }
}
