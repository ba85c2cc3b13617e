/**
 * `POST /api/admin/features-batch/validate` and `…/import`, as Unleash 8.2 answers them (measured
 * on the reference; test/fixtures/import/reference.json). The import runs Unleash's steps on the
 * flags in memory (the same pure rules as the one-flag routes, flags/apply.ts) and writes every
 * flag, tag, tag type and context field it changed with all the events in one commit: all of it
 * or nothing, as Unleash runs it in one transaction (measured: an import failing on its third flag
 * left nothing and recorded nothing).
 */
import {
  buildEvents, retrying, withoutBookkeeping, type AuditUser, type Change, type EventInput,
} from '../../db/outbox/index.js';
import { exceedsLimit, nameExists, noAccess, notFound, operationDenied, schemaValidationError, validationError } from '../../errors.js';
import {
  applyAddDependency, applyAddStrategy, applySetEnabled, applySetVariants, flagEvent, newFlag, type ApplyContext, type SegmentInfo,
} from '../flags/apply.js';
import { applyReplaceMetadata } from '../flags/metadata.js';
import { LINK_LIMIT } from '../flags/links.js';
import { normaliseLinkUrl } from '../flags/link-url.js';
import type { FlagData, FlagDocument, FlagLink } from '../flags/read-model.js';
import { checkFlagName, LIMITS, ulid } from '../flags/rules.js';
import { applyTag } from '../flags/tags.js';
import { flagCreatedView } from '../flags/views.js';
import {
  archivedFeatures, existingFeatures, missingDependencies, missingPermissions, newContextFields, newTagTypes, otherProjectFeatures,
  unsupportedContextFields, unsupportedSegments, unsupportedStrategies, validation, type Known,
} from './checks.js';
import type { ImportInput, ValidateResult } from './schemas.js';
import type { ImportSources, ImportWriter } from './sources.js';

type Data = ImportInput['data'];

/** Which permissions the caller holds (an admin token all; a person those of their root role). */
export type Holds = (permission: string) => boolean;

/** Unleash's BadDataError naming each unsupported item in its details (its message is the schema error's, measured). */
function notSupported(names: string[]): Error {
  return schemaValidationError(names.map((name) => {
    const description = `${name} is not supported.`;
    return { description, message: description };
  }));
}

export class ImportService {
  constructor(private readonly sources: ImportSources, private readonly writer: ImportWriter) {}

  private async known(): Promise<Known> {
    const [strategyTypes, segments, contextFields, tagTypes, tags] = await Promise.all([
      this.sources.strategyTypes(), this.sources.segments(), this.sources.contextFields(), this.sources.tagTypes(), this.sources.tags(),
    ]);
    return {
      flag: (name) => this.sources.flag(name), children: (name) => this.sources.children(name), strategyTypes, segments, contextFields,
      tagTypes: new Set(tagTypes.map((t) => t.name)), tags: new Set(tags.map((t) => `${t.type}:${t.value}`)),
    };
  }

  async validate(input: ImportInput, holds: Holds): Promise<ValidateResult> {
    return validation(input, await this.known(), holds);
  }

  /** Imports the file, or refuses all of it with the first of Unleash's checks that fails. */
  async import(input: ImportInput, holds: Holds, audit: AuditUser): Promise<void> {
    await retrying(async () => {
      const known = await this.known();
      const data = cleaned(input, known);
      verify({ ...input, data }, known, holds);
      const plan = new ImportPlan(input.project, input.environment, audit, new Date(), known, this.sources);
      await plan.run(data);
      await this.writer.commit(plan.changes(this.writer), buildEvents(audit, plan.events, { transactional: true, at: plan.now }));
    });
  }
}

/**
 * The file as Unleash imports it: archived flags and what names them left out (their tags' types
 * too), strategies without a flag dropped, and segment ids mapped to this instance's by name.
 */
function cleaned(input: ImportInput, known: Known): Data {
  const { data } = input;
  const archived = new Set(archivedFeatures(data, known));
  const featureTags = (data.featureTags ?? []).filter((tag) => !archived.has(tag.featureName));
  const segmentIds = new Map((data.segments ?? []).map((s) => [s.id, known.segments.find((e) => e.name === s.name)?.id]));
  return {
    ...data,
    features: data.features.filter((f) => !archived.has(f.name)),
    featureEnvironments: (data.featureEnvironments ?? []).filter((e) => e.featureName !== undefined && !archived.has(e.featureName)),
    featureStrategies: data.featureStrategies
      .filter((s) => s.featureName !== undefined && !archived.has(s.featureName))
      .map((s) => (s.segments === undefined ? s : { ...s, segments: s.segments.map((id) => segmentIds.get(id) ?? id) })),
    featureTags,
    tagTypes: data.tagTypes.filter((type) => featureTags.some((tag) => tag.tagType === type.name)),
  };
}

/** Unleash's import checks, in its order: the first that fails refuses the import. */
function verify(input: ImportInput, known: Known, holds: Holds): void {
  const { data, project } = input;
  const refusals: Array<() => void> = [
    () => {
      const names = unsupportedStrategies(data, known);
      if (names.length > 0) throw notSupported(names);
    },
    () => {
      const names = unsupportedContextFields(data, project, known);
      if (names.length > 0) throw notSupported(names);
    },
    () => {
      const missing = missingPermissions(input, known, holds);
      if (missing.length > 0) throw noAccess(missing);
    },
    () => {
      const elsewhere = otherProjectFeatures(data, project, known);
      if (elsewhere.length > 0) throw validationError(`These features exist already in other projects: ${elsewhere.join(', ')}`);
    },
    () => {
      const segments = unsupportedSegments(data, project, known);
      if (segments.length > 0) throw validationError(`Unsupported segments: ${segments.join(', ')}`);
    },
    () => {
      const parents = missingDependencies(data, known);
      if (parents.length > 0) throw validationError(`The following dependent features are missing: ${parents.join(', ')}`);
    },
  ];
  for (const refusal of refusals) refusal();
}

/** One import's steps on the flags in memory: what each flag becomes, the other documents, the events. */
class ImportPlan {
  readonly events: EventInput[] = [];
  private readonly flags = new Map<string, { current: FlagDocument | null; next: FlagData }>();
  private readonly tagTypes: Array<Data['tagTypes'][number]> = [];
  private readonly tags: Array<{ type: string; value: string }> = [];
  private readonly fields: NonNullable<Data['contextFields']> = [];
  private ctx: ApplyContext | undefined;

  constructor(
    private readonly project: string,
    private readonly environment: string,
    private readonly audit: AuditUser,
    readonly now: Date,
    private readonly known: Known,
    private readonly sources: ImportSources,
  ) {}

  async run(data: Data): Promise<void> {
    const project = await this.sources.project(this.project);
    if (!project || project.archivedAt) throw notFound(`Active project with id ${this.project} does not exist`);
    const environments = await this.sources.environments();
    const connected = environments.filter((e) => project.environments.includes(e.name));
    this.ctx = {
      now: this.now,
      strategyTypes: new Set(this.known.strategyTypes.map((t) => t.name)),
      segments: new Map(this.known.segments.map((s): [number, SegmentInfo] => [s.id, s])),
      environments: new Map(connected.map((e) => [e.name, { name: e.name, type: e.type, sortOrder: e.sortOrder }])),
      defaultStickiness: project.defaultStickiness,
    };
    await this.features(data, connected.filter((e) => e.enabled).map((e) => e.name));
    this.variants(data);
    this.newTagTypes(data);
    this.featureTags(data);
    this.newContextFields(data);
    this.links(data);
    this.strategies(data);
    this.statuses(data);
    this.dependencies(data);
    this.events.push({ type: 'features-imported', project: this.project, environment: this.environment });
  }

  /** The flag as the plan has it now (imported, or as stored), 404 otherwise. */
  private flag(name: string): FlagData {
    const planned = this.flags.get(name);
    if (planned) return planned.next;
    const stored = this.known.flag(name);
    if (stored && stored.project === this.project) return withoutBookkeeping(stored) as FlagData;
    const elsewhere = stored ? `, but there's a feature with that name in project "${stored.project}"` : '.';
    throw notFound(`There's no feature named "${name}" in project "${this.project}"${elsewhere}`);
  }

  private set(next: FlagData, events: readonly EventInput[]): void {
    const planned = this.flags.get(next.name);
    this.flags.set(next.name, { current: planned ? planned.current : this.known.flag(next.name), next });
    this.events.push(...events);
  }

  /** Existing live flags of the project take the file's fields (PUT), others are created in file order. */
  private async features(data: Data, enabledEnvironments: string[]): Promise<void> {
    const existing = new Set(existingFeatures(data, this.project, this.known));
    let active = (await this.sources.flags()).filter((f) => !f.archived).length;
    for (const feature of data.features) {
      const input = {
        name: feature.name, description: feature.description, type: feature.type,
        impressionData: feature.impressionData, stale: feature.stale,
      };
      if (existing.has(feature.name)) {
        const applied = applyReplaceMetadata(this.flag(feature.name), input);
        this.set(applied.next, applied.events);
        continue;
      }
      checkFlagName(feature.name);
      if (this.flags.has(feature.name) || this.known.flag(feature.name)) throw nameExists('A flag with that name already exists');
      if (++active > LIMITS.flags) throw exceedsLimit('feature flag', LIMITS.flags);
      const created = newFlag(this.project, { ...input, tags: [] }, this.audit, enabledEnvironments, this.now);
      const flag: FlagData = {
        ...created, stale: feature.stale ?? false,
        ...(feature.archived === true ? { archived: true, archivedAt: this.now } : {}),
      };
      this.set(flag, [{ type: 'feature-created', featureName: flag.name, project: this.project, data: flagCreatedView(flag), tags: [] }]);
    }
  }

  /** Environment variants replaced where the file has some (unchanged ones record nothing: buildEvents). */
  private variants(data: Data): void {
    for (const env of data.featureEnvironments ?? []) {
      if (!env.featureName || (env.variants ?? []).length === 0) continue;
      const applied = applySetVariants(this.flag(env.featureName), this.environment, env.variants ?? [], this.ctx!);
      this.set(applied.next, applied.events);
    }
  }

  private newTagTypes(data: Data): void {
    for (const type of newTagTypes(data, this.known)) {
      this.tagTypes.push(type);
      this.events.push({ type: 'tag-type-created', data: type });
    }
  }

  /** Every imported flag's tags replaced by the file's (the old ones go without events). */
  private featureTags(data: Data): void {
    for (const { name } of data.features) {
      const flag = this.flag(name);
      if (flag.tags.length > 0) this.set({ ...flag, tags: [] }, []);
    }
    const types = new Set([...this.known.tagTypes, ...this.tagTypes.map((t) => t.name)]);
    for (const tag of data.featureTags ?? []) {
      if (tag.tagType === undefined) continue;
      if (!types.has(tag.tagType)) throw validationError(`Tag type '${tag.tagType}' does not exist`);
      const ref = { type: tag.tagType, value: tag.tagValue };
      this.ensureTag(ref);
      const applied = applyTag(this.flag(tag.featureName), [ref]);
      this.set(applied.next, applied.events);
    }
  }

  private ensureTag(tag: { type: string; value: string }): void {
    if (this.tags.some((t) => t.type === tag.type && t.value === tag.value)) return;
    if (this.known.tags.has(`${tag.type}:${tag.value}`)) return;
    this.tags.push(tag);
    this.events.push({ type: 'tag-created', data: { type: tag.type, value: tag.value } });
  }

  private newContextFields(data: Data): void {
    for (const field of newContextFields(data, this.known)) {
      const scoped = field.project ? { ...field, project: this.project } : { ...field, project: undefined };
      this.fields.push(scoped);
      this.events.push({
        type: 'context-field-created',
        data: {
          name: field.name, description: field.description, legalValues: field.legalValues ?? [], stickiness: field.stickiness ?? false,
          ...(scoped.project ? { project: scoped.project } : {}),
        },
      });
    }
  }

  /**
   * The links of each flag the file lists links for, replaced (the old ones go without events; a
   * flag listed twice gets both lists), each new one recorded as the link routes record it, with a
   * new id: Unleash deletes those flags' links and creates the file's (measured: imported three
   * times, a flag kept two links, with new ids, and six `feature-link-added`).
   */
  private links(data: Data): void {
    const replaced = new Set<string>();
    for (const entry of data.links ?? []) {
      const flag = this.flag(entry.feature);
      const links: FlagLink[] = replaced.has(flag.name) ? [...(flag.links ?? [])] : [];
      replaced.add(flag.name);
      const events: EventInput[] = [];
      for (const link of entry.links) {
        if (links.length >= LINK_LIMIT) throw operationDenied(`Too many links (${LINK_LIMIT}) exist for this feature`);
        const url = normaliseLinkUrl(link.url);
        if (url === null) throw validationError(`Invalid URL: ${link.url}`);
        // Unleash passes `title || undefined`: an empty or null title is none, and the event has no key.
        const title = typeof link.title === 'string' && link.title !== '' ? link.title : undefined;
        links.push({ id: ulid(), url, title: title ?? null });
        events.push({ ...flagEvent(flag, 'feature-link-added', null, title === undefined ? { url } : { url, title }), project: this.project });
      }
      this.set({ ...flag, links }, events);
    }
  }

  /** Each imported flag's strategies in the environment replaced (the old ones go without events), in file order. */
  private strategies(data: Data): void {
    for (const { name } of data.features) {
      const flag = this.flag(name);
      const env = flag.environments[this.environment];
      if (env && env.strategies.length > 0) {
        this.set({ ...flag, environments: { ...flag.environments, [this.environment]: { ...env, strategies: [] } }, strategyIds: [] }, []);
      }
    }
    for (const strategy of data.featureStrategies) {
      if (!strategy.featureName) continue;
      const { featureName, id: _id, ...input } = strategy;
      const applied = applyAddStrategy(this.flag(featureName), this.environment, input, this.ctx!);
      this.set(applied.next, applied.events);
    }
  }

  private statuses(data: Data): void {
    for (const env of data.featureEnvironments ?? []) {
      const applied = applySetEnabled(this.flag(env.name), this.environment, env.enabled, this.ctx!);
      this.set(applied.next, applied.events);
    }
  }

  /** Each dependency of an imported flag that names its project, added again even when it is there (Unleash's upsert). */
  private dependencies(data: Data): void {
    for (const dependency of data.dependencies ?? []) {
      if (!data.features.find((f) => f.name === dependency.feature)?.project) continue;
      for (const parent of dependency.dependencies) {
        const child = this.flag(dependency.feature);
        const parentFlag = this.flags.get(parent.feature)?.next ?? this.known.flag(parent.feature);
        const applied = applyAddDependency(child, parent, { parent: parentFlag, childChildren: this.childrenOf(child.name) });
        this.set(applied.next, applied.events);
      }
    }
  }

  private childrenOf(name: string): string[] {
    const planned = [...this.flags.values()].map((f) => f.next);
    const names = new Set(planned.map((f) => f.name));
    return planned.filter((f) => !f.archived && f.dependencies.some((d) => d.feature === name)).map((f) => f.name)
      .concat(this.known.children(name).filter((child) => !names.has(child)));
  }

  /** Every document the import writes, as changes of one commit. */
  changes(writer: ImportWriter): Change[] {
    return [
      ...[...this.flags.values()].map(({ current, next }) => writer.flag(current, next)),
      ...this.tagTypes.map((type) => writer.tagType(
        { name: type.name, description: type.description ?? null, icon: type.icon ?? null, color: type.color ?? null }, this.now,
      )),
      ...this.tags.map((tag) => writer.tag(tag.type, tag.value, this.now)),
      ...this.fields.map((field) => writer.contextField({
        name: field.name, description: field.description ?? null, stickiness: field.stickiness ?? false, sortOrder: 0,
        legalValues: field.legalValues ?? [], createdAt: this.now, project: field.project ?? null,
      })),
    ];
  }
}
