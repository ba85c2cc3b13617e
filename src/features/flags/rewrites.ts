/**
 * A flag's changes that follow from something else and record no event of their own: a new
 * environment, a strategy's segments set through the segments' route, an SDK's report moving the
 * lifecycle, a tag or tag type deleted (Unleash's foreign keys cascade). Each goes through the same
 * per-flag lock and commit as a mutation (FlagService.mutate), with no events.
 */
import { setTimeout } from 'node:timers/promises';
import { retrying, withoutBookkeeping, type Outbox } from '../../db/outbox/index.js';
import type { StrategyConfig } from '../../evaluation/types.js';
import { lifecycleAfterMetrics } from './apply.js';
import type { FlagData, FlagDocument } from './read-model.js';
import type { EnvironmentSource } from './sources.js';
import type { FlagStore } from './store.js';
import type { TagRef } from './tags.js';
import { emptyEnvironment } from './views.js';

/**
 * Flags whose lifecycle an SDK's report moves, per commit. The first reports after a start move
 * every flag (2 000 flags in two environments: 4 000 one-flag commits, each a turn of FerretDB's
 * one writer, in the soak's first minute). A flag is rewritten whole (~5 KB), and an admin write
 * can wait behind one such commit: 16 keeps it near 80 KB (64, 300 KB, gave the soak's first 5 s
 * a write p99 of 3.6 s with the pacing below).
 */
const LIFECYCLE_BATCH = 16;
/** Lifecycle commits keep the writer at most 1 / (1 + LIFECYCLE_PACE) of the time (`moveLifecycles`). */
const LIFECYCLE_PACE = 4;

export class FlagRewrites {
  /** Flags SDKs reported, by environment, that the lifecycle writer has not looked at yet. */
  private readonly reported = new Map<string, Set<string>>();
  /** The one lifecycle writer of this process, while it runs. */
  private following: Promise<void> | undefined;
  /** When the next lifecycle commit may start (performance.now()). */
  private nextLifecycleAt = 0;

  constructor(
    private readonly store: FlagStore,
    private readonly environments: EnvironmentSource,
    private readonly outbox: Outbox,
  ) {}

  /**
   * A new environment reaches every flag (archived ones too) as a disabled feature-environment
   * without strategies, without events (the `environment-created` event says it).
   */
  async addEnvironment(environment: string): Promise<void> {
    await this.rewriteEach(await this.store.all(), (flag) => (flag.environments[environment]
      ? null
      : { ...flag, environments: { ...flag.environments, [environment]: emptyEnvironment() } }));
  }

  /**
   * Rewrites one strategy, without an event, as `change` returns it (null: unchanged): what
   * `POST /api/admin/segments/strategies` does (Unleash 8.2 records no event for it, measured).
   * False when no flag has the strategy.
   */
  async rewriteStrategy(strategyId: string, change: (strategy: StrategyConfig) => StrategyConfig | null): Promise<boolean> {
    const owner = await this.store.findByStrategyId(strategyId);
    if (!owner) return false;
    await this.rewriteEach([owner], (flag) => {
      let changed = false;
      const environments = Object.fromEntries(Object.entries(flag.environments).map(([name, env]) => {
        const strategies = env.strategies.map((s) => (s.id === strategyId ? change(s) ?? s : s));
        if (strategies.every((s, i) => s === env.strategies[i])) return [name, env];
        changed = true;
        return [name, { ...env, strategies }];
      }));
      return changed ? { ...flag, environments } : null;
    });
    return true;
  }

  /**
   * SDKs reported evaluating these flags in `environment`: each moves on in its lifecycle
   * (`lifecycleAfterMetrics`). Checked in memory; written only when a stage changes, which is at
   * most twice in a flag's life. One writer per process takes the reports' flags in turn, so at
   * most one lifecycle commit waits in the commit turn: with each report writing its own batches,
   * the first reports of three SDKs at 2 000 flags queued their lifecycle commits side by side,
   * and admin writes waited behind all of them (5 s write p99 in the soak's first 15 s).
   */
  async metricsSeen(environment: string, featureNames: readonly string[]): Promise<void> {
    let names = this.reported.get(environment);
    if (!names) this.reported.set(environment, (names = new Set()));
    for (const name of featureNames) names.add(name);
    await this.follow();
  }

  private follow(): Promise<void> {
    this.following ??= this.followReports().finally(() => {
      this.following = undefined;
      // Flags reported after the loop's last look and before this: the next report would take
      // them too; a failure here is that report's to log.
      if (this.reported.size > 0) this.follow().catch(() => undefined);
    });
    return this.following;
  }

  private async followReports(): Promise<void> {
    for (let next = this.reported.entries().next(); !next.done; next = this.reported.entries().next()) {
      const [environment, names] = next.value;
      this.reported.delete(environment);
      await this.moveLifecycles(environment, [...names]);
    }
  }

  private async moveLifecycles(environment: string, featureNames: readonly string[]): Promise<void> {
    const env = (await this.environments.list()).find((e) => e.name === environment);
    if (!env) return;
    const production = env.type === 'production';
    const change = (flag: FlagData): FlagData | null => {
      const lifecycle = lifecycleAfterMetrics(flag, environment, production, new Date());
      return lifecycle === flag.lifecycle ? null : { ...flag, lifecycle };
    };
    const due = featureNames.map((name) => this.store.getNow(name)).filter((flag): flag is FlagDocument => flag !== null && change(flag) !== null);
    for (let start = 0; start < due.length; start += LIFECYCLE_BATCH) {
      // Paced to a fifth of the writer: the first reports at 2 000 flags rewrite every flag in
      // two environments (~20 MB per instance), which back to back held FerretDB's one writer
      // for the soak's first seconds (admin write p99 6 s in that window).
      const wait = this.nextLifecycleAt - performance.now();
      if (wait > 0) await setTimeout(wait);
      const started = performance.now();
      await this.rewriteTogether(due.slice(start, start + LIFECYCLE_BATCH), change);
      this.nextLifecycleAt = performance.now() + LIFECYCLE_PACE * (performance.now() - started);
    }
  }

  /** The flags' tags that `drop` matches, removed (a cascade, one write per flag). */
  async dropTags(drop: (tag: TagRef) => boolean): Promise<void> {
    await this.rewriteEach(await this.store.all(), (flag) => (flag.tags.some(drop) ? { ...flag, tags: flag.tags.filter((tag) => !drop(tag)) } : null));
  }

  /**
   * Rewrites `flags` as `change` returns them, in one commit, under all their locks (KeyedLock.run),
   * each read again there.
   */
  private async rewriteTogether(flags: readonly FlagData[], change: (flag: FlagData) => FlagData | null): Promise<void> {
    await this.outbox.exclusive(flags.map((flag) => `flag:${flag.name}`), () => retrying(async () => {
      const writes = flags.flatMap((flag) => {
        const current = this.store.getNow(flag.name);
        const next = current && change(withoutBookkeeping(current) as FlagData);
        return current && next ? [{ current, next }] : [];
      });
      if (writes.length) await this.store.writeMany(writes, []);
    }));
  }

  /**
   * Rewrites each of `flags` that `change` changes (null: nothing to do), one at a time under its
   * lock and read again there. `change` is pure: asked first of the flag as given, then of the
   * flag as read under the lock.
   */
  private async rewriteEach(flags: Iterable<FlagData>, change: (flag: FlagData) => FlagData | null): Promise<void> {
    for (const flag of flags) {
      if (!change(flag)) continue;
      await this.outbox.exclusive(`flag:${flag.name}`, () => retrying(async () => {
        const current = await this.store.get(flag.name);
        const next = current && change(withoutBookkeeping(current) as FlagData);
        if (current && next) await this.store.replace(current, next, []);
      }));
    }
  }
}
