/**
 * `POST /api/admin/features-batch/export`, as Unleash 8.2 answers it (measured on the reference,
 * test/fixtures/import/reference.json): the chosen flags in one environment with everything an
 * import into another instance needs, in Unleash's lists, orders and key orders.
 */
import { buildEvents, type AuditUser } from '../../db/outbox/index.js';
import { jsonbOrder } from '../../json.js';
import type { FlagData } from '../flags/read-model.js';
import type { ExportResult } from './schemas.js';
import type { ImportSources, ImportWriter } from './sources.js';

export interface ExportQuery {
  environment: string;
  features?: string[];
  tag?: string;
  project?: string;
}

/** Code-unit order: Unleash's tables sort names in the C collation (`imp-child` before `imp-old`). */
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Whether a strategy or an environment's variants name a context field (Unleash's filter of the fields it exports). */
function usesField(flags: readonly FlagData[], environment: string): (name: string) => boolean {
  const used = new Set<string>();
  for (const flag of flags) {
    const env = flag.environments[environment];
    if (!env) continue;
    for (const variant of env.variants) {
      if (variant.stickiness !== undefined) used.add(variant.stickiness);
      for (const override of variant.overrides ?? []) used.add(override.contextName);
    }
    for (const strategy of env.strategies) {
      const stickiness = strategy.parameters?.stickiness;
      if (stickiness !== undefined) used.add(stickiness);
      for (const constraint of strategy.constraints) used.add(constraint.contextName);
    }
  }
  return (name) => used.has(name);
}

export class ExportService {
  constructor(private readonly sources: ImportSources, private readonly writer: ImportWriter) {}

  /**
   * The flags named (any, archived too), else those with a tag of that value (any type: measured,
   * `simple:beta` matched none and `beta` the flag tagged simple:beta), else the project's live
   * ones, else every live flag. Records `features-exported` with the answer.
   */
  async export(query: ExportQuery, audit: AuditUser, ip: string): Promise<ExportResult> {
    const flags = (await this.selected(query)).sort((a, b) => byName(a.name, b.name));
    const result = await this.build(flags, query.environment);
    const auditUser = { id: audit.id, username: audit.name, ip };
    await this.writer.commit([], buildEvents(audit, [{ type: 'features-exported', data: { data: result, auditUser } }]));
    return result;
  }

  private async selected(query: ExportQuery): Promise<FlagData[]> {
    if (typeof query.tag === 'string') {
      const tag = query.tag;
      return (await this.sources.flags()).filter((flag) => flag.tags.some((t) => t.value === tag));
    }
    if (query.features !== undefined && query.features.length > 0) {
      return [...new Set(query.features)].map((name) => this.sources.flag(name)).filter((flag) => flag !== null);
    }
    const all = (await this.sources.flags()).filter((flag) => !flag.archived);
    return typeof query.project === 'string' ? all.filter((flag) => flag.project === query.project) : all;
  }

  private async build(flags: readonly FlagData[], environment: string): Promise<ExportResult> {
    const inEnvironment = flags.flatMap((flag) => {
      const env = flag.environments[environment];
      return env ? [{ flag, env }] : [];
    });
    const strategies = inEnvironment.flatMap(({ flag, env }) => [...env.strategies]
      .sort((a, b) => (a.sortOrder ?? 0) - (b.sortOrder ?? 0))
      .map((s) => ({
        name: s.name, id: s.id, featureName: flag.name, title: s.title ?? null, parameters: jsonbOrder(s.parameters ?? {}),
        constraints: jsonbOrder(s.constraints), variants: jsonbOrder(s.variants ?? []), disabled: s.disabled ?? false,
        segments: s.segments ?? [],
      })));
    const used = usesField(flags, environment);
    const usedSegments = new Set(strategies.flatMap((s) => s.segments));
    const featureTags = flags.flatMap((flag) => flag.tags.map((t) => ({ featureName: flag.name, tagType: t.type, tagValue: t.value })));
    const tagTypesUsed = new Set(featureTags.map((t) => t.tagType));
    return {
      features: flags.map((flag) => ({
        name: flag.name, description: flag.description, type: flag.type, project: flag.project, stale: flag.stale,
        impressionData: flag.impressionData, archived: flag.archived,
      })),
      featureStrategies: strategies,
      featureEnvironments: inEnvironment.map(({ flag, env }) => ({
        enabled: env.enabled, featureName: flag.name, environment, variants: jsonbOrder(env.variants), name: flag.name,
      })),
      contextFields: (await this.sources.contextFields()).filter((field) => used(field.name)).map((field) => ({
        name: field.name, description: field.description, stickiness: field.stickiness, sortOrder: field.sortOrder,
        legalValues: field.legalValues, ...(field.project ? { project: field.project } : {}),
      })),
      featureTags,
      segments: (await this.sources.segments()).filter((segment) => usedSegments.has(segment.id)).map(({ id, name }) => ({ id, name })),
      tagTypes: (await this.sources.tagTypes()).filter((type) => tagTypesUsed.has(type.name))
        .map((type) => ({ name: type.name, description: type.description, icon: type.icon, color: type.color })),
      dependencies: flags.filter((flag) => flag.dependencies.length > 0).map((flag) => ({
        feature: flag.name,
        dependencies: flag.dependencies.map((d) => ({ feature: d.feature, enabled: d.enabled !== false, variants: d.variants ?? [] })),
      })),
      // Flags without links are left out (measured); a flag's links by id, the order they were added.
      links: flags.filter((flag) => (flag.links ?? []).length > 0).map((flag) => ({
        feature: flag.name, links: (flag.links ?? []).map(({ id, url, title }) => ({ id, url, title })),
      })),
    };
  }
}
