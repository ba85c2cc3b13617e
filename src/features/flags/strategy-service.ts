/**
 * A flag's strategies in one environment: read, added, updated, deleted and reordered through
 * FlagService.mutate, with the checks Unleash 8.2 makes before (legal values, a strategy id of
 * another flag) and after (a segment deleted meanwhile by another instance).
 */
import type { AuditUser } from '../../db/outbox/index.js';
import { conflict, invalidOperation, notFound } from '../../errors.js';
import type { StrategyConfig } from '../../evaluation/types.js';
import { assertLegalValues } from '../constraints/index.js';
import {
  applyAddStrategy, applyDeleteStrategy, applyReorderStrategies, applyUpdateStrategy, environmentOf, type StrategyInput,
} from './apply.js';
import type { FlagData } from './read-model.js';
import type { FlagService } from './service.js';
import type { ContextFieldSource, SegmentSource } from './sources.js';
import { sortStrategies } from './views.js';

export class FlagStrategyService {
  constructor(
    private readonly flags: FlagService,
    private readonly segments: SegmentSource,
    private readonly contextFields: ContextFieldSource,
  ) {}

  async list(projectId: string, featureName: string, environment: string): Promise<StrategyConfig[]> {
    const flag = await this.flags.requireFlag(projectId, featureName);
    const state = environmentOf(flag, environment, await this.flags.context(flag));
    return sortStrategies(state.strategies);
  }

  async get(projectId: string, featureName: string, environment: string, strategyId: string): Promise<StrategyConfig> {
    const strategy = (await this.list(projectId, featureName, environment)).find((s) => s.id === strategyId);
    if (!strategy) throw notFound(`Could not find strategy with id ${strategyId}`);
    return strategy;
  }

  /** Each constraint uses only its field's legal values, when it has some (Unleash 8.2, measured). */
  async assertLegalConstraints(input: StrategyInput): Promise<void> {
    for (const constraint of input.constraints ?? []) {
      if (typeof constraint?.contextName !== 'string') continue; // the shape's own checks answer
      assertLegalValues(constraint as { operator: string; value?: string; values?: string[] }, await this.contextFields.legalValues(constraint.contextName));
    }
  }

  /** A strategy id of another flag or project is refused with 403 (docs/rules.md §1.4 S4). */
  async assertNotElsewhere(flag: Pick<FlagData, 'name' | 'project'>, strategyId: string): Promise<void> {
    const owner = await this.flags.store.findByStrategyId(strategyId);
    if (!owner || (owner.name === flag.name && owner.project === flag.project)) return;
    if (owner.project !== flag.project) throw invalidOperation('You can not change the projectId for an activation strategy.');
    throw invalidOperation('You can not change the featureName for an activation strategy.');
  }

  async add(projectId: string, featureName: string, environment: string, input: StrategyInput, audit: AuditUser): Promise<StrategyConfig> {
    await this.assertLegalConstraints(input);
    const added = await this.flags.mutate(projectId, featureName, audit, (flag, ctx) => applyAddStrategy(flag, environment, input, ctx), input.segments);
    // A segment deleted meanwhile by another instance (see SegmentService.delete): checked after
    // the write, as the database has it now (SegmentStore.missingNow); the strategy is taken back
    // rather than left dangling.
    const gone = input.segments?.length ? await this.segments.missingNow(input.segments) : [];
    if (gone.length) {
      await this.flags.mutate(projectId, featureName, audit, (flag, ctx) => applyDeleteStrategy(flag, environment, added.id, ctx));
      throw conflict(`Segment ${gone.join(', ')} was deleted while the strategy was added; the strategy was not kept.`);
    }
    return added;
  }

  async update(
    projectId: string, featureName: string, environment: string, strategyId: string, input: StrategyInput, audit: AuditUser,
  ): Promise<StrategyConfig> {
    await this.assertLegalConstraints(input);
    return await this.flags.mutate(projectId, featureName, audit, async (flag, ctx) => {
      const here = flag.environments[environment]?.strategies.some((s) => s.id === strategyId);
      if (!here) await this.assertNotElsewhere(flag, strategyId);
      return applyUpdateStrategy(flag, environment, strategyId, input, ctx);
    }, input.segments);
  }

  async delete(projectId: string, featureName: string, environment: string, strategyId: string, audit: AuditUser): Promise<void> {
    await this.flags.mutate(projectId, featureName, audit, (flag, ctx) => applyDeleteStrategy(flag, environment, strategyId, ctx));
  }

  async reorder(
    projectId: string, featureName: string, environment: string, order: Array<{ id: string; sortOrder: number }>, audit: AuditUser,
  ): Promise<void> {
    await this.flags.mutate(projectId, featureName, audit, (flag, ctx) => applyReorderStrategies(flag, environment, order, ctx));
  }
}
