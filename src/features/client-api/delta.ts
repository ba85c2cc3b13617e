/**
 * Push and delta delivery (`/api/client/streaming`, `/api/client/delta`) in the shapes the official
 * Node SDK consumes with `experimentalMode` (unleash-client 6.x: repository/index.js
 * applyFeatureResponse, streaming-fetcher.js): `{events: [{eventId, type: "hydration", features,
 * segments}]}` at first, then `feature-updated` / `feature-removed` / `segment-updated` /
 * `segment-removed` events.
 */
import type { SegmentConfig } from '../../evaluation/index.js';
import { liveJsonOf, type LiveFlag } from '../flags/read-model.js';
import { clientFeatureView, isAllProjects, type TokenScope } from './features.js';
import type { SdkState, StateChanges } from './state.js';
import type { DeltaBody, DeltaEventView, DeltaSegmentView } from './schemas.js';

/** What changed between two states (scope-free: filtered per token when sent). */
export interface Change {
  eventId: number;
  flags: Set<string>;
  removedFlags: Map<string, string>;
  segments: Set<number>;
  removedSegments: Set<number>;
  /** The projects of the changed and removed flags, before and after (a flag may have moved). */
  projects: Set<string>;
}

function emptyChange(eventId: number): Change {
  return { eventId, flags: new Set(), removedFlags: new Map(), segments: new Set(), removedSegments: new Set(), projects: new Set() };
}

/** How many revisions a delta can bridge; an older event id gets a full hydration. */
const HISTORY = 500;

/**
 * Who a delta is for: the token's scope, narrowed by the request's `project` / `namePrefix` query
 * as `/api/client/features` narrows it (the token's projects win over the query's, as in
 * resolveQuery).
 */
export interface DeltaScope extends TokenScope {
  namePrefix?: string;
}

export function deltaScope(scope: TokenScope, query: { project?: string[]; namePrefix?: string }): DeltaScope {
  const projects = isAllProjects(scope.projects) && query.project && query.project.length > 0 ? query.project : scope.projects;
  const namePrefix = query.namePrefix === '' ? undefined : query.namePrefix;
  return { ...scope, projects, ...(namePrefix === undefined ? {} : { namePrefix }) };
}

function inScope(scope: DeltaScope, project: string, name: string): boolean {
  if (scope.namePrefix !== undefined && !name.startsWith(scope.namePrefix)) return false;
  return isAllProjects(scope.projects) || scope.projects.includes(project);
}

export class DeltaLog {
  private readonly changes: Change[] = [];
  private readonly flagJson = new Map<string, string>();
  private readonly segmentJson = new Map<number, string>();
  private lastEventId = 0;
  private state: SdkState | undefined;

  get eventId(): number {
    return this.lastEventId;
  }

  /**
   * Records a new state. Event ids are this instance's clock in milliseconds, strictly increasing:
   * they order revisions and make an id from another instance practically never match one here
   * (an unknown id gets a full hydration, never a wrong delta).
   */
  advance(state: SdkState): Change | undefined {
    const previous = this.state;
    this.state = state;
    const change = emptyChange(0);
    const changes = previous !== undefined && state.step?.basis === previous ? state.changes : undefined;
    if (changes !== undefined) this.follow(state, previous!, changes, change);
    else this.compare(state, previous, change);
    const { flags, removedFlags, segments, removedSegments } = change;
    this.lastEventId = Math.max(Date.now(), this.lastEventId + 1);
    if (previous === undefined) {
      // The baseline: an empty change, so a delta from its id is known (and empty).
      this.changes.push(emptyChange(this.lastEventId));
      return undefined;
    }
    if (flags.size + removedFlags.size + segments.size + removedSegments.size === 0) {
      // Nothing an SDK sees changed (an event-only write): keep the id so ETags stay valid.
      this.lastEventId = this.changes.at(-1)?.eventId ?? this.lastEventId;
      return undefined;
    }
    change.eventId = this.lastEventId;
    this.changes.push(change);
    if (this.changes.length > HISTORY) this.changes.shift();
    return change;
  }

  /** The change found by comparing every flag's and segment's JSON with the log's own copy: a pass over the whole state. */
  private compare(state: SdkState, previous: SdkState | undefined, { flags, removedFlags, projects, segments, removedSegments }: Change): void {
    const seenFlags = new Set<string>();
    for (const flag of state.flags) {
      seenFlags.add(flag.name);
      const json = liveJsonOf(flag);
      if (this.flagJson.get(flag.name) !== json) {
        flags.add(flag.name);
        projects.add(flag.project);
        const before = previous?.flagsByName.get(flag.name);
        if (before !== undefined) projects.add(before.project);
      }
      this.flagJson.set(flag.name, json);
    }
    for (const [name] of this.flagJson) {
      if (seenFlags.has(name)) continue;
      this.flagJson.delete(name);
      const old = previous?.flagsByName.get(name);
      removedFlags.set(name, old?.project ?? 'default');
      projects.add(old?.project ?? 'default');
    }
    for (const [id, json] of state.segmentJson) {
      if (this.segmentJson.get(id) !== json) segments.add(id);
      this.segmentJson.set(id, json);
    }
    for (const [id] of this.segmentJson) {
      if (!state.segments.has(id)) {
        this.segmentJson.delete(id);
        removedSegments.add(id);
      }
    }
  }

  /**
   * The same change read off the state's own `changes` (since the state this log held): a write
   * costs the log its changed flags, not a comparison of every flag's JSON (which was 0.8 ms of
   * the first read after each write at 2 000 flags, `--cpu-prof` of the server).
   */
  private follow(state: SdkState, previous: SdkState, changes: StateChanges, { flags, removedFlags, projects, segments, removedSegments }: Change): void {
    for (const flag of changes.flags) {
      flags.add(flag.name);
      projects.add(flag.project);
      const before = previous.flagsByName.get(flag.name);
      if (before !== undefined) projects.add(before.project);
      this.flagJson.set(flag.name, liveJsonOf(flag));
    }
    for (const name of changes.removedFlags) {
      this.flagJson.delete(name);
      const project = previous.flagsByName.get(name)?.project ?? 'default';
      removedFlags.set(name, project);
      projects.add(project);
    }
    for (const segment of changes.segments) {
      segments.add(segment.id);
      this.segmentJson.set(segment.id, state.segmentJson.get(segment.id)!);
    }
    for (const id of changes.removedSegments) {
      this.segmentJson.delete(id);
      removedSegments.add(id);
    }
  }

  /** Whether `eventId` is one this log can bridge from. */
  knows(eventId: number): boolean {
    return eventId === this.lastEventId || this.changes.some((c) => c.eventId === eventId);
  }

  hydration(state: SdkState, scope: DeltaScope): DeltaBody {
    const flags = state.flags.filter((flag) => inScope(scope, flag.project, flag.name));
    return {
      events: [{
        eventId: this.lastEventId,
        type: 'hydration',
        features: flags.map((flag) => clientFeatureView(flag, scope.environment, state.segments, false)),
        segments: [...state.segments.values()].map(segmentView),
      }],
    };
  }

  /** The events after `since` that this scope sees (empty: nothing it sees changed). */
  eventsSince(state: SdkState, scope: DeltaScope, since: number): DeltaEventView[] {
    const index = this.changes.findIndex((c) => c.eventId > since);
    if (index < 0) return [];
    return this.render(state, scope, this.changes.slice(index));
  }

  render(state: SdkState, scope: DeltaScope, changes: readonly Change[]): DeltaEventView[] {
    const events: DeltaEventView[] = [];
    const last = changes.at(-1)?.eventId ?? this.lastEventId;
    const flags = new Set<string>();
    const removed = new Map<string, string>();
    const segments = new Set<number>();
    const removedSegments = new Set<number>();
    for (const change of changes) {
      for (const name of change.flags) { flags.add(name); removed.delete(name); }
      for (const [name, project] of change.removedFlags) { removed.set(name, project); flags.delete(name); }
      for (const id of change.segments) { segments.add(id); removedSegments.delete(id); }
      for (const id of change.removedSegments) { removedSegments.add(id); segments.delete(id); }
    }
    // Segments first, so a flag that starts using a new segment never arrives before it.
    for (const id of segments) {
      const segment = state.segments.get(id);
      if (segment) events.push({ eventId: last, type: 'segment-updated', segment: segmentView(segment) });
    }
    for (const name of flags) {
      const flag: LiveFlag | undefined = state.flagsByName.get(name);
      if (!flag) continue;
      // A name outside the prefix was never sent, so there is nothing to remove either.
      if (scope.namePrefix !== undefined && !name.startsWith(scope.namePrefix)) continue;
      if (inScope(scope, flag.project, flag.name)) {
        events.push({ eventId: last, type: 'feature-updated', feature: clientFeatureView(flag, scope.environment, state.segments, false) });
      } else {
        // Moved out of the scope (project change): gone for this token.
        events.push({ eventId: last, type: 'feature-removed', featureName: name, project: flag.project });
      }
    }
    for (const [name, project] of removed) {
      if (inScope(scope, project, name)) events.push({ eventId: last, type: 'feature-removed', featureName: name, project });
    }
    for (const id of removedSegments) events.push({ eventId: last, type: 'segment-removed', segmentId: id });
    return events;
  }
}

/**
 * Whether a change can alter what a token scope evaluates: a flag of one of its projects changed,
 * appeared, moved or went, or any segment changed (a segment may be used by any flag). Coarser than
 * `render` needs to be (a change in another environment counts), never finer: OFREP's event
 * streams (src/features/ofrep/events.ts) tell providers to re-fetch on it, and a re-fetch that
 * finds nothing new is a 304.
 */
export function changeTouches(change: Change, scope: TokenScope): boolean {
  if (change.segments.size + change.removedSegments.size > 0) return true;
  if (change.projects.size === 0) return false;
  if (isAllProjects(scope.projects)) return true;
  for (const project of scope.projects) if (change.projects.has(project)) return true;
  return false;
}

function segmentView(segment: SegmentConfig): DeltaSegmentView {
  return { id: segment.id, name: segment.name, constraints: segment.constraints };
}
