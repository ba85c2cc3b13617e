import {
  buildEvents, retrying, withoutBookkeeping, type AuditUser, type Outbox,
} from '../../db/outbox/index.js';
import { isDuplicateKey } from '../../db/keys.js';
import { ReadCache } from '../../db/read-cache.js';
import { exceedsLimit, nameExists, notFound } from '../../errors.js';
import type { VariantConfig } from '../../evaluation/types.js';
import type { TagService } from '../tags/service.js';
import { plainTags } from './tags.js';
import {
  applyAddDependency, applyArchive, applyPatchVariants, applyRemoveDependencies, applyRemoveDependency, applyRevive,
  applySetEnabled, applySetVariants, environmentOf, newFlag, type Applied, type ApplyContext, type CreateFlagInput,
  type DependencyInput, type SegmentInfo,
} from './apply.js';
import type { PatchOperation } from './json-patch.js';
import { applyPatchMetadata, applyReplaceMetadata, applyStale, type MetadataInput } from './metadata.js';
import type { FlagData, FlagDocument } from './read-model.js';
import { FlagRewrites } from './rewrites.js';
import { checkFlagName, LIMITS, type VariantInput } from './rules.js';
import type { FeatureCreatedView, FeatureListItemView, FeatureView } from './schemas.js';
import type {
  CollaboratorSource, ContextFieldSource, EnvironmentSource, FlagProject, ProjectSource, SegmentSource, StrategyTypeSource, UsageSource,
} from './sources.js';
import type { FlagStore } from './store.js';
import { FlagStrategyService } from './strategy-service.js';
import { FlagTagService } from './tag-service.js';
import {
  flagCreatedFullView, flagCreatedView, flagView, listItemViews, withLastSeen, withUsage, type EnvironmentInfo,
} from './views.js';

function nameTaken(flag: FlagData): Error {
  return nameExists(flag.archived ? 'An archived flag with that name already exists' : 'A flag with that name already exists');
}

/**
 * Flag rules with plain inputs (projectId, featureName, environment, payload, audit). Every
 * mutation reads the flag, applies one of the pure functions of apply.ts and writes the result
 * with its events as one commit, serialised per flag (`mutate`). A flag's strategies, its tags and
 * the rewrites that follow from other features' changes are the three services it holds.
 */
export class FlagService {
  readonly strategies: FlagStrategyService;
  readonly tagging: FlagTagService;
  readonly rewrites: FlagRewrites;

  constructor(
    readonly store: FlagStore,
    private readonly projects: ProjectSource,
    private readonly environments: EnvironmentSource,
    private readonly strategyTypes: StrategyTypeSource,
    private readonly tags: TagService,
    private readonly segments: SegmentSource,
    private readonly usage: UsageSource,
    private readonly outbox: Outbox,
    contextFields: ContextFieldSource = { legalValues: async () => [] },
    private readonly collaborators?: CollaboratorSource,
  ) {
    this.views = new ReadCache(outbox);
    this.rewrites = new FlagRewrites(store, environments, outbox);
    this.strategies = new FlagStrategyService(this, segments, contextFields);
    this.tagging = new FlagTagService(this, tags, this.rewrites);
  }

  private readonly views: ReadCache;

  /**
   * The last list per project with what it was built from: the same array until the revision or a
   * last-seen time changes, so the route keeps its JSON by the array's identity.
   */
  private readonly listMemo = new Map<string, { views: readonly object[]; seen: object; list: FeatureListItemView[] }>();

  // -------------------------------------------------------------------------------------------
  // reading

  /** Environments connected to a project, in sortOrder. */
  async projectEnvironments(project: FlagProject | null): Promise<EnvironmentInfo[]> {
    if (!project) return [];
    const connected = new Set(project.environments);
    return (await this.environments.list())
      .filter((env) => connected.has(env.name))
      .map((env) => ({ name: env.name, type: env.type, sortOrder: env.sortOrder }));
  }

  /**
   * The flag if it belongs to `projectId` (archived ones too, unless `archived: false`), else 404
   * with Unleash's message (naming the project that does have it).
   */
  async requireFlag(projectId: string, featureName: string, options: { archived?: boolean } = {}): Promise<FlagDocument> {
    const flag = await this.store.get(featureName);
    if (flag && flag.project === projectId) {
      if (options.archived !== false || !flag.archived) return flag;
      throw notFound(`Could not find feature flag with name ${featureName}`); // an archived one (measured)
    }
    const elsewhere = flag && flag.project !== projectId ? `, but there's a feature with that name in project "${flag.project}"` : '.';
    throw notFound(`There's no feature named "${featureName}" in project "${projectId}"${elsewhere}`);
  }

  /** Builds what the pure rules need for `flag` (segments: only those `segmentIds` names). */
  async context(flag: FlagData, segmentIds: number[] = [], now = new Date()): Promise<ApplyContext> {
    const project = await this.projects.get(flag.project);
    const envs = await this.projectEnvironments(project);
    const types = await this.strategyTypes.list();
    const segments = new Map<number, SegmentInfo>();
    for (const id of new Set(segmentIds)) {
      const segment = await this.segments.get(id);
      if (segment) segments.set(id, segment);
    }
    return {
      now,
      strategyTypes: new Set(types.map((t) => t.name)),
      segments,
      environments: new Map(envs.map((e) => [e.name, e])),
      defaultStickiness: project?.defaultStickiness ?? 'default',
      defaultStrategies: project?.defaultStrategies,
    };
  }

  /** Served per revision from memory (see ReadCache): a flag's view changes only with a write. */
  async get(projectId: string, featureName: string): Promise<FeatureView> {
    const view = await this.views.get(`${projectId}\u0000${featureName}`, async () => {
      const flag = await this.requireFlag(projectId, featureName, { archived: false });
      return flagView(flag, ...await this.viewParts(flag));
    });
    // Per read, not per revision: the event log learns a commit's events after the state does.
    const [usage, collaborators] = await Promise.all([this.usage.environmentUsage(featureName), this.collaborators?.of(featureName)]);
    const withCollaborators = collaborators?.length ? { ...view, collaborators: { users: collaborators } } : view;
    return withUsage(withCollaborators, usage);
  }

  /** The flag's environments and children, which both flag views show. */
  private async viewParts(flag: FlagData): Promise<[EnvironmentInfo[], string[]]> {
    // Concurrently: under load each sequential round trip also waits its turn on the event loop.
    return await Promise.all([
      this.projects.get(flag.project).then((project) => this.projectEnvironments(project)),
      this.store.children(flag.name),
    ]);
  }

  /** Built once per revision of the configuration state (a list of 100 flags costs about 0.5 ms). */
  async list(projectId: string): Promise<FeatureListItemView[]> {
    const project = await this.projects.get(projectId);
    if (!project) throw notFound(`Project ${projectId} does not exist`);
    const envs = await this.projectEnvironments(project);
    const flags = await this.store.listByProject(projectId);
    const views = this.outbox.state.derived(`flags:list-view:${projectId}`, () => listItemViews(flags, envs));
    // Metrics change without a configuration revision: laid over the cached list, once per
    // last-seen change (lastSeenAll keeps its map until then).
    const seen = await this.usage.lastSeenAll();
    const memo = this.listMemo.get(projectId);
    if (memo?.views === views && memo.seen === seen) return memo.list;
    const list = withLastSeen(views, seen);
    this.listMemo.set(projectId, { views, seen, list });
    return list;
  }

  async getVariants(projectId: string, featureName: string, environment: string): Promise<VariantConfig[]> {
    const flag = await this.requireFlag(projectId, featureName);
    return environmentOf(flag, environment, await this.context(flag)).variants;
  }

  /** Every variant name of the flag in any environment, once each, sorted (the UI's parent variants). */
  async variantNames(featureName: string): Promise<string[]> {
    const flag = await this.store.get(featureName);
    if (!flag) return [];
    const names = new Set(Object.values(flag.environments).flatMap((env) => env.variants.map((v) => v.name)));
    return [...names].sort();
  }

  async projectHasDependencies(projectId: string): Promise<boolean> {
    return await this.store.projectHasDependencies(projectId);
  }

  // -------------------------------------------------------------------------------------------
  // creation (docs/rules.md §6)

  async create(projectId: string, input: CreateFlagInput, audit: AuditUser): Promise<FeatureCreatedView> {
    const name = input.name;
    checkFlagName(name);
    const existing = await this.store.get(name);
    if (existing) throw nameTaken(existing);
    const project = await this.projects.get(projectId);
    if (!project || project.archivedAt) throw notFound(`Active project with id ${projectId} does not exist`);
    if ((await this.store.countActive()) >= LIMITS.flags) throw exceedsLimit('feature flag', LIMITS.flags);
    const now = new Date();
    const enabledEnvs = (await this.environments.list()).filter((e) => e.enabled && project.environments.includes(e.name));
    const flag = newFlag(projectId, input, audit, enabledEnvs.map((e) => e.name), now);
    const { tags } = flag;
    await this.tags.assertTypesExist(tags);
    const events = buildEvents(audit, [{
      type: 'feature-created', featureName: name, project: projectId, data: flagCreatedView(flag),
      tags: plainTags(tags),
    }], { transactional: true, at: now });
    // The tags it uses exist first, so `tag-created` precedes `feature-created` in the log, as
    // Unleash records them; a flag that another writer created meanwhile leaves them created.
    await this.tags.ensureTags(tags, audit, now);
    try {
      await this.store.insert(flag, events);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const winner = await this.store.get(name);
      throw winner ? nameTaken(winner) : nameExists('A flag with that name already exists');
    }
    return flagCreatedFullView(flag, ...await this.viewParts(flag));
  }

  // -------------------------------------------------------------------------------------------
  // mutations: one read-apply-replace per flag, serialised

  /**
   * Reads the flag (must belong to `projectId`), builds the context, applies `fn`, and writes the
   * result with its events in one replace. Returns the applied result.
   */
  async mutate<R>(
    projectId: string,
    featureName: string,
    audit: AuditUser,
    fn: (flag: FlagData, ctx: ApplyContext) => Applied<R> | Promise<Applied<R>>,
    segmentIds: number[] = [],
  ): Promise<R> {
    return await this.outbox.exclusive(`flag:${featureName}`, () =>
      retrying(async () => {
        const current = await this.requireFlag(projectId, featureName);
        const now = new Date();
        const ctx = await this.context(current, segmentIds, now);
        const data = withoutBookkeeping(current) as FlagData;
        const applied = await fn(data, ctx);
        if (applied.events.length === 0 && applied.next === data) return applied.result;
        const events = buildEvents(audit, applied.events, { transactional: applied.transactional, at: now });
        await this.store.replace(current, applied.next, events);
        return applied.result;
      }),
    );
  }

  async setEnabled(projectId: string, featureName: string, environment: string, enabled: boolean, audit: AuditUser, activateDisabled = false): Promise<void> {
    await this.mutate(projectId, featureName, audit, (flag, ctx) => applySetEnabled(flag, environment, enabled, ctx, activateDisabled));
  }

  async setVariants(projectId: string, featureName: string, environment: string, variants: VariantInput[], audit: AuditUser): Promise<VariantConfig[]> {
    return await this.mutate(projectId, featureName, audit, (flag, ctx) => applySetVariants(flag, environment, variants, ctx));
  }

  async patchVariants(projectId: string, featureName: string, environment: string, patch: PatchOperation[], audit: AuditUser): Promise<VariantConfig[]> {
    return await this.mutate(projectId, featureName, audit, (flag, ctx) => applyPatchVariants(flag, environment, patch, ctx));
  }

  /** The same list on several environments: one write, one event per environment. */
  async setVariantsOnEnvironments(
    projectId: string, featureName: string, environments: string[], variants: VariantInput[], audit: AuditUser,
  ): Promise<VariantConfig[]> {
    return await this.mutate(projectId, featureName, audit, (flag, ctx) => {
      let next = flag;
      const events: Applied['events'] = [];
      let result: VariantConfig[] = [];
      for (const environment of environments) {
        const applied = applySetVariants(next, environment, variants, ctx);
        next = applied.next;
        events.push(...applied.events);
        result = applied.result;
      }
      return { next, events, transactional: false, result };
    });
  }

  async addDependency(projectId: string, featureName: string, input: DependencyInput, audit: AuditUser): Promise<void> {
    await this.mutate(projectId, featureName, audit, async (child) => {
      const [parent, childChildren] = await Promise.all([
        input.feature === child.name ? Promise.resolve(null) : this.store.get(input.feature),
        this.store.children(child.name),
      ]);
      return applyAddDependency(child, input, { parent: parent ? (withoutBookkeeping(parent) as FlagData) : null, childChildren });
    });
  }

  async removeDependency(projectId: string, featureName: string, parent: string, audit: AuditUser): Promise<void> {
    await this.mutate(projectId, featureName, audit, (child) => applyRemoveDependency(child, parent));
  }

  async removeDependencies(projectId: string, featureName: string, audit: AuditUser): Promise<void> {
    await this.mutate(projectId, featureName, audit, (child) => applyRemoveDependencies(child));
  }

  async archive(projectId: string, featureName: string, audit: AuditUser): Promise<void> {
    const flag = await this.store.get(featureName);
    if (!flag) throw notFound(`Could not find feature flag "${featureName}"`);
    await this.mutate(projectId, featureName, audit, async (current, ctx) => applyArchive(current, await this.store.children(current.name), ctx));
  }

  async revive(featureName: string, audit: AuditUser): Promise<void> {
    const flag = await this.store.get(featureName);
    if (!flag) throw notFound(`Could not find feature flag "${featureName}"`);
    await this.mutate(flag.project, featureName, audit, (current, ctx) => applyRevive(current, ctx));
  }

  // -------------------------------------------------------------------------------------------
  // the flag's own fields

  /** A missing flag gets the project-named 404 (measured; only PATCH answers "No feature flag found"). */
  async replaceMetadata(projectId: string, featureName: string, input: MetadataInput, audit: AuditUser) {
    return await this.mutate(projectId, featureName, audit, (flag) => applyReplaceMetadata(flag, input));
  }

  async patchMetadata(projectId: string, featureName: string, patch: PatchOperation[], audit: AuditUser) {
    await this.requireExisting(featureName);
    return await this.mutate(projectId, featureName, audit, (flag) => applyPatchMetadata(flag, patch));
  }

  /** Marks each named flag of the project stale (or not); names of no flag in it are skipped, as Unleash skips them. */
  async setStale(projectId: string, featureNames: readonly string[], stale: boolean, audit: AuditUser): Promise<void> {
    for (const name of featureNames) {
      const flag = await this.store.get(name);
      if (!flag || flag.project !== projectId) continue;
      await this.mutate(projectId, name, audit, (current) => applyStale(current, stale));
    }
  }

  /** A new flag's name: its form, then whether any flag (archived ones too) has it, with Unleash's one message for both. */
  async validateName(name: string): Promise<void> {
    checkFlagName(name);
    if (await this.store.get(name)) throw nameExists('A flag with that name already exists');
  }

  /** Unleash's 404 for a flag name nothing has (before the project is looked at). */
  private async requireExisting(featureName: string): Promise<void> {
    if (!(await this.store.get(featureName))) throw notFound('No feature flag found');
  }
}
