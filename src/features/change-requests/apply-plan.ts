import type { FastifyBaseLogger } from 'fastify';
import { BSON } from 'mongodb';
import { buildEvents, ConcurrentModificationError, retrying, type AuditUser, type Outbox, type PendingEvent } from '../../db/outbox/index.js';
import { ApiError, notFound } from '../../errors.js';
import type { FlagData } from '../flags/read-model.js';
import type { SegmentService } from '../segments/service.js';
import type { SegmentOp } from './simulate.js';
import type { EventLookup, FlagDocuments } from './sources.js';
import type { ChangeRequestDocument, ChangeRequestStore } from './store.js';

/**
 * The writes an apply performs, fixed by its dry run and saved on the request before the first
 * of them (the commit point). Everything needed to finish them after a crash is in here.
 */
export interface ApplyPlan {
  at: Date;
  audit: AuditUser;
  flagWrites: Array<{ name: string; rev: number; next: FlagData; events: PendingEvent[]; changeIds: number[] }>;
  segmentOps: SegmentOp[];
}

/**
 * Step 4 of an apply (ChangeRequestService.apply), also after a crash: the planned writes, each
 * recognised as done by its events or its flag's revision, then the Applied state.
 *
 * If the process dies during these writes, the next start (initialiseState → resumeInterruptedApplies)
 * finds the request still carrying `applying` and runs the plan again: each flag write is
 * recognised as done when one of its event keys is already in the log (the start appends every
 * committed event first: Outbox.eventsAppended), and otherwise performed if the flag is still at
 * the planned revision;
 * segment updates are idempotent (same final state, no event when nothing changes) and a
 * segment already deleted counts as done. Limitation: if a flag was changed by someone else
 * between the crash and the resume (another instance, since this one resumes before serving),
 * its planned write no longer matches and is not forced; it is recorded in the request's
 * `applyErrors` and logged, and the rest is still applied. (Another instance starting while
 * this one is in step 4 would also resume the plan; each write names the revision it planned
 * on, and the commit log lets only one write of a revision through.)
 */
export class PlanRunner {
  constructor(
    private readonly store: ChangeRequestStore,
    private readonly flagDocuments: FlagDocuments,
    private readonly segments: SegmentService,
    private readonly eventLog: EventLookup,
    private readonly outbox: Outbox,
    private readonly logger: Pick<FastifyBaseLogger, 'warn'>,
  ) {}

  /** Steps 4 of `apply` (also after a crash): the planned writes, then the Applied state. */
  async finish(id: number, plan: ApplyPlan): Promise<ChangeRequestDocument> {
    const errors = await this.execute(plan);
    if (errors.length) this.logger.warn({ changeRequestId: id, errors }, 'change request applied with errors');
    return await retrying(async () => {
      const current = await this.store.get(id);
      if (!current) throw notFound(`Could not find change request with id ${id}`);
      const now = new Date();
      const { applying: _applying, draftKey: _draftKey, ...kept } = current;
      const next: ChangeRequestDocument = {
        ...kept,
        state: 'Applied',
        updatedAt: now,
        ...(errors.length ? { applyErrors: errors } : {}),
      };
      await this.store.replace(current, next, buildEvents(plan.audit, [{
        type: 'change-request-applied', project: current.project, environment: current.environment,
        data: { changeRequestId: id, state: 'Applied' },
      }], { at: now }));
      return next;
    });
  }

  private async execute(plan: ApplyPlan): Promise<string[]> {
    const errors: string[] = [];
    const store = this.flagDocuments;
    for (const write of plan.flagWrites) {
      const keys = new Set(write.events.map((e) => e.key));
      const doc = await store.get(write.name);
      if (await this.eventLog.has(keys)) continue;
      if (doc && keys.size === 0 && doc._rev !== write.rev) continue;
      const failed = `flag "${write.name}" changed before the change request's write (changes ${write.changeIds.join(', ')} not applied)`;
      if (!doc || doc._rev !== write.rev) {
        errors.push(failed);
        continue;
      }
      try {
        await store.replace(doc, write.next, write.events);
      } catch (err) {
        if (!(err instanceof ConcurrentModificationError)) throw err;
        errors.push(failed);
      }
    }
    for (const op of plan.segmentOps) {
      try {
        if (op.kind === 'update') await this.segments.update(op.id, op.input, plan.audit);
        else if ((await this.segments.delete(op.id, plan.audit)) === 'in-use') {
          errors.push(`segment ${op.id} is in use and was not deleted (changes ${op.changeIds.join(', ')})`);
        }
      } catch (err) {
        if (op.kind === 'delete' && err instanceof ApiError && err.statusCode === 404) continue; // deleted already
        if (!(err instanceof ApiError)) throw err;
        errors.push(`segment ${op.id}: ${err.message} (changes ${op.changeIds.join(', ')})`);
      }
    }
    return errors;
  }

  /** Finishes applies a crash interrupted after their commit point (called at start). */
  async resumeInterrupted(): Promise<number> {
    const pending = await this.store.listApplying();
    for (const cr of pending) {
      await this.outbox.exclusive(`change-request:${cr._id}`, async () => {
        await this.finish(cr._id, BSON.EJSON.parse(cr.applying!) as ApplyPlan);
      });
    }
    return pending.length;
  }
}
