/**
 * Cloning a flag (`POST …/features/:featureName/clone`), as Unleash 8.2 does it (measured,
 * test/fixtures/flag-clone/reference.json): a new flag in the path's project with the source's
 * description, type, impression data and stale mark, off in every environment, with the source's strategies
 * (each `feature-strategy-add`, `groupId` set to the new name unless `replaceGroupId` is false),
 * its environment variants (no event) and its parent (`feature-dependency-added`); not its tags
 * or links. The source must be in the path's project. Unleash writes these concurrently, so its events after `feature-created`
 * come in no fixed order; Vane commits the flag and every event at once, parent first, then the
 * strategies environment by environment.
 */
import { buildEvents, type AuditUser, type EventInput } from '../../db/outbox/index.js';
import { isDuplicateKey } from '../../db/keys.js';
import { exceedsLimit, nameExists, notFound } from '../../errors.js';
import { applyAddStrategy, flagEvent, newFlag } from './apply.js';
import { LIMITS } from './rules.js';
import type { FlagData } from './read-model.js';
import type { FlagService } from './service.js';
import type { EnvironmentSource, ProjectSource } from './sources.js';
import type { FlagStore } from './store.js';
import { flagCreatedView } from './views.js';

export interface CloneInput {
  name: string;
  replaceGroupId?: boolean;
}

export class FlagCloneService {
  constructor(
    private readonly flags: FlagService,
    private readonly store: FlagStore,
    private readonly projects: ProjectSource,
    private readonly environments: EnvironmentSource,
  ) {}

  async clone(projectId: string, featureName: string, input: CloneInput, audit: AuditUser): Promise<ReturnType<typeof flagCreatedView>> {
    await this.flags.validateName(input.name);
    const source = await this.store.get(featureName);
    // Unleash's message here never names the project that has the flag (measured).
    if (!source || source.project !== projectId) throw notFound(`There's no feature named "${featureName}" in project "${projectId}".`);
    const project = await this.projects.get(projectId);
    if (!project || project.archivedAt) throw notFound(`Active project with id ${projectId} does not exist`);
    if ((await this.store.countActive()) >= LIMITS.flags) throw exceedsLimit('feature flag', LIMITS.flags);
    const now = new Date();
    const connected = (await this.environments.list()).filter((env) => env.enabled && project.environments.includes(env.name)).map((env) => env.name);
    const created = {
      ...newFlag(projectId, { name: input.name, type: source.type, description: source.description, impressionData: source.impressionData }, audit, connected, now),
      stale: source.stale,
    };
    const events: EventInput[] = [{ type: 'feature-created', featureName: input.name, project: projectId, data: flagCreatedView(created), tags: [] }];
    let flag: FlagData = { ...created, dependencies: source.dependencies.map((d) => ({ ...d })) };
    for (const d of flag.dependencies) {
      events.push(flagEvent(flag, 'feature-dependency-added', null, { feature: d.feature, enabled: d.enabled ?? true, variants: d.variants ?? [] }));
    }
    const segmentIds = Object.values(source.environments).flatMap((env) => env.strategies.flatMap((s) => s.segments ?? []));
    const ctx = await this.flags.context(flag, segmentIds, now);
    for (const environment of ctx.environments.keys()) {
      const from = source.environments[environment];
      if (!from || !flag.environments[environment]) continue;
      flag = { ...flag, environments: { ...flag.environments, [environment]: { ...flag.environments[environment], variants: from.variants.map((v) => ({ ...v })) } } };
      for (const strategy of from.strategies) {
        const parameters = { ...strategy.parameters };
        if (input.replaceGroupId !== false && 'groupId' in parameters) parameters.groupId = input.name;
        const { id: _id, ...rest } = strategy;
        const applied = applyAddStrategy(flag, environment, { ...rest, parameters, constraints: rest.constraints.map((c) => ({ ...c })) }, ctx);
        flag = applied.next;
        events.push(...applied.events);
      }
    }
    try {
      await this.store.insert(flag, buildEvents(audit, events, { transactional: true, at: now }));
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      throw nameExists('A flag with that name already exists');
    }
    return flagCreatedView(flag);
  }
}
