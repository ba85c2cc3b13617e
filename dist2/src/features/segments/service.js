import { buildEvents, retrying } from '../../db/outbox.js';
import { exceedsLimit, nameExists, notFound, schemaValidationError, validationError } from '../../errors.js';
import { assertSegmentValuesLimit, normaliseConstraints } from '../constraints/index.js';
import { isDuplicateKey } from '../../db/keys.js';
import { toSegment } from './store.js';
/** Unleash's default resource limit for segments. */
export const SEGMENT_LIMIT = 300;
/** A segment as Unleash shows it: `project` only when set (docs/rules.md §1.4 S9). */
export function publicSegment(segment) {
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
export class SegmentService {
    store;
    projects;
    outbox;
    constructor(store, projects, outbox) {
        this.store = store;
        this.projects = projects;
        this.outbox = outbox;
    }
    async get(id) {
        const segment = await this.store.get(id);
        if (!segment)
            throw notFound(`No segment exists with ID "${id}"`);
        return segment;
    }
    async list() {
        const segments = await this.store.list();
        const usage = await this.store.usage(segments.map((s) => s.id));
        return segments.map((s) => ({
            ...s,
            usedInProjects: usage.get(s.id)?.projects.size ?? 0,
            usedInFeatures: usage.get(s.id)?.features.size ?? 0,
        }));
    }
    /** Unleash's order: segment limit, body rules (joi), constraints, values limit, name. */
    async create(input, audit) {
        if ((await this.store.count()) >= SEGMENT_LIMIT)
            throw exceedsLimit('segment', SEGMENT_LIMIT);
        const valid = await this.validate(input);
        if (await this.store.existsByName(valid.name))
            throw nameExists('Segment name already exists');
        const id = await this.store.allocateId();
        const doc = {
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
        }
        catch (err) {
            if (isDuplicateKey(err))
                throw nameExists('Segment name already exists');
            throw err;
        }
        return segment;
    }
    async update(id, input, audit) {
        const valid = await this.validate(input);
        await this.outbox.exclusive(`segment:${id}`, () => retrying(async () => {
            const current = await this.store.getDocument(id);
            if (!current)
                throw notFound(`No segment exists with ID "${id}"`);
            if (current.name !== valid.name && (await this.store.existsByName(valid.name))) {
                throw nameExists('Segment name already exists');
            }
            await this.checkProjectChange(id, valid.project);
            const next = {
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
            if (events.length === 0)
                return; // nothing changed: no write, no event (docs/rules.md §4.4)
            try {
                await this.store.replace(current, next, events);
            }
            catch (err) {
                if (isDuplicateKey(err))
                    throw nameExists('Segment name already exists');
                throw err;
            }
        }));
    }
    /**
     * 409 (by the caller) while a strategy uses it; an unknown id is a 404, as in Unleash.
     *
     * Against another instance adding a strategy that uses the segment at the same moment: the
     * segment is first marked `deleting`, then the flags are checked as the database has them;
     * the strategy add checks the segment in the database after its own write and takes the
     * strategy back if the segment is being deleted (FlagService.addStrategy). Each side checks
     * after its own write, so at least one sees the other's: never a strategy left using a deleted
     * segment (at worst both give up and are retried).
     */
    async delete(id, audit) {
        if (await this.store.isInUse(id))
            return 'in-use';
        return await this.outbox.exclusive(`segment:${id}`, () => retrying(async () => {
            const current = await this.store.getDocument(id);
            if (!current || current.deleting)
                throw notFound(`No segment exists with ID "${id}"`);
            await this.store.replace(current, { ...current, deleting: true }, []);
            const marked = (await this.store.getDocument(id));
            if (await this.store.isInUseInDatabase(id)) {
                const { deleting: _d, ...unmarked } = marked;
                await this.store.replace(marked, unmarked, []);
                return 'in-use';
            }
            const segment = toSegment(marked);
            await this.store.remove(marked, buildEvents(audit, [
                { type: 'segment-deleted', project: segment.project, preData: publicSegment(segment) },
            ]));
            return 'deleted';
        }));
    }
    /** The body rules of create/update, without writing (change requests validate segment changes with them). */
    async checkInput(input) {
        return await this.validate(input);
    }
    /** The joi rules Unleash applies to a segment body, then constraint rules and the values limit. */
    async validate(input) {
        if (input.name === '')
            throw schemaValidationError([{ message: '"name" is not allowed to be empty.' }]);
        if (input.project === '')
            throw schemaValidationError([{ message: '"project" is not allowed to be empty.' }]);
        const constraints = normaliseConstraints(input.constraints, { labelPrefix: 'constraints' });
        assertSegmentValuesLimit(constraints);
        const project = input.project ?? null;
        if (project !== null && !(await this.projects.get(project)))
            throw notFound(`Could not find project with id "${project}"`);
        return { name: input.name, description: input.description, project, constraints };
    }
    /** A project-scoped segment may only be used by strategies of that project. */
    async checkProjectChange(id, project) {
        if (!project)
            return;
        const used = (await this.store.usage([id])).get(id)?.allProjects ?? new Set();
        if (used.size > 1 || (used.size === 1 && !used.has(project))) {
            throw validationError(`Invalid project. Segment is being used by strategies in other projects: ${[...used].join(', ')}`);
        }
    }
}
//# sourceMappingURL=service.js.map