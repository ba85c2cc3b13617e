import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { BSON } from 'mongodb';
import {
  buildEvents, ConcurrentModificationError, retrying, type AuditUser, type EventInput, type Outbox,
} from '../../db/outbox/index.js';
import { ApiError, conflict, notFound, validationError } from '../../errors.js';
import type { SnapshotChanges } from '../../evaluation/index.js';
import type { FlagService } from '../flags/service.js';
import { ADMIN_TOKEN_USER_ID, ADMIN_TOKEN_USER_NAME, gravatarUrl } from '../shared.js';
import type { SegmentService } from '../segments/service.js';
import type { SegmentReadModel } from '../segments/read-model.js';
import type { ChangeRequestView, ValidChange } from './schemas.js';
import { PlanRunner, type ApplyPlan } from './apply-plan.js';
import { Simulation, type SimChange } from './simulate.js';
import type { EnvironmentLookup, EventLookup, FlagDocuments, ProjectLookup } from './sources.js';
import {
  FINAL_STATES, type ChangeAction, type ChangeRequestDocument, type ChangeRequestState, type ChangeRequestStore,
  type ChangeRequestUser, type StoredChange,
} from './store.js';

/** A change as the routes hand it over: its payload has passed its action's schema (the live endpoint's). */
export type ChangeInput = ValidChange & {
  /** Flag changes. */
  feature?: string;
  /** Segment changes: the segment's id (from the payload's `id`). */
  segment?: number;
};

/** Allowed transitions (docs/rules.md §3.13); `Applied` runs the apply. `Scheduled` is not offered. */
const TRANSITIONS: Record<ChangeRequestState, ChangeRequestState[]> = {
  Draft: ['In review', 'Cancelled'],
  'In review': ['Approved', 'Rejected', 'Cancelled'],
  Approved: ['Applied', 'Cancelled'],
  Scheduled: ['Cancelled'],
  Applied: [],
  Cancelled: [],
  Rejected: [],
};

const STATE_EVENTS: Partial<Record<ChangeRequestState, string>> = {
  'In review': 'change-request-sent-to-review',
  Approved: 'change-request-approved',
  Rejected: 'change-request-rejected',
  Cancelled: 'change-request-cancelled',
  Applied: 'change-request-applied',
};

/** A decimal integer id from a path, or NaN (which matches nothing). */
export function parseId(text: string): number {
  return /^[0-9]{1,15}$/.test(text) ? Number(text) : NaN;
}

function userOf(audit: AuditUser): ChangeRequestUser {
  const username = audit.id === ADMIN_TOKEN_USER_ID ? ADMIN_TOKEN_USER_NAME : audit.name;
  return { id: audit.id, username, imageUrl: gravatarUrl(username) };
}

function isSegmentAction(action: ChangeAction): boolean {
  return action === 'updateSegment' || action === 'deleteSegment';
}

function toSim(change: StoredChange): SimChange {
  // The payload was validated against its action's schema when the change was added.
  return {
    id: change.id, action: change.action, feature: change.feature, segment: change.segment, payload: JSON.parse(change.payloadJson) as unknown,
  } as SimChange;
}

function describe(change: StoredChange): string {
  const target = change.feature !== undefined ? `flag "${change.feature}"` : `segment ${change.segment}`;
  return `change ${change.id} (${change.action} on ${target})`;
}

/** The request as the API shows it (docs/rules.md §3.13 key order). */
export function changeRequestView(cr: ChangeRequestDocument): ChangeRequestView {
  const features: ChangeRequestView['features'] = [];
  const segments: ChangeRequestView['segments'] = [];
  for (const change of cr.changes) {
    const payload = JSON.parse(change.payloadJson) as unknown;
    if (change.feature === undefined) {
      segments.push({ id: change.id, action: change.action, name: change.segmentName ?? '', payload });
      continue;
    }
    let group = features.find((f) => f.name === change.feature);
    if (!group) features.push((group = { name: change.feature, changes: [] }));
    group.changes.push({
      id: change.id, action: change.action, payload, createdAt: change.createdAt.toISOString(), createdBy: change.createdBy,
    });
  }
  const review = (r: { createdBy: ChangeRequestUser; createdAt: Date }) => ({ createdBy: r.createdBy, createdAt: r.createdAt.toISOString() });
  return {
    id: cr._id,
    title: cr.title,
    environment: cr.environment,
    project: cr.project,
    minApprovals: cr.minApprovals,
    state: cr.state,
    createdBy: cr.createdBy,
    createdAt: cr.createdAt.toISOString(),
    features,
    segments,
    approvals: cr.approvals.map(review),
    rejections: cr.rejections.map(review),
    comments: [],
  };
}

/** A request's changes must name what they change: a feature for flag actions, a segment (payload.id) for segment actions. */
function checkChangeTargets(inputs: ChangeInput[]): void {
  for (const input of inputs) {
    if (isSegmentAction(input.action) && input.feature !== undefined) {
      throw validationError(`A ${input.action} change names a segment (payload.id), not a feature`);
    }
    if (!isSegmentAction(input.action) && input.feature === undefined) {
      throw validationError(`A ${input.action} change needs the name of its feature`);
    }
  }
}

/** Applies stored changes to a simulation in order; a change the live rules refuse now is skipped. */
async function applySkippingRefused(sim: Simulation, changes: readonly StoredChange[]): Promise<void> {
  for (const change of changes) {
    try {
      await sim.apply(toSim(change));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
  }
}

/** One `change-added` event per stored change. */
function changeAddedEvents(id: number, added: StoredChange[], project: string, environment: string): EventInput[] {
  return added.map((change) => ({
    type: 'change-added', featureName: change.feature ?? null, project, environment,
    data: {
      changeRequestId: id, changeId: change.id, action: change.action,
      ...(change.feature !== undefined ? { feature: change.feature } : { segment: change.segment }),
      payload: JSON.parse(change.payloadJson) as unknown,
    },
  }));
}

/**
 * Change requests (docs/rules.md §3.13, [Vane design]): a Draft collects changes, each validated when
 * added exactly as its live endpoint would validate it; review states; apply performs the changes
 * with the live rules and events, all or nothing. The preview (E3, docs/glossary.md) runs the same simulation.
 */
export class ChangeRequestService {
  constructor(
    private readonly store: ChangeRequestStore,
    private readonly flags: FlagService,
    private readonly flagDocuments: FlagDocuments,
    private readonly segmentReads: SegmentReadModel,
    private readonly segments: SegmentService,
    private readonly projects: ProjectLookup,
    private readonly environments: EnvironmentLookup,
    eventLog: EventLookup,
    private readonly outbox: Outbox,
    logger: Pick<FastifyBaseLogger, 'warn'>,
  ) {
    this.runner = new PlanRunner(store, flagDocuments, segments, eventLog, outbox, logger);
  }

  private readonly runner: PlanRunner;

  /** Finishes applies a crash interrupted after their commit point (called at start). */
  async resumeInterruptedApplies(): Promise<number> {
    return await this.runner.resumeInterrupted();
  }

  private simulation(project: string, environment: string, audit: AuditUser, now = new Date()): Simulation {
    const deps = { flags: this.flags, flagDocuments: this.flagDocuments, segmentReads: this.segmentReads, segments: this.segments };
    return new Simulation(deps, project, environment, audit, now);
  }

  private async require(project: string, id: number | string): Promise<ChangeRequestDocument> {
    const cr = await this.store.get(typeof id === 'number' ? id : parseId(id));
    if (!cr || cr.project !== project) throw notFound(`Could not find change request with id ${id}`);
    return cr;
  }

  /**
   * The request as the database has it now. A state change is validated against the state, which
   * may not have heard of another instance's change to the request yet (for up to the revision
   * poll interval): before refusing one, the request is re-read (one `_id` read, on refusals only).
   */
  private async requireCurrent(project: string, id: number): Promise<ChangeRequestDocument> {
    await this.store.refresh();
    return await this.require(project, id);
  }

  async get(project: string, id: string): Promise<ChangeRequestView> {
    return changeRequestView(await this.require(project, id));
  }

  async list(project: string): Promise<ChangeRequestView[]> {
    if (!(await this.projects.get(project))) throw notFound(`Project ${project} does not exist`);
    return (await this.store.listByProject(project)).map(changeRequestView);
  }

  // -------------------------------------------------------------------------------------------
  // adding and discarding changes

  /**
   * Appends changes to the caller's open Draft for project+environment (created when there is
   * none). Each change must apply, by the live endpoint's rules, to the current state with the
   * Draft's earlier changes applied (earlier changes that no longer apply are skipped there;
   * the apply reports them). One refused change refuses them all; nothing is stored then.
   */
  async addChanges(project: string, environment: string, inputs: ChangeInput[], audit: AuditUser): Promise<ChangeRequestView> {
    await this.requireProjectEnvironment(project, environment);
    checkChangeTargets(inputs);
    const draftKey = `${project}\n${environment}\n${audit.id ?? ''}\n${audit.name}`;
    return await this.outbox.exclusive(`change-request-draft:${draftKey}`, () =>
      retrying(async () => {
        const found = await this.store.findDraft(draftKey);
        return found
          ? await this.appendToDraft(found._id, draftKey, project, environment, inputs, audit)
          : await this.createDraft(draftKey, project, environment, inputs, audit);
      }),
    );
  }

  private async requireProjectEnvironment(project: string, environment: string): Promise<void> {
    const projectDoc = await this.projects.get(project);
    if (!projectDoc) throw notFound(`Project ${project} does not exist`);
    if (!projectDoc.environments.includes(environment) || !(await this.environments.get(environment))) {
      throw notFound(`Could not find environment with name: ${environment}`);
    }
  }

  /** Adds the changes to the caller's Draft `id`, unless it left Draft meanwhile (then the caller retries). */
  private async appendToDraft(id: number, draftKey: string, project: string, environment: string, inputs: ChangeInput[], audit: AuditUser): Promise<ChangeRequestView> {
    return await this.outbox.exclusive(`change-request:${id}`, async () => {
      const draft = await this.store.get(id);
      if (!draft || draft.draftKey !== draftKey) throw new ConcurrentModificationError('the draft left Draft meanwhile');
      const { now, nextId, added } = await this.checkedChanges(draft, project, environment, inputs, audit);
      const next: ChangeRequestDocument = { ...draft, changes: [...draft.changes, ...added], nextChangeId: nextId, updatedAt: now };
      await this.store.replace(draft, next, buildEvents(audit, changeAddedEvents(draft._id, added, project, environment), { at: now }));
      return changeRequestView(next);
    });
  }

  /** A new Draft holding the changes, unless another request created the caller's Draft first (then the caller retries and appends). */
  private async createDraft(draftKey: string, project: string, environment: string, inputs: ChangeInput[], audit: AuditUser): Promise<ChangeRequestView> {
    const { now, nextId, added } = await this.checkedChanges(null, project, environment, inputs, audit);
    const created = await this.store.insertNew((id) => {
      const doc: ChangeRequestDocument = {
        _id: id, title: `Change request #${id}`, environment, project, minApprovals: 1, state: 'Draft',
        createdBy: userOf(audit), createdAt: now, updatedAt: now, changes: added, nextChangeId: nextId,
        approvals: [], rejections: [], draftKey,
      };
      const events = buildEvents(audit, [
        { type: 'change-request-created', project, environment, data: { changeRequestId: id, title: doc.title } },
        ...changeAddedEvents(id, added, project, environment),
      ], { at: now });
      return { doc, events };
    });
    if (!created) throw new ConcurrentModificationError('the draft was created meanwhile');
    return changeRequestView(created);
  }

  /**
   * The inputs as stored changes, numbered after the draft's, once each has applied by its live
   * endpoint's rules over the current state with the draft's earlier changes (those that no longer
   * apply are skipped, as the apply will skip them); a refused input throws.
   */
  private async checkedChanges(draft: ChangeRequestDocument | null, project: string, environment: string, inputs: ChangeInput[], audit: AuditUser) {
    const sim = await this.simulation(project, environment, audit).load();
    await applySkippingRefused(sim, draft?.changes ?? []);
    for (const input of inputs) await sim.apply(input);
    const now = new Date();
    const user = userOf(audit);
    let nextId = draft?.nextChangeId ?? 1;
    const added: StoredChange[] = [];
    for (const input of inputs) {
      const change: StoredChange = {
        id: nextId++, action: input.action, payloadJson: JSON.stringify(input.payload ?? {}), createdAt: now, createdBy: user,
      };
      if (input.feature !== undefined) change.feature = input.feature;
      else {
        change.segment = input.segment!;
        change.segmentName = (await this.segmentReads.get(input.segment!))?.name ?? '';
      }
      added.push(change);
    }
    return { now, nextId, added };
  }

  async discardChange(project: string, idText: string, changeIdText: string, audit: AuditUser): Promise<ChangeRequestView> {
    const id = (await this.require(project, idText))._id;
    return await this.outbox.exclusive(`change-request:${id}`, () =>
      retrying(async () => {
        const cr = await this.require(project, id);
        const changeId = parseId(changeIdText);
        const change = cr.changes.find((c) => c.id === changeId);
        if (!change) throw notFound(`Could not find change with id ${changeIdText} in change request ${id}`);
        if (cr.state !== 'Draft' && cr.state !== 'In review') {
          throw conflict(`Changes can only be discarded while the change request is Draft or In review; change request #${id} is ${cr.state}`);
        }
        const now = new Date();
        const next: ChangeRequestDocument = { ...cr, changes: cr.changes.filter((c) => c.id !== changeId), updatedAt: now };
        await this.store.replace(cr, next, buildEvents(audit, [{
          type: 'change-discarded', featureName: change.feature ?? null, project, environment: cr.environment,
          data: {
            changeRequestId: id, changeId, action: change.action,
            ...(change.feature !== undefined ? { feature: change.feature } : { segment: change.segment }),
          },
        }], { at: now }));
        return changeRequestView(next);
      }),
    );
  }

  // -------------------------------------------------------------------------------------------
  // states

  async setState(project: string, idText: string, state: ChangeRequestState, audit: AuditUser): Promise<ChangeRequestView> {
    const id = (await this.require(project, idText))._id;
    if (state === 'Scheduled') throw validationError('Scheduling change requests is not supported');
    return await this.outbox.exclusive(`change-request:${id}`, async () => {
      let cr = await this.require(project, id);
      if (cr.applying || !TRANSITIONS[cr.state].includes(state)) cr = await this.requireCurrent(project, id);
      if (cr.applying) throw conflict(`Change request #${id} is being applied`);
      if (!TRANSITIONS[cr.state].includes(state)) {
        const allowed = TRANSITIONS[cr.state];
        throw conflict(
          `Change request #${id} is ${cr.state} and cannot become ${state}` +
            (allowed.length ? ` (allowed: ${allowed.join(', ')})` : ' (it is final)'),
        );
      }
      if (state === 'In review' && cr.changes.length === 0) {
        throw validationError(`Change request #${id} has no changes to review`);
      }
      if (state === 'Applied') return await this.apply(cr, audit);
      return await retrying(async () => {
        const current = await this.require(project, id);
        if (current.state !== cr.state) throw conflict(`Change request #${id} changed state meanwhile (now ${current.state})`);
        const now = new Date();
        const review = { createdBy: userOf(audit), createdAt: now };
        // A key set to undefined would be stored as null: the draft key is left out instead.
        const { draftKey: _draftKey, ...kept } = current;
        const next: ChangeRequestDocument = {
          ...kept,
          state,
          updatedAt: now,
          approvals: state === 'Approved' ? [...current.approvals, review] : current.approvals,
          rejections: state === 'Rejected' ? [...current.rejections, review] : current.rejections,
        };
        await this.store.replace(current, next, buildEvents(audit, [{
          type: STATE_EVENTS[state]!, project, environment: current.environment, data: { changeRequestId: id, state },
        }], { at: now }));
        return changeRequestView(next);
      });
    });
  }

  /**
   * Approved → Applied, all or nothing.
   *
   * 1. Under the request's lock and the locks of every flag it names (in name order, so two
   *    applies never deadlock; live flag writes of this process wait), the dry run applies every
   *    change in order to the current state in memory. A change that no longer applies (its
   *    strategy was deleted meanwhile, the flag was archived, …) stops the apply: 409 naming the
   *    change and the reason; nothing has been written.
   * 2. The dry run fixed the writes: one replace per changed flag document (conditional on the
   *    revision the dry run read, carrying that flag's normal events, built now with their keys)
   *    and one segment-service call per changed segment (its final state).
   * 3. Commit point: the plan is saved on the request (`applying`). From here the apply is
   *    rolled forward, never back.
   * 4. The writes run (PlanRunner.finish), then the request becomes Applied with
   *    `change-request-applied`.
   *
   * A crash during 4 is finished by the next start (apply-plan.ts).
   */
  private async apply(cr: ChangeRequestDocument, audit: AuditUser): Promise<ChangeRequestView> {
    const names = [...new Set(cr.changes.flatMap((c) => (c.feature !== undefined ? [c.feature] : [])))].sort();
    return await this.withLocks(names.map((n) => `flag:${n}`), async () => {
      let current = await this.require(cr.project, cr._id);
      if (current.state !== 'Approved' || current.applying) current = await this.requireCurrent(cr.project, cr._id);
      if (current.state !== 'Approved' || current.applying) throw conflict(`Change request #${cr._id} changed state meanwhile (now ${current.state})`);
      // Several instances may be asked at once: one claim wins, the others answer 409.
      if (!(await this.store.claimApply(cr._id))) throw conflict(`Change request #${cr._id} is being applied`);
      try {
        return await this.planAndApply(current, cr, audit);
      } catch (err) {
        const after = await this.store.get(cr._id);
        // Before the commit point nothing was written: another attempt may apply it later.
        if (!after?.applying && after?.state === 'Approved') await this.store.releaseApply(cr._id);
        throw err;
      }
    });
  }

  private async planAndApply(current: ChangeRequestDocument, cr: ChangeRequestDocument, audit: AuditUser): Promise<ChangeRequestView> {
    const now = new Date();
    const sim = await this.simulation(current.project, current.environment, audit, now).load();
    for (const change of current.changes) {
      try {
        await sim.apply(toSim(change));
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        throw conflict(`Change request #${cr._id} cannot be applied: ${describe(change)} no longer applies: ${err.message}`);
      }
    }
    const plan: ApplyPlan = {
      at: now,
      audit,
      flagWrites: sim.flagWrites().map((w) => ({ name: w.name, rev: w.original._rev ?? 0, next: w.next, events: w.events, changeIds: w.changeIds })),
      segmentOps: sim.segmentOps(),
    };
    const committed: ChangeRequestDocument = { ...current, applying: BSON.EJSON.stringify(plan), updatedAt: now };
    await this.store.replace(current, committed, []);
    return changeRequestView(await this.runner.finish(cr._id, plan));
  }

  private async withLocks<T>(keys: string[], fn: () => Promise<T>): Promise<T> {
    if (keys.length === 0) return await fn();
    return await this.outbox.exclusive(keys[0]!, () => this.withLocks(keys.slice(1), fn));
  }

  // -------------------------------------------------------------------------------------------
  // preview (E3)

  /**
   * What E3 evaluates: the request's project and environment, and the flags and segments its
   * changes alter, applied in order in memory (changes that no longer apply are skipped, as the
   * apply would refuse them). Final-state requests preview the current state. No write, no event.
   */
  async preview(idText: string): Promise<{ cr: ChangeRequestDocument; changes?: SnapshotChanges; changesKey?: string }> {
    const cr = await this.store.get(parseId(idText));
    if (!cr) throw notFound(`Could not find change request with id ${idText}`);
    if (FINAL_STATES.has(cr.state) || cr.changes.length === 0) return { cr };
    const sim = await this.simulation(cr.project, cr.environment, { name: 'preview', id: null }).load();
    await applySkippingRefused(sim, cr.changes);
    const changes = sim.snapshotChanges();
    if (Object.keys(changes).length === 0) return { cr };
    // Keyed by content: the same request previews differently once the flags under it change.
    const changesKey = `${cr._id}:${createHash('sha1').update(JSON.stringify(changes)).digest('hex')}`;
    return { cr, changes, changesKey };
  }
}
