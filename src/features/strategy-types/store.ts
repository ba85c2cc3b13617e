import type { Collection } from 'mongodb';
import { buildEvents, type Outbox, type StoredDocument } from '../../db/outbox/index.js';
import type { CollectionMirror, ConfigState } from '../../db/state.js';
import { isDuplicateKey } from '../../db/keys.js';

/** What the configuration state holds of the collection (src/db/state.ts). */
declare module '../../db/state.js' {
  interface HeldDocuments {
    strategy_types: StrategyTypeDocument;
  }
}

export interface StrategyParameter {
  name: string;
  type: string;
  description: string;
  required: boolean;
}

export interface StrategyTypeDocument extends StoredDocument {
  _id: string;
  name: string;
  displayName: string | null;
  description: string;
  parameters: StrategyParameter[];
  editable: boolean;
  deprecated: boolean;
  builtIn: boolean;
  sortOrder: number;
  createdAt: Date;
}

/** The strategy types of a fresh Unleash 8 instance, with the `strategy-created` events of its migrations (docs/rules.md §4.5). */
const BUILT_IN: Array<Pick<StrategyTypeDocument, 'name' | 'description'> & { parameters?: StrategyParameter[] }> = [
  { name: 'default', description: 'Default on or off Strategy.' },
  {
    name: 'applicationHostname',
    description: 'Active for client instances with a hostName in the hostNames-list.',
    parameters: [{ name: 'hostNames', type: 'list', description: 'List of hostnames to enable the feature toggle for.', required: false }],
  },
  {
    name: 'remoteAddress',
    description: 'Active for remote addresses defined in the IPs list.',
    parameters: [{ name: 'IPs', type: 'list', description: 'List of IPs to enable the feature toggle for.', required: true }],
  },
  {
    name: 'flexibleRollout',
    description: 'Gradually activate feature toggle based on sane stickiness',
    parameters: [
      { name: 'rollout', type: 'percentage', description: '', required: false },
      { name: 'stickiness', type: 'string', description: 'Used define stickiness. Possible values: default, userId, sessionId, random', required: true },
      { name: 'groupId', type: 'string', description: 'Used to define a activation groups, which allows you to correlate across feature toggles.', required: true },
    ],
  },
];

export class StrategyTypeStore {
  readonly collection: Collection<StrategyTypeDocument>;
  private readonly mirror: CollectionMirror<StrategyTypeDocument>;
  private readonly state: ConfigState;

  constructor(private readonly outbox: Outbox) {
    this.collection = outbox.collection<StrategyTypeDocument>('strategy_types');
    this.state = outbox.state;
    this.mirror = outbox.state.mirror('strategy_types');
  }

  async init(): Promise<void> {
    const migration = { name: 'migration', id: null };
    for (const [index, builtIn] of BUILT_IN.entries()) {
      if (this.mirror.get(builtIn.name)) continue;
      const data = builtIn.parameters
        ? { name: builtIn.name, description: builtIn.description, parameters: builtIn.parameters }
        : { name: builtIn.name, description: builtIn.description };
      const doc: StrategyTypeDocument = {
        _id: builtIn.name,
        name: builtIn.name,
        displayName: null,
        description: builtIn.description,
        parameters: builtIn.parameters ?? [],
        editable: false,
        deprecated: false,
        builtIn: true,
        sortOrder: index,
        createdAt: new Date(),
      };
      try {
        await this.outbox.insert(this.collection, doc, buildEvents(migration, [{ type: 'strategy-created', data }]));
      } catch (err) {
        if (!isDuplicateKey(err)) throw err; // another instance seeded it
      }
    }
  }

  async get(name: string): Promise<StrategyTypeDocument | null> {
    return this.mirror.get(name) ?? null;
  }

  /** From the configuration state, sorted once per revision (shared documents: do not mutate). */
  async list(): Promise<StrategyTypeDocument[]> {
    return this.state.derived('strategy-types:list', () =>
      [...this.mirror.values()].sort((a, b) => a.sortOrder - b.sortOrder || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0)));
  }
}
