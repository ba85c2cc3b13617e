/**
 * A flag's lifecycle list and its completion (`…/features/:featureName/lifecycle`), as Unleash 8.2
 * answers them (measured, test/fixtures/flag-lifecycle/reference.json): the flag is found by name
 * alone (the path's project is only recorded in the event), and completing or uncompleting a flag
 * that does not exist still answers 200 and records its event, as Unleash does. Completing a
 * completed flag keeps the first completion (its status too) and records the event again.
 */
import { buildEvents, retrying, withoutBookkeeping, type AuditUser, type EventInput, type Outbox } from '../../db/outbox/index.js';
import { lifecycleView, withoutStage, withStage } from './lifecycle.js';
import type { FlagData, FlagLifecycle } from './read-model.js';
import type { FlagStore } from './store.js';
import { plainTags } from './tags.js';

export interface CompletionInput {
  status: 'kept' | 'discarded';
  statusValue?: string;
}

export class FlagLifecycleService {
  constructor(private readonly store: FlagStore, private readonly outbox: Outbox) {}

  /** An unknown flag has no stages (measured: 200 `[]`). */
  async stages(featureName: string): Promise<ReturnType<typeof lifecycleView>> {
    const flag = await this.store.get(featureName);
    return flag ? lifecycleView(flag.lifecycle) : [];
  }

  /** The event's data is the body as sent, then `kept`. */
  async complete(projectId: string, featureName: string, input: CompletionInput, audit: AuditUser): Promise<void> {
    const event = { type: 'feature-completed', featureName, project: projectId, data: { ...input, kept: input.status === 'kept' } };
    const { status, statusValue } = input;
    await this.change(featureName, audit, event, (lifecycle, now) =>
      withStage(lifecycle, { stage: 'completed', enteredStageAt: now, status, ...(statusValue === undefined ? {} : { statusValue }) }));
  }

  async uncomplete(projectId: string, featureName: string, audit: AuditUser): Promise<void> {
    await this.change(featureName, audit, { type: 'feature-uncompleted', featureName, project: projectId }, (lifecycle) => withoutStage(lifecycle, 'completed'));
  }

  /** The flag's lifecycle changed by `next` and the event, one commit; only the event when there is no flag. */
  private async change(
    featureName: string, audit: AuditUser, input: EventInput, next: (lifecycle: FlagLifecycle, now: Date) => FlagLifecycle,
  ): Promise<void> {
    await this.outbox.exclusive(`flag:${featureName}`, () => retrying(async () => {
      const now = new Date();
      const current = await this.store.get(featureName);
      const tags = current ? plainTags(current.tags) : [];
      const events = buildEvents(audit, [{ ...input, tags }], { transactional: true, at: now });
      if (!current) return await this.outbox.write([], events);
      const flag = withoutBookkeeping(current) as FlagData;
      const lifecycle = next(flag.lifecycle, now);
      if (lifecycle === flag.lifecycle) return await this.outbox.write([], events);
      await this.store.replace(current, { ...flag, lifecycle }, events);
    }));
  }
}
