import { buildEvents, type AuditUser, type Outbox } from '../../db/outbox/index.js';
import { nameExists, schemaValidationError, validationError } from '../../errors.js';
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

export function tagTypeView(type: TagTypeDocument): { name: string; description: string; icon: string | null; color: string | null } {
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

  async createType(input: TagTypeInput, audit: AuditUser): Promise<{ name: string; description: string; icon: string | null; color?: string | null }> {
    const name = input.name.trim();
    checkLength('name', name);
    if (!isUrlFriendly(name)) joi('name', 'must be URL friendly', name);
    const doc: TagTypeDocument = {
      _id: name, name, description: input.description ?? '', icon: input.icon ?? null, color: input.color ?? null, createdAt: new Date(),
    };
    const { color, ...rest } = tagTypeView(doc);
    const view = input.color === undefined ? rest : { ...rest, color };
    try {
      await this.outbox.insert(this.store.types, doc, buildEvents(audit, [{ type: 'tag-type-created', data: view }]));
    } catch (err) {
      if (isDuplicateKey(err)) throw nameExists('There already exists a tag-type with the name ' + name);
      throw err;
    }
    return view;
  }
}
