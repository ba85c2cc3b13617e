import { buildEvents, retrying, type AuditUser, type Outbox } from '../../db/outbox/index.js';
import { exceedsLimit, nameExists, notFound, schemaValidationError, validationError } from '../../errors.js';
import type { ConstraintConfig } from '../../evaluation/types.js';
import { assertLegalValues, assertSegmentValuesLimit, normaliseConstraints } from '../constraints/index.js';
import { isDuplicateKey } from '../../db/keys.js';
import type { Segment } from './read-model.js';
import type { FlagUsage, LegalValueSource, ProjectLookup } from './sources.js';
import { toSegment, type SegmentDocument, type SegmentStore } from './store.js';
import type { SegmentView } from './schemas.js';

/** Unleash's default resource limit for segments. */
export const SEGMENT_LIMIT = 300;

export interface SegmentInput {
  name: string;
  description?: string | null;
  project?: string | null;
  constraints: unknown[];
}

/** A segment as Unleash shows it: `project` only when set (docs/rules.md §1.4 S9). */
export function publicSegment(segment: Segment): SegmentView {
  return {
    id: segment.id,
    name: segment.name,
    description: segment.description,
    ...(segment.project ? { project: segment.project } : {}),
    constraints: segment.constraints,
    createdBy: segment.createdBy,
    createdAt: segment.createdAt.toISOString(),
  };
}

export type DeleteOutcome = 'deleted' | 'in-use';

export interface ValidInput {
  name: string;
  description: string | null | undefined;
  project: string | null;
  constraints: ConstraintConfig[];
}

export class SegmentService {
  constructor(
    private readonly store: SegmentStore,
    private readonly flags: FlagUsage,
    private readonly projects: ProjectLookup,
    private readonly outbox: Outbox,
    private readonly contextFields: LegalValueSource,
  ) {}

  async get(id: number): Promise<Segment> {
    const segment = await this.store.get(id);
    if (!segment) throw notFound(`No segment exists with ID "${id}"`);
    return segment;
  }

  async list(): Promise<Array<Segment & { usedInProjects: number; usedInFeatures: number }>> {
    const segments = await this.store.list();
    const usage = this.flags.segmentUsage();
    return segments.map((s) => ({
      ...s,
      usedInProjects: usage.get(s.id)?.projects.size ?? 0,
      usedInFeatures: usage.get(s.id)?.features.size ?? 0,
    }));
  }

  /**
   * `POST /api/admin/segments/validate`, asked by the UI's form before its Next step. Measured on the
   * reference: `""` → 400 "Segment name cannot be empty"; a taken name, exactly as stored → 409;
   * `"A8-SEG0"` beside `a8-seg0` and `"   "` → 204 (no case folding, no trimming).
   */
  async validateName(name: string): Promise<void> {
    if (name === '') throw validationError('Segment name cannot be empty');
    if (await this.store.existsByName(name)) throw nameExists('Segment name already exists');
  }

  /** Unleash's order: segment limit, body rules (joi), constraints, values limit, name. */
  async create(input: SegmentInput, audit: AuditUser): Promise<Segment> {
    if ((await this.store.count()) >= SEGMENT_LIMIT) throw exceedsLimit('segment', SEGMENT_LIMIT);
    const valid = await this.validate(input);
    if (await this.store.existsByName(valid.name)) throw nameExists('Segment name already exists');
    const id = await this.store.allocateId();
    const doc: SegmentDocument = {
      _id: id,
      name: valid.name,
      description: valid.description ?? null,
      project: valid.project,
      constraints: valid.constraints,
      createdBy: audit.name,
      createdAt: new Date(),
    };
    const segment = toSegment(doc);
    const events = buildEvents(audit, [{ type: 'segment-created', project: segment.project, data: publicSegment(segment) }]);
    try {
      await this.store.insert(doc, events);
    } catch (err) {
      if (isDuplicateKey(err)) throw nameExists('Segment name already exists');
      throw err;
    }
    return segment;
  }

  async update(id: number, input: SegmentInput, audit: AuditUser): Promise<void> {
    const valid = await this.validate(input);
    await this.outbox.exclusive(`segment:${id}`, () =>
      retrying(async () => {
        const current = await this.store.getDocument(id);
        if (!current) throw notFound(`No segment exists with ID "${id}"`);
        if (current.name !== valid.name && (await this.store.existsByName(valid.name))) {
          throw nameExists('Segment name already exists');
        }
        await this.checkProjectChange(id, valid.project);
        const next: SegmentDocument = {
          _id: current._id,
          name: valid.name,
          // An absent description keeps the stored one (Unleash's update skips undefined columns).
          description: valid.description === undefined ? current.description : valid.description,
          project: valid.project,
          constraints: valid.constraints,
          createdBy: current.createdBy,
          createdAt: current.createdAt,
        };
        const before = toSegment(current);
        const after = toSegment(next);
        const events = buildEvents(audit, [
          { type: 'segment-updated', project: after.project, data: publicSegment(after), preData: publicSegment(before) },
        ]);
        if (events.length === 0) return; // nothing changed: no write, no event (docs/rules.md §4.4)
        try {
          await this.store.replace(current, next, events);
        } catch (err) {
          if (isDuplicateKey(err)) throw nameExists('Segment name already exists');
          throw err;
        }
      }),
    );
  }

  /**
   * 409 (by the caller) while a strategy uses it; an unknown id is a 404, as in Unleash.
   *
   * Against another instance adding a strategy that uses the segment at the same moment: the
   * segment is first marked `deleting`, then the flags are checked as the database has them;
   * the strategy add checks the segment in the database after its own write and takes the
   * strategy back if the segment is being deleted (FlagStrategyService.add). Each side checks
   * after its own write, so at least one sees the other's: never a strategy left using a deleted
   * segment (at worst both give up and are retried).
   */
  async delete(id: number, audit: AuditUser): Promise<DeleteOutcome> {
    if (this.flags.segmentUsage().has(id)) return 'in-use';
    return await this.outbox.exclusive(`segment:${id}`, () =>
      retrying(async () => {
        const current = await this.store.getDocument(id);
        if (!current || current.deleting) throw notFound(`No segment exists with ID "${id}"`);
        await this.store.replace(current, { ...current, deleting: true }, []);
        const marked = (await this.store.getDocument(id))!;
        if (await this.flags.usesSegmentInDatabase(id)) {
          const { deleting: _d, ...unmarked } = marked;
          await this.store.replace(marked, unmarked, []);
          return 'in-use' as const;
        }
        const segment = toSegment(marked);
        await this.store.remove(marked, buildEvents(audit, [
          { type: 'segment-deleted', project: segment.project, preData: publicSegment(segment) },
        ]));
        return 'deleted' as const;
      }),
    );
  }

  /** The body rules of create/update, without writing (change requests validate segment changes with them). */
  async checkInput(input: SegmentInput): Promise<ValidInput> {
    return await this.validate(input);
  }

  /** The joi rules Unleash applies to a segment body, then constraint rules and the values limit. */
  private async validate(input: SegmentInput): Promise<ValidInput> {
    if (input.name === '') throw schemaValidationError([{ message: '"name" is not allowed to be empty.' }]);
    if (input.project === '') throw schemaValidationError([{ message: '"project" is not allowed to be empty.' }]);
    const constraints = normaliseConstraints(input.constraints, { labelPrefix: 'constraints' });
    // Unleash 8.2 checks legal values before the values limit (measured: `IN [b, c]` on a field
    // whose legal values lack them → 400 "input values are not specified as a legal value …").
    for (const constraint of constraints) assertLegalValues(constraint, await this.contextFields.legalValues(constraint.contextName));
    assertSegmentValuesLimit(constraints);
    const project = input.project ?? null;
    if (project !== null && !(await this.projects.get(project))) throw notFound(`Could not find project with id "${project}"`);
    return { name: input.name, description: input.description, project, constraints };
  }

  /** A project-scoped segment may only be used by strategies of that project. */
  private async checkProjectChange(id: number, project: string | null): Promise<void> {
    if (!project) return;
    const used = this.flags.segmentUsage().get(id)?.allProjects ?? new Set<string>();
    if (used.size > 1 || (used.size === 1 && !used.has(project))) {
      throw validationError(`Invalid project. Segment is being used by strategies in other projects: ${[...used].join(', ')}`);
    }
  }
}
