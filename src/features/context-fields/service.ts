import { buildEvents, retrying, type AuditUser, type EventInput, type Outbox } from '../../db/outbox/index.js';
import { isDuplicateKey } from '../../db/keys.js';
import { conflict, nameExists, notFound, schemaValidationError } from '../../errors.js';
import { assertLegalValues, normaliseConstraint } from '../constraints/index.js';
import type { ConstraintConfig } from '../../evaluation/types.js';
import { isUrlFriendly } from '../shared.js';
import type { LiveFlag } from '../flags/read-model.js';
import type { ContextField, LegalValue } from './read-model.js';
import type {
  ContextFieldListItemView, ContextFieldStrategiesView, ContextFieldView, CreateContextFieldInput, UpdateContextFieldInput,
} from './schemas.js';
import type { FlagStrategies, ProjectLookup } from './sources.js';
import type { ContextFieldDocument, ContextFieldStore } from './store.js';

const NAME_EXISTS = 'A context field with that name already exist';
/** Operators whose legal-value check reads `value`, not `values` (Unleash: date, semver, number; REGEX reads `values`). */
const IN_USE = 'This context field is in use by existing flags. To delete it, first remove its usage from all flags.';

/** Where an operation was called: the root API or `/api/admin/projects/{projectId}/context`. */
export interface Scope {
  projectId?: string;
}

/** A field as Unleash shows it: `project` only when set, `createdAt` as ISO text. */
export function publicField(field: ContextField): ContextFieldView {
  return {
    name: field.name,
    description: field.description,
    stickiness: field.stickiness,
    sortOrder: field.sortOrder,
    legalValues: field.legalValues,
    createdAt: field.createdAt.toISOString(),
    ...(field.project ? { project: field.project } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Unleash's joi rules for context fields (services/context-schema.ts), first failure wins.

/** A joi failure as Unleash's fromJoiError renders it: ` You provided {json}.` unless the value is empty. */
function joiError(label: string, text: string, value: unknown): never {
  const end = value ? `. You provided ${JSON.stringify(value)}.` : '.';
  throw schemaValidationError([{ message: `"${label}" ${text}${end}` }]);
}

/** joi.string() with a maximum length: the empty check comes first (the base type's), then the rules. */
function checkString(label: string, value: string, max: number, allowEmpty: boolean): void {
  if (value === '' && !allowEmpty) joiError(label, 'is not allowed to be empty', value);
  if (value.length > max) joiError(label, `length must be less than or equal to ${max} characters long`, value);
}

/** Unleash's nameType: URL friendly (checked before the length, measured with a 103-character `a b…`), 1–100. */
export function checkName(name: string): void {
  if (name === '') joiError('name', 'is not allowed to be empty', name);
  if (!isUrlFriendly(name)) joiError('name', 'must be URL friendly', name);
  if (name.length > 100) joiError('name', 'length must be less than or equal to 100 characters long', name);
}

function checkLegalValue(legalValue: LegalValue, label: string): void {
  checkString(label, legalValue.value, 100, false);
}

/**
 * Every item first, then uniqueness by `value` (measured: with `[a, a, ""]` the reference names
 * `legalValues[2].value`, not the duplicate).
 */
function checkLegalValues(list: readonly LegalValue[]): void {
  list.forEach((item, i) => checkLegalValue(item, `legalValues[${i}].value`));
  const seen = new Set<string>();
  list.forEach((item, i) => {
    if (seen.has(item.value)) joiError(`legalValues[${i}]`, 'contains a duplicate value', item);
    seen.add(item.value);
  });
}

/** What contextSchema keeps of an input: its known keys in their order, then the `stickiness` default. */
const SCHEMA_KEYS: ReadonlySet<string> = new Set(['name', 'description', 'legalValues', 'stickiness', 'project']);

interface FieldValue {
  name: string;
  description?: string;
  legalValues?: LegalValue[];
  stickiness?: boolean;
  project?: string;
}

/** contextSchema.validateAsync: the checks in its key order, and the value it returns (the event's data). */
function validateField(input: FieldValue & Record<string, unknown>): Record<string, unknown> {
  checkName(input.name);
  if (input.description !== undefined) checkString('description', input.description, 250, true);
  if (input.legalValues !== undefined) checkLegalValues(input.legalValues);
  if (input.project !== undefined) checkString('project', input.project, Infinity, false);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) if (SCHEMA_KEYS.has(key) && value !== undefined) out[key] = value;
  if (out.stickiness === undefined) out.stickiness = false;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Event shapes

/**
 * The event of an update. buildEvents drops it when nothing it shows changed, key order aside
 * (measured: re-adding an unchanged legal value, deleting an absent one and a PUT of the stored
 * values left no event), and stores its preData in jsonb key order.
 */
function updateEvent(data: unknown, preData: unknown): EventInput[] {
  return [{ type: 'context-field-updated', data, preData }];
}

/** Context-field events are transactional in Unleash (each carried groupType "transaction"). */
const TRANSACTIONAL = { transactional: true } as const;

// ---------------------------------------------------------------------------------------------

interface Usage {
  projects: Set<string>;
  features: Set<string>;
}

export class ContextFieldService {
  /** Usage per field name, kept for the flag list it was computed from (one array per revision). */
  private usageMemo: { flags: readonly LiveFlag[]; usage: Map<string, Usage> } | null = null;

  constructor(
    private readonly store: ContextFieldStore,
    private readonly flags: FlagStrategies,
    private readonly projects: ProjectLookup,
    private readonly outbox: Outbox,
  ) {}

  /**
   * Root list: fields without a project (`include=project`, any case: all). Project list: that
   * project's fields (`include=root`: and the root ones). Unleash OSS has no private projects, so
   * every caller sees every project's fields.
   */
  async list(scope: Scope, include: string | undefined): Promise<ContextFieldListItemView[]> {
    const { projectId } = scope;
    const fields = (await this.store.list()).filter((f) => {
      if (projectId !== undefined) return f.project === projectId || (/^root$/i.test(include ?? '') && !f.project);
      return !f.project || /^project$/i.test(include ?? '');
    });
    const usage = await this.usage();
    return fields.map((f) => {
      const { project, ...view } = publicField(f);
      const used = usage.get(f.name);
      return {
        ...view,
        usedInProjects: used?.projects.size ?? 0,
        usedInFeatures: used?.features.size ?? 0,
        ...(project ? { project } : {}),
      };
    });
  }

  /**
   * `POST /api/admin/constraints/validate`, what the UI asks before it keeps a constraint: the
   * strategy rules of one constraint, then, when a field of that name has legal values, the value
   * (single-value operators) or every listed value must be one of them. A field that does not
   * exist is no error (measured: `nope-field IN [a]` → 204 on the reference).
   */
  async validateConstraint(input: unknown): Promise<void> {
    const constraint: ConstraintConfig = normaliseConstraint(input);
    assertLegalValues(constraint, ((await this.store.get(constraint.contextName))?.legalValues ?? []).map((v) => v.value));
  }

  /** Any field by name, whatever the path's project (measured: a project path shows root fields too). */
  async get(name: string): Promise<ContextField> {
    const field = await this.store.get(name);
    if (!field) throw notFound('Could not find context field');
    return field;
  }

  /**
   * Unleash's order: the name taken (409), the body rules (400), then the project. A project the
   * reference does not know fails its foreign key (500); Vane answers 404 as segments do.
   */
  async create(body: CreateContextFieldInput, scope: Scope, audit: AuditUser): Promise<ContextField> {
    if (await this.store.get(body.name)) throw nameExists(NAME_EXISTS);
    const value = { ...body, project: scope.projectId || body.project };
    const data = validateField(value);
    await this.requireProject(value.project);
    const doc: ContextFieldDocument = {
      _id: body.name,
      name: body.name,
      description: body.description ?? null,
      stickiness: body.stickiness || false,
      sortOrder: body.sortOrder || 0,
      legalValues: body.legalValues ?? [],
      createdAt: new Date(),
      project: value.project || null,
    };
    try {
      await this.store.insert(doc, buildEvents(audit, [{ type: 'context-field-created', data }], TRANSACTIONAL));
    } catch (err) {
      if (isDuplicateKey(err)) throw nameExists(NAME_EXISTS);
      throw err;
    }
    return doc;
  }

  /**
   * As Unleash's update: an absent description keeps the stored one, absent stickiness and legal
   * values become false and [], and sortOrder becomes 0 whatever was sent (its joi schema strips
   * the key; measured: sortOrder 5 read back as 0 after a PUT of only a description).
   */
  async update(name: string, body: UpdateContextFieldInput, scope: Scope, audit: AuditUser): Promise<void> {
    await this.change(name, scope, audit, async (current) => {
      const value = { ...body, name };
      const data = validateField(value);
      if (value.project) await this.requireProject(value.project);
      const next: ContextFieldDocument = {
        ...current,
        description: value.description === undefined ? current.description : value.description,
        stickiness: value.stickiness || false,
        sortOrder: 0,
        legalValues: value.legalValues ?? [],
        project: value.project || current.project,
      };
      const { createdAt: _c, sortOrder: _s, ...previous } = publicField(current);
      return { next, events: updateEvent(data, previous) };
    });
  }

  /** Adds a legal value, or replaces the one with the same `value` (its description too, or its absence). */
  async putLegalValue(name: string, legalValue: LegalValue, scope: Scope, audit: AuditUser): Promise<void> {
    await this.change(name, scope, audit, async (current) => {
      checkLegalValue(legalValue, 'value');
      const legalValues = [...current.legalValues];
      const index = legalValues.findIndex((v) => v.value === legalValue.value);
      if (index === -1) legalValues.push(legalValue);
      else legalValues[index] = legalValue;
      return this.legalValuesChange(current, legalValues);
    });
  }

  /** Removes a legal value; an absent one changes nothing (200, no event). */
  async deleteLegalValue(name: string, legalValue: string, scope: Scope, audit: AuditUser): Promise<void> {
    await this.change(name, scope, audit, async (current) =>
      this.legalValuesChange(current, current.legalValues.filter((v) => v.value !== legalValue)));
  }

  /** 409 while a live flag's strategy has a constraint on it; built-in fields may be deleted too (measured: 200). */
  async delete(name: string, scope: Scope, audit: AuditUser): Promise<void> {
    await this.outbox.exclusive(`context-field:${name}`, () =>
      retrying(async () => {
        const current = await this.requireInScope(name, scope);
        if ((await this.strategies(name)).strategies.length > 0) throw conflict(IN_USE);
        const preData = publicField(current);
        await this.store.remove(current, buildEvents(audit, [{ type: 'context-field-deleted', preData }], TRANSACTIONAL));
      }),
    );
  }

  /** POST …/validate: the name rules, then 409 when any field (a built-in one too) has the name. */
  async validateName(name: string): Promise<void> {
    checkName(name);
    if (await this.store.get(name)) throw nameExists(NAME_EXISTS);
  }

  /**
   * Strategies of non-archived flags with a constraint on `name`, whether or not the field
   * exists, in creation order (ULID ids; the reference listed them as they were added).
   */
  async strategies(name: string): Promise<ContextFieldStrategiesView> {
    const found: ContextFieldStrategiesView['strategies'] = [];
    for (const flag of await this.flags.snapshotSource()) {
      for (const [environment, env] of Object.entries(flag.environments)) {
        for (const strategy of env.strategies) {
          if (strategy.constraints.some((c) => c.contextName === name)) {
            found.push({ id: strategy.id, projectId: flag.project, featureName: flag.name, strategyName: strategy.name, environment });
          }
        }
      }
    }
    found.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { strategies: found };
  }

  // -------------------------------------------------------------------------------------------

  /** Legal-value changes keep sortOrder; their data and preData are the whole field (preData in jsonb order). */
  private legalValuesChange(current: ContextFieldDocument, legalValues: LegalValue[]) {
    const next: ContextFieldDocument = { ...current, legalValues };
    const preData = publicField(current);
    return { next, events: updateEvent({ ...preData, legalValues }, preData) };
  }

  /** A read-modify-write of one field, serialised per field; no write when nothing changed. */
  private async change(
    name: string,
    scope: Scope,
    audit: AuditUser,
    fn: (current: ContextFieldDocument) => Promise<{ next: ContextFieldDocument; events: EventInput[] }>,
  ): Promise<void> {
    await this.outbox.exclusive(`context-field:${name}`, () =>
      retrying(async () => {
        const current = await this.requireInScope(name, scope);
        const { next, events } = await fn(current);
        const pending = buildEvents(audit, events, TRANSACTIONAL);
        if (pending.length === 0 && JSON.stringify(next) === JSON.stringify(current)) return;
        await this.store.replace(current, next, pending);
      }),
    );
  }

  /** 404 for an unknown field, then for one of another scope on a project path. */
  private async requireInScope(name: string, scope: Scope): Promise<ContextFieldDocument> {
    const current = await this.store.getDocument(name);
    if (!current) throw notFound(`Could not find context field with name ${name}`);
    if (scope.projectId && current.project !== scope.projectId) {
      throw notFound(`Could not find context field ${name} in project ${scope.projectId}`);
    }
    return current;
  }

  private async requireProject(project: string | undefined): Promise<void> {
    if (project && !(await this.projects.get(project))) throw notFound(`Could not find project with id "${project}"`);
  }

  /**
   * Per field name, the projects and flags whose strategies (any environment) constrain on it,
   * among non-archived flags (Unleash counts strategies' own constraints, not their segments').
   */
  private async usage(): Promise<Map<string, Usage>> {
    const flags = await this.flags.snapshotSource();
    if (this.usageMemo?.flags === flags) return this.usageMemo.usage;
    const usage = new Map<string, Usage>();
    for (const flag of flags) {
      for (const env of Object.values(flag.environments)) {
        for (const strategy of env.strategies) {
          for (const constraint of strategy.constraints) {
            let used = usage.get(constraint.contextName);
            if (!used) usage.set(constraint.contextName, (used = { projects: new Set(), features: new Set() }));
            used.projects.add(flag.project);
            used.features.add(flag.name);
          }
        }
      }
    }
    this.usageMemo = { flags, usage };
    return usage;
  }
}
