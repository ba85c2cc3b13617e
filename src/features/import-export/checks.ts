/**
 * What an import would meet, as Unleash 8.2's import validation finds it (its messages, measured
 * on the reference; test/fixtures/import/reference.json): the errors that refuse it, the warnings,
 * and the permissions the caller lacks. Pure: `Known` is the state read once.
 */
import type { ContextField } from '../context-fields/read-model.js';
import type { FlagDocument } from '../flags/read-model.js';
import type { Segment } from '../segments/read-model.js';
import type { ImportInput, ValidateResult } from './schemas.js';
import type { ImportStrategyType } from './sources.js';

/** What the checks read of the configuration, as it is now. */
export interface Known {
  flag(name: string): FlagDocument | null;
  /** Names of the live flags that depend on a flag. */
  children(name: string): readonly string[];
  strategyTypes: ImportStrategyType[];
  segments: Segment[];
  contextFields: ContextField[];
  tagTypes: ReadonlySet<string>;
  /** Every tag, as `type:value`. */
  tags: ReadonlySet<string>;
}

/**
 * The import's permissions with Unleash's display names, in the order its `permissions` table lists
 * them (the order a Viewer's validation named all seven, measured).
 */
const PERMISSIONS: ReadonlyArray<[permission: string, displayName: string]> = [
  ['CREATE_CONTEXT_FIELD', 'Create context fields'],
  ['CREATE_FEATURE_STRATEGY', 'Create activation strategies'],
  ['DELETE_FEATURE_STRATEGY', 'Delete activation strategies'],
  ['UPDATE_FEATURE_ENVIRONMENT_VARIANTS', 'Update variants'],
  ['CREATE_FEATURE', 'Create feature flags'],
  ['UPDATE_FEATURE', 'Update feature flags'],
  ['CREATE_TAG_TYPE', 'Create tag types'],
];

type Data = ImportInput['data'];

const unique = <T>(items: readonly T[]): T[] => [...new Set(items)];

/** Strategies naming a type that does not exist: one entry per strategy, repeats included (Unleash's). */
export function unsupportedStrategies(data: Data, known: Known): string[] {
  const names = new Set(known.strategyTypes.map((t) => t.name));
  return data.featureStrategies.filter((s) => !names.has(s.name)).map((s) => s.name);
}

/** Custom strategy types the import uses, once each. */
export function customStrategies(data: Data, known: Known): string[] {
  const custom = new Set(known.strategyTypes.filter((t) => t.editable).map((t) => t.name));
  return unique(data.featureStrategies.map((s) => s.name)).filter((name) => custom.has(name));
}

/**
 * Context fields whose imported legal values are not all among the existing field's, or that
 * exist scoped to another project.
 */
export function unsupportedContextFields(data: Data, project: string, known: Known): string[] {
  return (data.contextFields ?? []).filter((field) => {
    const existing = known.contextFields.find((f) => f.name === field.name);
    if (!existing) return false;
    const legal = new Set(existing.legalValues.map((v) => v.value));
    if (!(field.legalValues ?? []).every((v) => legal.has(v.value))) return true;
    return existing.project !== null && existing.project !== project;
  }).map((field) => field.name);
}

export function archivedFeatures(data: Data, known: Known): string[] {
  return unique(data.features.map((f) => f.name)).filter((name) => known.flag(name)?.archived === true);
}

export function otherProjectFeatures(data: Data, project: string, known: Known): string[] {
  return unique(data.features.map((f) => f.name)).flatMap((name) => {
    const flag = known.flag(name);
    return flag && flag.project !== project ? [`${name} (in project ${flag.project})`] : [];
  });
}

/** The imported flags that exist, live, in the project: overwritten. */
export function existingFeatures(data: Data, project: string, known: Known): string[] {
  const flags = unique(data.features.map((f) => f.name)).map((name) => known.flag(name))
    .filter((flag) => flag !== null && flag.project === project && !flag.archived);
  // Unleash lists its rows unsorted, in the order they were written: creation order here (measured:
  // imp-parent, imp-child, imp-solo for a file listing imp-child first).
  return flags.sort((a, b) => a!.createdAt.getTime() - b!.createdAt.getTime()).map((flag) => flag!.name);
}

function duplicateFeatures(data: Data): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const { name } of data.features) (seen.has(name) ? twice : seen).add(name);
  return [...twice];
}

/** Segments named by the file that no segment of the instance (global, or of the project) has. */
export function unsupportedSegments(data: Data, project: string, known: Known): string[] {
  return (data.segments ?? [])
    .filter((s) => !known.segments.some((e) => e.name === s.name && (!e.project || e.project === project)))
    .map((s) => s.name);
}

/** Parents neither imported nor existing (archived ones count as existing, as Unleash's look-up does). */
export function missingDependencies(data: Data, known: Known): string[] {
  const imported = new Set(data.features.map((f) => f.name));
  return (data.dependencies ?? []).flatMap((d) => d.dependencies.map((p) => p.feature))
    .filter((name) => !imported.has(name) && known.flag(name) === null);
}

/** New tag types the file brings, once each (the last description of a name wins, at its first place). */
export function newTagTypes(data: Data, known: Known): Data['tagTypes'] {
  const fresh = new Map<string, Data['tagTypes'][number]>();
  for (const type of data.tagTypes) if (!known.tagTypes.has(type.name)) fresh.set(type.name, type);
  return [...fresh.values()];
}

export function newContextFields(data: Data, known: Known): NonNullable<Data['contextFields']> {
  return (data.contextFields ?? []).filter((field) => !known.contextFields.some((f) => f.name === field.name));
}

/** Display names of the permissions the import needs and `holds` says the caller lacks. */
export function missingPermissions(input: ImportInput, known: Known, holds: (permission: string) => boolean): string[] {
  const { data, environment } = input;
  const names = data.features.map((f) => f.name);
  // Unleash asks whether any imported flag has a strategy in the environment; for no flags its
  // query answers true.
  const strategiesExist = names.length === 0
    || names.some((name) => (known.flag(name)?.environments[environment]?.strategies.length ?? 0) > 0);
  const needed = new Set(['UPDATE_FEATURE']);
  if (newTagTypes(data, known).length > 0) needed.add('CREATE_TAG_TYPE');
  if (newContextFields(data, known).length > 0) needed.add('CREATE_CONTEXT_FIELD');
  if (strategiesExist) needed.add('DELETE_FEATURE_STRATEGY');
  if (data.featureStrategies.length > 0) needed.add('CREATE_FEATURE_STRATEGY');
  if ((data.featureEnvironments ?? []).some((e) => (e.variants ?? []).length > 0)) needed.add('UPDATE_FEATURE_ENVIRONMENT_VARIANTS');
  if (names.filter((name) => known.flag(name) !== null).length < names.length) needed.add('CREATE_FEATURE');
  return PERMISSIONS.filter(([permission]) => needed.has(permission) && !holds(permission)).map(([, displayName]) => displayName);
}

const item = (message: string, affectedItems: string[]) => ({ message, affectedItems });

/** `POST /api/admin/features-batch/validate`'s answer, of the file as sent. */
export function validation(input: ImportInput, known: Known, holds: (permission: string) => boolean): ValidateResult {
  const { data, project } = input;
  const errors: ValidateResult['errors'] = [];
  const strategies = unsupportedStrategies(data, known);
  if (strategies.length > 0) errors.push(item('We detected the following custom strategy that needs to be created first:', strategies));
  const fields = unsupportedContextFields(data, project, known);
  if (fields.length > 0) {
    errors.push(item('We detected the following context fields that do not have matching legal values with the imported ones:', fields));
  }
  const elsewhere = otherProjectFeatures(data, project, known);
  if (elsewhere.length > 0) {
    errors.push(item('You cannot import a features that already exist in other projects. '
      + `You already have the following features defined outside of project ${project}:`, elsewhere));
  }
  const duplicates = duplicateFeatures(data);
  if (duplicates.length > 0) errors.push(item('We detected the following features are duplicate in your import data:', duplicates));
  const segments = unsupportedSegments(data, project, known);
  if (segments.length > 0) errors.push(item('We detected the following segments that need to be created first:', segments));
  const parents = missingDependencies(data, known);
  if (parents.length > 0) errors.push(item('We detected the following dependencies that need to be created first:', parents));

  const warnings: ValidateResult['warnings'] = [];
  const custom = customStrategies(data, known);
  if (custom.length > 0) {
    warnings.push(item('The following strategy types will be used in import. '
      + 'Please make sure the strategy type parameters are configured as in source environment:', custom));
  }
  const archived = archivedFeatures(data, known);
  if (archived.length > 0) {
    warnings.push(item('The following features will not be imported as they are currently archived. '
      + 'To import them, please unarchive them first:', archived));
  }
  const existing = existingFeatures(data, project, known);
  if (existing.length > 0) warnings.push(item('The following features already exist in this project and will be overwritten:', existing));

  const missing = missingPermissions(input, known, holds);
  const permissions = missing.length > 0 ? [item('We detected you are missing the following permissions:', missing)] : [];
  return { errors, warnings, permissions };
}
