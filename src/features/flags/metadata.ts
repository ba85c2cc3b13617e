/**
 * A flag's own fields (description, type, impression data, stale) as pure functions, recorded as
 * Unleash 8.2 records them (measured): every update is one `feature-metadata-updated` (data: the
 * flag as the API shows it; preData: as its database row orders the keys), and a stale change
 * through PATCH or the project's bulk route is `feature-stale-on`/`-off` without data.
 */
import { validationError } from '../../errors.js';
import { flagEvent, type Applied } from './apply.js';
import { applyJsonPatch, JsonPatchError, type PatchOperation } from './json-patch.js';
import type { FlagData } from './read-model.js';
import { FLAG_TYPES } from './rules.js';
import { flagCreatedView } from './views.js';

export interface MetadataInput {
  /** Only the flag's own name is taken (measured: another answers 400). */
  name?: string;
  description?: string | null;
  type?: string;
  impressionData?: boolean;
  stale?: boolean;
}

/** Unleash stores an empty description as null (measured: `""` reads back as null). */
function descriptionOf(value: unknown): string | null {
  return value === null || value === undefined || value === '' ? null : String(value);
}

const unchanged = (a: FlagData, b: FlagData) =>
  a.description === b.description && a.type === b.type && a.impressionData === b.impressionData && a.stale === b.stale;

/** The flag as Unleash reads its row back: the preData of a metadata update. */
function rowView(flag: FlagData) {
  return {
    name: flag.name, type: flag.type, stale: flag.stale, project: flag.project, archived: flag.archived,
    createdAt: flag.createdAt.toISOString(),
    ...(flag.archived && flag.archivedAt ? { archivedAt: flag.archivedAt.toISOString() } : {}),
    description: flag.description, impressionData: flag.impressionData,
  };
}

/**
 * `PUT`: the fields replaced as a whole; one absent takes its default (measured: `{}` clears the
 * description). An archived flag is live again after it, its environments and lifecycle as they
 * were, with `feature-metadata-updated` only (measured: Unleash's row update clears its archive
 * time; `{}` on an archived flag records the event, preData archived).
 */
export function applyReplaceMetadata(flag: FlagData, input: MetadataInput): Applied<ReturnType<typeof flagCreatedView>> {
  if (input.name !== undefined && input.name !== flag.name) throw validationError('Cannot change name of feature flag');
  const next: FlagData = {
    ...flag,
    description: descriptionOf(input.description),
    type: input.type ?? 'release',
    impressionData: input.impressionData ?? false,
    stale: input.stale ?? false,
    archived: false,
    archivedAt: null,
  };
  const view = flagCreatedView(next);
  // Nothing changed: Unleash records nothing (measured by the differential tester).
  if (unchanged(flag, next) && !flag.archived) return { next: flag, events: [], transactional: false, result: view };
  return { next, events: [flagEvent(next, 'feature-metadata-updated', null, view, rowView(flag))], transactional: false, result: view };
}

/**
 * `PATCH`: a JSON Patch over the flag as the API shows it; only its own fields are taken (a name
 * or project in the result is ignored, as Unleash ignores it). Unlike Unleash, which stores any
 * type a patch writes, an unknown type is refused as `PUT` refuses it. Applied leniently, as Unleash
 * applies it (measured: removing, replacing or moving from an absent key is 200 and changes
 * nothing; a failed `test` or a path through a missing parent, 500 there, is a 400 here: D10).
 */
export function applyPatchMetadata(flag: FlagData, patch: PatchOperation[]): Applied<ReturnType<typeof flagCreatedView>> {
  let patched: Record<string, unknown>;
  try {
    patched = applyJsonPatch(flagCreatedView(flag) as Record<string, unknown>, patch, { lenient: true });
  } catch (err) {
    if (err instanceof JsonPatchError) throw validationError(`Could not apply provided patch: ${err.message}`);
    throw err;
  }
  const type = patched.type;
  if (typeof type !== 'string' || !(FLAG_TYPES as readonly string[]).includes(type)) {
    throw validationError(`The type must be one of ${FLAG_TYPES.join(', ')}; the patch makes it ${JSON.stringify(type)}`);
  }
  const next: FlagData = {
    ...flag, description: descriptionOf(patched.description), type, impressionData: patched.impressionData === true, stale: patched.stale === true,
  };
  const view = flagCreatedView(next);
  if (unchanged(flag, next)) return { next: flag, events: [], transactional: false, result: view };
  const events = [flagEvent(next, 'feature-metadata-updated', null, view, rowView(flag))];
  if (next.stale !== flag.stale) events.push(flagEvent(next, next.stale ? 'feature-stale-on' : 'feature-stale-off', null));
  return { next, events, transactional: false, result: view };
}

/** The project's bulk stale route: a flag already so is left, and nothing recorded for it (measured). */
export function applyStale(flag: FlagData, stale: boolean): Applied {
  if (flag.stale === stale) return { next: flag, events: [], transactional: false, result: undefined };
  const next = { ...flag, stale };
  return { next, events: [flagEvent(next, stale ? 'feature-stale-on' : 'feature-stale-off', null)], transactional: false, result: undefined };
}
