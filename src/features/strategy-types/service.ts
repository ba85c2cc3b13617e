import { buildEvents, retrying, type AuditUser, type Outbox } from '../../db/outbox/index.js';
import { invalidOperation, nameExists, notFound, schemaValidationError } from '../../errors.js';
import { isUrlFriendly } from '../shared.js';
import { CUSTOM_SORT_ORDER, type StrategyParameter, type StrategyTypeDocument, type StrategyTypeStore } from './store.js';
import type { StrategyTypeView } from './schemas.js';
import { isDuplicateKey } from '../../db/keys.js';

export interface CreateStrategyTypeInput {
  name: string;
  title?: string | null;
  description?: string;
  parameters?: Array<{ name: string; type: string; description?: string; required?: boolean }>;
}

type StrategyTypeFields = Pick<StrategyTypeDocument, 'name' | 'displayName' | 'description' | 'parameters' | 'editable' | 'deprecated' | 'title'>;

/** As Unleash 8.2 shows a strategy type (measured): a built-in's display name, a custom one's `title`, last. */
export function strategyTypeView(doc: StrategyTypeFields): StrategyTypeView {
  return {
    displayName: doc.displayName, name: doc.name, editable: doc.editable, description: doc.description,
    parameters: doc.parameters, deprecated: doc.deprecated, title: doc.title ?? null,
  };
}

/** Strategy types: the four built-ins plus custom ones (so flags can use unknown strategies). */
export class StrategyTypeService {
  constructor(
    private readonly store: StrategyTypeStore,
    private readonly outbox: Outbox,
  ) {}

  async list(): Promise<StrategyTypeView[]> {
    return (await this.store.list()).map((doc) => strategyTypeView(doc));
  }

  async get(name: string): Promise<StrategyTypeView> {
    const doc = await this.store.get(name);
    if (!doc) throw notFound(`Could not find strategy type with name ${name}`);
    return strategyTypeView(doc);
  }

  async create(input: CreateStrategyTypeInput, audit: AuditUser): Promise<StrategyTypeView> {
    if (!isUrlFriendly(input.name) || input.name.length === 0) {
      throw schemaValidationError([{ message: `"name" must be URL friendly. You provided "${input.name}".` }]);
    }
    const parameters: StrategyParameter[] = (input.parameters ?? []).map((p) => ({
      name: p.name, type: p.type, description: p.description ?? '', required: p.required ?? false,
    }));
    // Measured: no display name, the title and description as sent (null when absent), listed after
    // the built-ins by name.
    const doc: StrategyTypeDocument = {
      _id: input.name, name: input.name, displayName: null, title: input.title ?? null, description: input.description ?? null,
      parameters, editable: true, deprecated: false, builtIn: false, sortOrder: CUSTOM_SORT_ORDER, createdAt: new Date(),
    };
    // The body as sent, with Unleash's defaults for the two flags (measured).
    const data = {
      name: doc.name,
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      parameters: input.parameters ?? [], editable: true, deprecated: false,
    };
    try {
      await this.outbox.insert(this.store.collection, doc, buildEvents(audit, [{ type: 'strategy-created', data }]));
    } catch (err) {
      if (isDuplicateKey(err)) throw nameExists(`Strategy with name ${input.name} already exist!`);
      throw err;
    }
    return strategyTypeView(doc);
  }

  /**
   * Replaces a custom type's description, parameters and title. The event carries what was sent
   * (editable and deprecated defaulted to true and false), though those two are not changed
   * (measured on Unleash 8.2). A built-in type is refused: Unleash's "Cannot edit strategy" is a
   * 500 there, Vane's 403 InvalidOperationError.
   */
  async update(name: string, input: UpdateStrategyTypeInput, audit: AuditUser): Promise<void> {
    const parameters = input.parameters.map((p) => ({ name: p.name, type: p.type, description: p.description ?? '', required: p.required ?? false }));
    const data = {
      name,
      ...(input.description !== undefined ? { description: input.description } : {}),
      parameters: input.parameters,
      ...(input.title !== undefined ? { title: input.title } : {}),
      editable: input.editable ?? true,
      deprecated: input.deprecated ?? false,
    };
    await retrying(async () => {
      const doc = await this.editable(name, 'No strategy found');
      // The fields sent (measured: a description left out stays).
      const next = {
        ...doc, parameters,
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.title !== undefined ? { title: input.title } : {}),
      };
      await this.outbox.replace(this.store.collection, doc, next, buildEvents(audit, [{ type: 'strategy-updated', data }]));
    });
  }

  /** Built-ins too; the event is recorded each time, changed or not (measured). */
  async setDeprecated(name: string, deprecated: boolean, audit: AuditUser): Promise<void> {
    await retrying(async () => {
      const doc = await this.store.get(name);
      if (!doc) throw notFound(`Could not find strategy with name ${name}`);
      const events = buildEvents(audit, [{ type: deprecated ? 'strategy-deprecated' : 'strategy-reactivated', data: { name } }]);
      await this.outbox.replace(this.store.collection, doc, { ...doc, deprecated }, events);
    });
  }

  /** A custom type, also while flags use it (their strategies keep its name, as in Unleash). */
  async delete(name: string, audit: AuditUser): Promise<void> {
    await retrying(async () => {
      const doc = await this.editable(name, 'No strategy found');
      await this.outbox.remove(this.store.collection, doc, buildEvents(audit, [{ type: 'strategy-deleted', data: { name } }]));
    });
  }

  private async editable(name: string, missing: string): Promise<StrategyTypeDocument> {
    const doc = await this.store.get(name);
    if (!doc) throw notFound(missing);
    if (!doc.editable) throw invalidOperation(`Cannot edit strategy ${name}`);
    return doc;
  }
}

export interface UpdateStrategyTypeInput {
  title?: string | null;
  description?: string;
  parameters: Array<{ name: string; type: string; description?: string; required?: boolean }>;
  editable?: boolean;
  deprecated?: boolean;
}
