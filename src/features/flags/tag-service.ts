/**
 * A flag's tags, by flag name (archived flags included, as Unleash's feature-tag service), and the
 * deletion of a tag or tag type cascading onto every flag. Writes go through FlagService.mutate.
 */
import type { AuditUser } from '../../db/outbox/index.js';
import { notFound, schemaValidationError, validationError } from '../../errors.js';
import { isUrlFriendly } from '../shared.js';
import type { TagService } from '../tags/service.js';
import type { FlagRewrites } from './rewrites.js';
import type { FlagService } from './service.js';
import { applyTag, applyUntag, sortedTags, tagsView, type TagRef, type TagView } from './tags.js';

export class FlagTagService {
  constructor(
    private readonly flags: FlagService,
    private readonly tags: TagService,
    private readonly rewrites: FlagRewrites,
  ) {}

  async list(featureName: string): Promise<TagView[]> {
    const flag = await this.flags.store.get(featureName);
    if (!flag) throw notFound(`Could not find feature with name ${featureName}`);
    return sortedTags(tagsView(flag, await this.tags.colors()));
  }

  /** Tags one flag: each tag not yet known is created first (`tag-created`), as Unleash does. */
  async add(featureName: string, added: readonly TagRef[], audit: AuditUser): Promise<void> {
    const flag = await this.flags.store.get(featureName);
    if (!flag) throw notFound('No feature flag found');
    for (const tag of added) {
      if (!isUrlFriendly(tag.type)) throw schemaValidationError([{ message: `"type" must be URL friendly. You provided ${JSON.stringify(tag.type)}.` }]);
      if (!(await this.tags.typeExists(tag.type))) throw validationError(`Tag type '${tag.type}' does not exist`);
    }
    // Unleash adds them concurrently: those whose tag exists record their event before those
    // that create one (measured: `feature-tagged` for a known tag, then `tag-created`, then its own).
    const known: TagRef[] = [];
    const unknown: TagRef[] = [];
    for (const tag of added) (await this.tags.tagExists(tag.type, tag.value) ? known : unknown).push(tag);
    if (known.length) await this.flags.mutate(flag.project, featureName, audit, (current) => applyTag(current, known));
    for (const tag of unknown) {
      await this.tags.ensureTags([tag], audit);
      await this.flags.mutate(flag.project, featureName, audit, (current) => applyTag(current, [tag]));
    }
  }

  async remove(featureName: string, removed: readonly TagRef[], audit: AuditUser): Promise<void> {
    const flag = await this.flags.store.get(featureName);
    if (!flag) throw notFound('No feature flag found');
    if (removed.length === 0) return;
    const colors = await this.tags.colors();
    await this.flags.mutate(flag.project, featureName, audit, (current) => applyUntag(current, removed, colors));
  }

  /** Deletes a tag and takes it off every flag (Unleash's foreign key cascades; no flag event). */
  async deleteTag(type: string, value: string, audit: AuditUser): Promise<void> {
    await this.rewrites.dropTags((tag) => tag.type === type && tag.value === value);
    await this.tags.deleteTag(type, value, audit);
  }

  /** Deletes a tag type, its tags, and takes them off every flag (cascading, as in Unleash). */
  async deleteTagType(name: string, audit: AuditUser): Promise<void> {
    await this.tags.getType(name); // 404 before any flag is touched
    await this.rewrites.dropTags((tag) => tag.type === name);
    await this.tags.deleteType(name, audit);
  }
}
