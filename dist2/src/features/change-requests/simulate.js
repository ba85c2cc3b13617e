/**
 * A change request's changes applied in memory, in order, with the live endpoints' own rules
 * (the pure functions of src/features/flags/apply.ts and the segment body rules). Used three
 * ways: to validate a change when it is added (against the current state with the request's
 * earlier changes applied), to preview a request (E3), and as the dry run of an apply, whose
 * result is the exact set of document writes (with their events) the apply then performs.
 * Nothing here writes.
 */
import { buildEvents, jsonEqual, withoutBookkeeping } from '../../db/outbox.js';
import { conflict, invalidOperation, nameExists, notFound, validationError } from '../../errors.js';
import { applyAddDependency, applyAddStrategy, applyArchive, applyDeleteStrategy, applyRemoveDependency, applyReorderStrategies, applySetEnabled, applySetVariants, applyUpdateStrategy, } from '../flags/apply.js';
import { toFlagConfig } from '../flags/store.js';
import { toSegmentConfig } from '../segments/store.js';
export class Simulation {
    deps;
    project;
    environment;
    audit;
    now;
    flags = new Map();
    segments = new Map();
    base;
    otherFlags;
    allSegments;
    constructor(deps, project, environment, audit, now = new Date()) {
        this.deps = deps;
        this.project = project;
        this.environment = environment;
        this.audit = audit;
        this.now = now;
    }
    /** Reads every flag of the project (archived ones too: changes to them fail like live ones). */
    async load() {
        const store = this.deps.flags.store;
        const docs = [
            ...(await store.listByProject(this.project)),
            ...(await store.listByProject(this.project, { archived: true })),
        ];
        for (const doc of docs) {
            this.flags.set(doc.name, { original: doc, current: withoutBookkeeping(doc), events: [], changeIds: [] });
        }
        // What the rules need beyond the flag depends on the project only (types, environments, stickiness).
        this.base = await this.deps.flags.context({ project: this.project }, [], this.now);
        return this;
    }
    /** Applies one change; throws the live endpoint's error when it does not apply. */
    async apply(change) {
        if (change.action === 'updateSegment' || change.action === 'deleteSegment')
            await this.applySegment(change);
        else
            await this.applyFlag(change);
    }
    // -------------------------------------------------------------------------------------------
    // flags
    async track(name, action) {
        const track = this.flags.get(name);
        if (track)
            return track;
        if (action === 'archiveFeature' && !(await this.deps.flags.store.get(name))) {
            throw notFound(`Could not find feature flag "${name}"`);
        }
        // Not in the project: the live endpoints' 404 (naming the project that has it, if any).
        await this.deps.flags.requireFlag(this.project, name);
        throw notFound(`There's no feature named "${name}" in project "${this.project}".`);
    }
    async contextFor(segmentIds) {
        const segments = new Map();
        for (const id of Array.isArray(segmentIds) ? segmentIds : []) {
            if (typeof id !== 'number' || segments.has(id))
                continue;
            const segment = (await this.segmentTrack(id))?.current;
            if (segment)
                segments.set(id, segment);
        }
        return { ...this.base, segments };
    }
    /** Names of the non-archived flags that depend on `name` (as FlagStore.children, in memory). */
    children(name) {
        return [...this.flags.values()]
            .filter((t) => !t.current.archived && t.current.dependencies.some((d) => d.feature === name))
            .sort((a, b) => a.current.createdAt.getTime() - b.current.createdAt.getTime() || (a.current.name < b.current.name ? -1 : 1))
            .map((t) => t.current.name);
    }
    /** The 403 of docs/rules.md §1.4 S4 for a strategy id that belongs to another flag or project. */
    async assertStrategyNotElsewhere(flag, strategyId) {
        for (const t of this.flags.values()) {
            if (t.current.name === flag.name)
                continue;
            if (Object.values(t.current.environments).some((env) => env.strategies.some((s) => s.id === strategyId))) {
                throw invalidOperation('You can not change the featureName for an activation strategy.');
            }
        }
        const owner = await this.deps.flags.store.findByStrategyId(strategyId);
        if (owner && owner.project !== this.project)
            throw invalidOperation('You can not change the projectId for an activation strategy.');
    }
    async applyFlag(change) {
        const name = change.feature;
        const track = await this.track(name, change.action);
        const flag = track.current;
        const env = this.environment;
        let applied;
        switch (change.action) {
            case 'updateEnabled':
                applied = applySetEnabled(flag, env, change.payload.enabled, await this.contextFor([]));
                break;
            case 'addStrategy':
                applied = applyAddStrategy(flag, env, change.payload, await this.contextFor(change.payload.segments));
                break;
            case 'updateStrategy': {
                const { id: strategyId, ...input } = change.payload;
                if (!flag.environments[env]?.strategies.some((s) => s.id === strategyId))
                    await this.assertStrategyNotElsewhere(flag, strategyId);
                applied = applyUpdateStrategy(flag, env, strategyId, input, await this.contextFor(input.segments));
                break;
            }
            case 'deleteStrategy': {
                // Live, an unknown id is a silent no-op; a change request's change must still apply (the
                // strategy deleted meanwhile is a conflict), so it fails as an update would.
                const ctx = await this.contextFor([]);
                applied = applyDeleteStrategy(flag, env, change.payload.id, ctx);
                if (applied.result === null)
                    throw notFound(`Could not find strategy with id ${change.payload.id}`);
                break;
            }
            case 'patchVariant':
                applied = applySetVariants(flag, env, change.payload.variants, await this.contextFor([]));
                break;
            case 'reorderStrategy':
                applied = applyReorderStrategies(flag, env, change.payload, await this.contextFor([]));
                break;
            case 'archiveFeature':
                applied = applyArchive(flag, this.children(name), await this.contextFor([]));
                break;
            case 'addDependency': {
                const input = change.payload;
                let parent = null;
                if (input.feature !== name) {
                    const inProject = this.flags.get(input.feature);
                    if (inProject)
                        parent = inProject.current;
                    else {
                        const elsewhere = await this.deps.flags.store.get(input.feature);
                        parent = elsewhere ? withoutBookkeeping(elsewhere) : null;
                    }
                }
                applied = applyAddDependency(flag, input, { parent, childChildren: this.children(name) });
                break;
            }
            case 'deleteDependency':
                applied = applyRemoveDependency(flag, change.payload.feature);
                break;
            default: {
                // Every action is handled (the compiler checks); a stored change of an unknown one still fails cleanly.
                const unhandled = change;
                throw validationError(`Unknown change action in ${JSON.stringify(unhandled)}`);
            }
        }
        track.current = applied.next;
        track.events.push(...buildEvents(this.audit, applied.events, { transactional: applied.transactional, at: this.now }));
        if (change.id !== undefined)
            track.changeIds.push(change.id);
    }
    // -------------------------------------------------------------------------------------------
    // segments
    async segmentTrack(id) {
        const known = this.segments.get(id);
        if (known)
            return known;
        const segment = await this.deps.segmentStore.get(id);
        if (!segment)
            return null;
        const track = { original: segment, current: segment, changeIds: [] };
        this.segments.set(id, track);
        return track;
    }
    /** Every flag (all projects, archived included) with this simulation's state for the project's. */
    async everyFlag() {
        if (!this.otherFlags) {
            this.otherFlags = (await this.deps.flags.store.all())
                .filter((f) => f.project !== this.project)
                .map((f) => withoutBookkeeping(f));
        }
        return [...this.otherFlags, ...[...this.flags.values()].map((t) => t.current)];
    }
    /** Projects whose flags (archived ones too) have a strategy using the segment. */
    async projectsUsing(id) {
        const projects = new Set();
        for (const flag of await this.everyFlag()) {
            const uses = Object.values(flag.environments).some((env) => env.strategies.some((s) => (s.segments ?? []).includes(id)));
            if (uses)
                projects.add(flag.project);
        }
        return projects;
    }
    async nameTaken(name, exceptId) {
        this.allSegments ??= await this.deps.segmentStore.list();
        for (const stored of this.allSegments) {
            if (stored.id === exceptId)
                continue;
            const current = this.segments.has(stored.id) ? this.segments.get(stored.id).current : stored;
            if (current?.name === name)
                return true;
        }
        return false;
    }
    async applySegment(change) {
        const id = change.segment;
        const track = await this.segmentTrack(id);
        if (!track?.current)
            throw notFound(`No segment exists with ID "${id}"`);
        const current = track.current;
        if (change.action === 'deleteSegment') {
            // Live, a segment in use answers 409; so does a change request that would delete one.
            if ((await this.projectsUsing(id)).size > 0) {
                throw conflict(`Segment "${current.name}" is used by strategies and cannot be deleted`);
            }
            track.current = null;
        }
        else {
            const { id: _id, ...body } = change.payload;
            const valid = await this.deps.segments.checkInput(body);
            if (current.name !== valid.name && (await this.nameTaken(valid.name, id)))
                throw nameExists('Segment name already exists');
            if (valid.project) {
                const used = await this.projectsUsing(id);
                if (used.size > 1 || (used.size === 1 && !used.has(valid.project))) {
                    throw validationError(`Invalid project. Segment is being used by strategies in other projects: ${[...used].join(', ')}`);
                }
            }
            track.current = {
                ...current,
                name: valid.name,
                description: valid.description === undefined ? current.description : valid.description,
                project: valid.project,
                constraints: valid.constraints,
            };
        }
        if (change.id !== undefined)
            track.changeIds.push(change.id);
    }
    // -------------------------------------------------------------------------------------------
    // results
    /** The flags and segments whose state differs from the stored one, as the evaluation engine wants them. */
    snapshotChanges() {
        const flags = [];
        for (const track of this.flags.values()) {
            const before = toFlagConfig(withoutBookkeeping(track.original));
            const after = toFlagConfig(track.current);
            if (!jsonEqual(before, after))
                flags.push(after);
        }
        const segments = [];
        const removedSegments = [];
        for (const [id, track] of this.segments) {
            if (track.current === null)
                removedSegments.push(id);
            else if (!jsonEqual(toSegmentConfig(track.original), toSegmentConfig(track.current)))
                segments.push(toSegmentConfig(track.current));
        }
        return {
            ...(flags.length ? { flags } : {}),
            ...(segments.length ? { segments } : {}),
            ...(removedSegments.length ? { removedSegments } : {}),
        };
    }
    /** One write per changed flag document, carrying that flag's events in change order. */
    flagWrites() {
        const writes = [];
        for (const [name, track] of this.flags) {
            const unchanged = jsonEqual(withoutBookkeeping(track.original), track.current);
            if (track.events.length === 0 && unchanged)
                continue;
            writes.push({ name, original: track.original, next: track.current, events: track.events, changeIds: track.changeIds });
        }
        return writes;
    }
    /** The final state of each changed segment, as one segment-service call each. */
    segmentOps() {
        const ops = [];
        for (const [id, track] of this.segments) {
            if (track.changeIds.length === 0)
                continue;
            if (track.current === null)
                ops.push({ kind: 'delete', id, changeIds: track.changeIds });
            else {
                const s = track.current;
                const input = { name: s.name, description: s.description, project: s.project, constraints: s.constraints };
                ops.push({ kind: 'update', id, input, changeIds: track.changeIds });
            }
        }
        return ops;
    }
}
//# sourceMappingURL=simulate.js.map