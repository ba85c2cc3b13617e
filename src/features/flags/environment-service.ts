/**
 * One environment of a flag, its strategies' order and patches, and the flags a flag may depend
 * on, over the flag service's reads and its one write path (`FlagService.mutate`). Answers and
 * events as Unleash 8.2's (measured; the rules are environment-edits.ts).
 */
import type { AuditUser } from '../../db/outbox/index.js';
import { notFound, validationError } from '../../errors.js';
import type { StrategyConfig } from '../../evaluation/types.js';
import { applyUpdateStrategy } from './apply.js';
import {
  applyStrategyOrder, environmentView, patchedStrategyInput, possibleParents, strategyHome, UNKNOWN_STRATEGY_ORDER,
} from './environment-edits.js';
import type { PatchOperation } from './json-patch.js';
import type { EnvironmentView } from './schemas.js';
import type { FlagService } from './service.js';

export class FlagEnvironmentService {
  constructor(private readonly flags: FlagService) {}

  /** Archived flags too (measured: 200). */
  async view(projectId: string, featureName: string, environment: string): Promise<EnvironmentView> {
    return environmentView(await this.flags.requireFlag(projectId, featureName), environment);
  }

  /** The child's own project, whatever the path names; an unknown child has none (measured: 200 `[]`). */
  async possibleParents(featureName: string): Promise<string[]> {
    const child = await this.flags.store.get(featureName);
    if (!child) return [];
    return possibleParents(await this.flags.store.listByProject(child.project), featureName);
  }

  /**
   * Unleash reads the environment's strategies in the path's project: under another project there
   * are none, so an empty order is a 200 that changes nothing and any id the 400 (measured).
   */
  async setStrategyOrder(
    projectId: string, featureName: string, environment: string, order: ReadonlyArray<{ id: string; sortOrder: number }>, audit: AuditUser,
  ): Promise<void> {
    const flag = await this.flags.store.get(featureName);
    if (!flag?.environments[environment]) throw notFound(`Feature ${featureName} does not have environment ${environment}`);
    if (flag.project !== projectId) {
      if (order.length > 0) throw validationError(UNKNOWN_STRATEGY_ORDER);
      return;
    }
    await this.flags.mutate(projectId, featureName, audit, (current) => applyStrategyOrder(current, environment, order));
  }

  /**
   * The strategy is found by id: 404 when no flag has it, 403 when another flag or project does;
   * the patch is applied where the strategy is, the event names the path's environment.
   */
  async patchStrategy(
    projectId: string, featureName: string, environment: string, strategyId: string, patch: PatchOperation[], audit: AuditUser,
  ): Promise<StrategyConfig> {
    const owner = await this.flags.store.findByStrategyId(strategyId);
    const found = owner && strategyHome(owner, strategyId);
    if (!found) throw notFound(`Could not find strategy with id: ${strategyId}`);
    await this.flags.strategies.assertNotElsewhere({ name: featureName, project: projectId }, strategyId);
    // Checked once before the write for the segments the context needs, then again on the flag as read under its lock.
    const segments = patchedStrategyInput(found.strategy, patch).segments;
    return await this.flags.mutate(projectId, featureName, audit, async (flag, ctx) => {
      const home = strategyHome(flag, strategyId);
      if (!home) throw notFound(`Could not find strategy with id: ${strategyId}`);
      const input = patchedStrategyInput(home.strategy, patch);
      await this.flags.strategies.assertLegalConstraints(input);
      return applyUpdateStrategy(flag, environment, strategyId, input, ctx, home.environment);
    }, segments);
  }
}
