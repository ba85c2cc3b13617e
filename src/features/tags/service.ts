import { buildEvents, retrying, type AuditUser, type Change, type Outbox } from '../../db/outbox/index.js';
import { nameExists, notFound, schemaValidationError, validationError } from '../../errors.js';
import { isUrlFriendly } from '../shared.js';
import { colorOf, tagId, type TagDocument, type TagStore, type TagTypeDocument } from './store.js';
import { isDuplicateKey } from '../../db/keys.js';

export interface TagInput {
  type?: string;
  value: string;
}

export interface TagTypeInput {
  name: string;
  description?: string;
  icon?: string | null;
  color?: string | null;
}

function joi(label: string, text: string, value: unknown): never {
  throw schemaValidationError([{ message: `"${label}" ${text}. You provided ${JSON.stringify(value)}.` }]);
}

function checkLength(label: string, value: string): void {
  if (value.length < 2) joi(label, 'length must be at least 2 characters long', value);
  if (value.length > 50) joi(label, 'length must be less than or equal to 50 characters long', value);
}

export function tagView(tag: { type: string; value: string }): { type: string; value: string } {
  return { type: tag.type, value: tag.value };
}

export function tagTypeView(type: TagTypeDocument): { name: string; description: string | null; icon: string | null; color: string | null } {
  return { name: type.name, description: type.description, icon: type.icon, color: colorOf(type) };
}

/** Tags and tag types (docs/rules.md §1.4 S10; D4 on-the-fly creation for flag creation). */
export class TagService {
  constructor(
    private readonly store: TagStore,
    private readonly outbox: Outbox,
  ) {}

  /** `POST /api/admin/tags`: value trimmed, 2–50 chars; type URL-friendly, 2–50 chars, existing. */
  async create(input: TagInput, audit: AuditUser): Promise<{ type: string; value: string }> {
    const type = input.type ?? 'simple';
    const value = input.value.trim();
    checkLength('value', value);
    checkLength('type', type);
    if (!isUrlFriendly(type)) joi('type', 'must be URL friendly', type);
    if (!(await this.store.getType(type))) throw validationError(`Tag type "${type}" does not exist`);
    const doc: TagDocument = { _id: tagId(type, value), type, value, createdAt: new Date() };
    try {
      await this.outbox.insert(this.store.tags, doc, buildEvents(audit, [{ type: 'tag-created', data: { type, value } }]));
    } catch (err) {
      if (isDuplicateKey(err)) throw nameExists(`A tag of type "${type}" with value "${value}" already exists`);
      throw err;
    }
    return { type, value };
  }

  /** The colour of each type (`#FFFFFF` for `simple`), as a flag's tags are listed. */
  async colors(): Promise<Map<string, string | null>> {
    return new Map((await this.store.listTypes()).map((type) => [type.name, colorOf(type)]));
  }

  async typeExists(type: string): Promise<boolean> {
    return (await this.store.getType(type)) !== null;
  }

  async tagExists(type: string, value: string): Promise<boolean> {
    return (await this.store.getTag(type, value)) !== null;
  }

  /** 400 naming the first tag type that does not exist (nothing is created then). */
  async assertTypesExist(tags: Array<{ type: string }>): Promise<void> {
    for (const type of new Set(tags.map((t) => t.type))) {
      if (!(await this.store.getType(type))) throw validationError(`Tag type "${type}" does not exist`);
    }
  }

  /** Creates the tags that do not exist yet, each with its `tag-created` event (D4, docs/glossary.md). */
  async ensureTags(tags: Array<{ type: string; value: string }>, audit: AuditUser, at?: Date): Promise<void> {
    for (const tag of tags) {
      if (await this.store.getTag(tag.type, tag.value)) continue;
      const doc: TagDocument = { _id: tagId(tag.type, tag.value), type: tag.type, value: tag.value, createdAt: at ?? new Date() };
      try {
        await this.outbox.insert(this.store.tags, doc, buildEvents(audit, [{ type: 'tag-created', data: { type: tag.type, value: tag.value } }], { at }));
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
  }

  async list(): Promise<Array<{ type: string; value: string }>> {
    return (await this.store.listTags()).map(tagView);
  }

  /** The tags of one type (none for a type that does not exist: 200, as Unleash answers). */
  async listOfType(type: string): Promise<Array<{ type: string; value: string }>> {
    return (await this.store.listTags()).filter((tag) => tag.type === type).map(tagView);
  }

  async listTypes(): Promise<Array<ReturnType<typeof tagTypeView>>> {
    return (await this.store.listTypes()).map(tagTypeView);
  }

  async createType(input: TagTypeInput, audit: AuditUser): Promise<{ name: string; description?: string; icon?: string | null; color?: string | null }> {
    const name = input.name.trim();
    checkLength('name', name);
    if (!isUrlFriendly(name)) joi('name', 'must be URL friendly', name);
    const doc: TagTypeDocument = {
      _id: name, name, description: input.description ?? null, icon: input.icon ?? null, color: input.color ?? null, createdAt: new Date(),
    };
    // Unleash answers (and records) the body it was sent: only the keys given (measured on 8.2).
    const view = {
      name,
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.icon === undefined ? {} : { icon: input.icon }),
      ...(input.color === undefined ? {} : { color: input.color }),
    };
    try {
      await this.outbox.insert(this.store.types, doc, buildEvents(audit, [{ type: 'tag-type-created', data: view }]));
    } catch (err) {
      if (isDuplicateKey(err)) throw nameExists('There already exists a tag-type with the name ' + name);
      throw err;
    }
    return view;
  }

  // -------------------------------------------------------------------------------------------
  // one tag type, one tag (measured on Unleash 8.2)

  async getType(name: string): Promise<ReturnType<typeof tagTypeView>> {
    const type = await this.store.getType(name);
    if (!type) throw notFound('Could not find tag-type');
    return tagTypeView(type);
  }

  /** 200 `{valid, tagType}` for a free, well-formed name; 409 when a type has it. */
  async validateType(input: string): Promise<{ valid: true; tagType: { name: string } }> {
    const name = input.trim();
    checkLength('name', name);
    if (!isUrlFriendly(name)) joi('name', 'must be URL friendly', name);
    if (await this.store.getType(name)) throw nameExists('There already exists a tag-type with the name ' + name);
    return { valid: true, tagType: { name } };
  }

  /**
   * Changes the fields given. Unleash records `tag-type-updated` (the name and the fields, a null
   * icon as `""`) even for a type that does not exist, and changes nothing then; an empty body is
   * its 500 ("Empty .update() call"), Vane's 400.
   */
  async updateType(name: string, input: Omit<TagTypeInput, 'name'>, audit: AuditUser): Promise<void> {
    const fields: Partial<Pick<TagTypeDocument, 'description' | 'icon' | 'color'>> = {};
    for (const key of Object.keys(input) as Array<keyof typeof input>) {
      if (key === 'description') fields.description = input.description ?? '';
      else if (key === 'icon') fields.icon = input.icon ?? '';
      else if (key === 'color') fields.color = input.color ?? null;
    }
    if (Object.keys(fields).length === 0) throw validationError('Give at least one of description, icon and color to change');
    const events = () => buildEvents(audit, [{ type: 'tag-type-updated', data: { name, ...fields } }]);
    await retrying(async () => {
      const current = await this.store.getType(name);
      if (!current) return await this.outbox.write([], events());
      await this.outbox.replace(this.store.types, current, { ...current, ...fields }, events());
    });
  }

  /**
   * Deletes the type and its tags in one commit (Unleash's foreign keys cascade); the flags' tags
   * of it are the caller's to drop (FlagTagService.deleteTagType).
   */
  async deleteType(name: string, audit: AuditUser): Promise<void> {
    await retrying(async () => {
      const type = await this.store.getType(name);
      if (!type) throw notFound('Could not find tag-type');
      const tags = (await this.store.listTags()).filter((tag) => tag.type === name);
      const changes: Change[] = [type, ...tags].map((doc) => ({
        coll: doc === type ? this.store.types.collectionName : this.store.tags.collectionName, id: doc._id, base: doc._rev ?? 0, doc: null,
      }));
      // preData in PostgreSQL's jsonb key order (length, then bytes), as Unleash stores the row.
      const preData = { icon: type.icon, name: type.name, color: colorOf(type), description: type.description };
      await this.outbox.write(changes, buildEvents(audit, [{ type: 'tag-type-deleted', data: null, preData }]));
    });
  }

  async getTag(type: string, value: string): Promise<{ type: string; value: string }> {
    const tag = await this.store.getTag(type, value);
    if (!tag) throw notFound(`No tag with type: [${type}] and value [${value}]`);
    return tagView(tag);
  }

  /** Deletes a tag; `tag-deleted` is recorded whether or not it existed (measured). */
  async deleteTag(type: string, value: string, audit: AuditUser): Promise<void> {
    const events = () => buildEvents(audit, [{ type: 'tag-deleted', data: { type, value } }]);
    await retrying(async () => {
      const tag = await this.store.getTag(type, value);
      if (!tag) return await this.outbox.write([], events());
      await this.outbox.remove(this.store.tags, tag, events());
    });
  }
}
