/**
 * Operations on several flags of a project at once (archive, revive, delete, on/off, tags), as
 * Unleash 8.2 answers them. Each applies the same pure rules as the one-flag operation (apply.ts,
 * tags.ts) to every flag under its lock, then writes all the changed flags with their events in one
 * commit: all or nothing, as Unleash runs them in one transaction (measured: a bulk on whose second
 * flag does not exist leaves the first off, with no event).
 */
import { buildEvents, retrying, withoutBookkeeping, type AuditUser, type EventInput, type Outbox } from '../../db/outbox/index.js';
import { invalidOperation, notFound, validationError } from '../../errors.js';
import type { TagService } from '../tags/service.js';
import { applyArchive, applyRevive, applySetEnabled, flagEvent, type ApplyContext } from './apply.js';
import type { FlagData, FlagDocument } from './read-model.js';
import type { FlagService } from './service.js';
import type { ProjectSource } from './sources.js';
import type { FlagStore } from './store.js';
import { applyTag, applyUntag, type TagRef } from './tags.js';

/** What one flag of a bulk operation becomes: `next` (null: deleted) with its events; null: left as it is. */
type Step = (flag: FlagData, ctx: ApplyContext) => { next: FlagData | null; events: EventInput[] } | null;

const byName = (a: FlagData, b: FlagData) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Unleash lists the flags it archived or deleted in its table's row order (the order of the rows'
 * last writes, measured: archived [b, e] recorded e first); Vane uses creation order, the order a
 * table nobody rewrote would have.
 */
const byCreation = (a: FlagData, b: FlagData) => a.createdAt.getTime() - b.createdAt.getTime() || byName(a, b);

/** The events of all flags with those of `types` first, in that order, each type's in flag order. */
function grouped(types: readonly string[]) {
  return (perFlag: EventInput[][]): EventInput[] => {
    const all = perFlag.flat();
    const rank = (event: EventInput) => (types.includes(event.type) ? types.indexOf(event.type) : types.length);
    return all.map((event, i) => ({ event, i })).sort((a, b) => rank(a.event) - rank(b.event) || a.i - b.i).map(({ event }) => event);
  };
}

export class FlagBulkService {
  constructor(
    private readonly flags: FlagService,
    private readonly store: FlagStore,
    private readonly projects: ProjectSource,
    private readonly tags: TagService,
    private readonly outbox: Outbox,
  ) {}

  /** The named flags that exist, once each. */
  private existing(names: readonly string[]): FlagDocument[] {
    return [...new Set(names)].map((name) => this.store.getNow(name)).filter((flag) => flag !== null);
  }

  /** 403 when a named flag belongs to another project (Unleash's validateFeaturesContext; unknown names pass). */
  private assertInProject(flags: readonly FlagDocument[], projectId: string): void {
    const others = [...new Set([...flags].sort(byName).map((flag) => flag.project).filter((project) => project !== projectId))];
    if (others.length === 0) return;
    throw invalidOperation(`The operation could not be completed. The features exist, but the provided project ids ("${others.join(',')}") does not match the project provided in request URL ("${projectId}").`);
  }

  /** The named flags that live flags outside the list depend on (Unleash's orphan parents), by name. */
  private orphanParents(names: readonly string[]): string[] {
    const listed = new Set(names);
    return [...listed].filter((name) => this.store.childrenNow(name).some((child) => !listed.has(child))).sort();
  }

  private assertNoOrphanParents(names: readonly string[]): void {
    if (this.orphanParents(names).length === 0) return;
    throw invalidOperation(names.length > 1
      ? 'You can not archive/delete those features since other features depend on them.'
      : 'You can not archive/delete this feature since other features depend on it.');
  }

  /** What archiving these flags would do: parents left with children, and whether any dependency goes. */
  validateArchive(names: readonly string[]): { parentsWithChildFeatures: string[]; hasDeletedDependencies: boolean } {
    const hasDeletedDependencies = this.existing(names)
      .some((flag) => (!flag.archived && flag.dependencies.length > 0) || this.store.childrenNow(flag.name).length > 0);
    return { parentsWithChildFeatures: this.orphanParents(names), hasDeletedDependencies };
  }

  /** Archives the live ones (unknown and archived names are skipped); every dependency removal first. */
  async archive(projectId: string, names: readonly string[], audit: AuditUser): Promise<void> {
    const flags = this.existing(names);
    this.assertInProject(flags, projectId);
    this.assertNoOrphanParents(names);
    const live = flags.filter((flag) => !flag.archived).sort(byCreation);
    // Children listed beside their parent are archived with it: the parent is left none.
    await this.mutateMany(live, audit, (flag, ctx) => applyArchive(flag, [], ctx), grouped(['feature-dependencies-removed']));
  }

  /** Revives the archived ones, all environments off (404 for a project that is not active). */
  async revive(projectId: string, names: readonly string[], audit: AuditUser): Promise<void> {
    const project = await this.projects.get(projectId);
    if (!project || project.archivedAt) throw notFound(`Active project with id ${projectId} does not exist`);
    const flags = this.existing(names);
    this.assertInProject(flags, projectId);
    await this.mutateMany(flags.filter((flag) => flag.archived).sort(byName), audit, (flag, ctx) => applyRevive(flag, ctx));
  }

  /** Deletes the archived ones for good (`feature-deleted` with the flag's row as preData); live ones are skipped. */
  async delete(projectId: string, names: readonly string[], audit: AuditUser): Promise<void> {
    const flags = this.existing(names);
    this.assertInProject(flags, projectId);
    this.assertNoOrphanParents(names);
    await this.mutateMany(flags.filter((flag) => flag.archived).sort(byCreation), audit, (flag) => (flag.archived
      ? { next: null, events: [flagEvent(flag, 'feature-deleted', null, null, deletedView(flag))] }
      : null));
  }

  /** `DELETE /api/admin/archive/:featureName`: false when no flag has the name (nothing to do). */
  async deleteOne(featureName: string, audit: AuditUser): Promise<boolean> {
    const flag = this.store.getNow(featureName);
    if (!flag) return false;
    await this.delete(flag.project, [featureName], audit);
    return true;
  }

  /**
   * Turns each flag on or off in `environment`, in the order given; the first flag that cannot be
   * (unknown, another project's, archived, no such environment) refuses the whole request.
   */
  async setEnabled(projectId: string, names: readonly string[], environment: string, enabled: boolean, activateDisabled: boolean, audit: AuditUser): Promise<void> {
    const flags: FlagDocument[] = [];
    for (const name of new Set(names)) {
      const flag = await this.flags.requireFlag(projectId, name);
      // Checked here, flag by flag, so the refusal is the first flag's in the order given (Unleash's).
      applySetEnabled(flag, environment, enabled, await this.flags.context(flag), activateDisabled);
      flags.push(flag);
    }
    await this.mutateMany(flags, audit, (flag, ctx) => applySetEnabled(flag, environment, enabled, ctx, activateDisabled));
  }

  /**
   * Adds then removes tags on each flag (archived ones too): unknown tags are created first, and each
   * flag records one event per tag asked for, all `feature-tagged` before any `feature-untagged`.
   */
  async updateTags(projectId: string, names: readonly string[], added: readonly TagRef[], removed: readonly TagRef[], audit: AuditUser): Promise<void> {
    const flags = this.existing(names);
    if (flags.some((flag) => flag.project !== projectId)) throw validationError('Tried to change tags of feature not belonging to project');
    for (const tag of added) {
      if (!(await this.tags.typeExists(tag.type))) throw validationError(`Tag type '${tag.type}' does not exist`);
    }
    // Unleash fails with 500 (a foreign key) after creating the tags; D10: 404, nothing created.
    if (added.length > 0 && flags.length < new Set(names).size) {
      const missing = names.find((name) => !flags.some((flag) => flag.name === name));
      throw notFound(`Could not find feature flag "${missing}"`);
    }
    await this.tags.ensureTags([...added], audit);
    const colors = await this.tags.colors();
    await this.mutateMany(flags.sort(byName), audit, (flag) => {
      const tagged = applyTag(flag, added);
      const untagged = applyUntag(tagged.next, removed, colors);
      // A bulk's events carry the flag's tags after the whole change, without colours, in Unleash's
      // row order, mostly the order they were added (measured: [gx, b…new] with gx added first; seed
      // 8233: [simple:q3, a8233-tt1:ü-tag]; seed 8232 once the reverse): D13.
      const after = untagged.next.tags.map((t) => ({ value: t.value, type: t.type }));
      return { next: untagged.next, events: [...tagged.events, ...untagged.events].map((event) => ({ ...event, tags: after })) };
    }, grouped(['feature-tagged', 'feature-untagged']), false);
  }

  /**
   * Applies `step` to each of `flags` (read again under its lock) and writes every changed flag with
   * the events in one commit. `arrange` orders the events of all flags (default: flag by flag).
   */
  private async mutateMany(
    flags: readonly FlagDocument[], audit: AuditUser, step: Step,
    arrange: (perFlag: EventInput[][]) => EventInput[] = (perFlag) => perFlag.flat(), transactional = true,
  ): Promise<void> {
    if (flags.length === 0) return;
    await this.outbox.exclusive(flags.map((flag) => `flag:${flag.name}`), () => retrying(async () => {
      const now = new Date();
      const writes: Array<{ current: FlagDocument; next: FlagData | null }> = [];
      const perFlag: EventInput[][] = [];
      for (const { name } of flags) {
        const current = this.store.getNow(name);
        if (!current) continue; // deleted meanwhile, as if it had not been named
        const data = withoutBookkeeping(current) as FlagData;
        const applied = step(data, await this.flags.context(current, [], now));
        if (!applied || (applied.next === data && applied.events.length === 0)) continue;
        writes.push({ current, next: applied.next });
        perFlag.push(applied.events);
      }
      if (writes.length === 0) return;
      await this.store.writeMany(writes, buildEvents(audit, arrange(perFlag), { transactional, at: now }));
    }));
  }
}

/** A deleted flag's row, as Unleash records it in `feature-deleted` (its key order). */
function deletedView(flag: FlagData) {
  return {
    name: flag.name, type: flag.type, stale: flag.stale, project: flag.project, archived: true,
    createdAt: flag.createdAt, archivedAt: flag.archivedAt, description: flag.description, impressionData: flag.impressionData,
  };
}
