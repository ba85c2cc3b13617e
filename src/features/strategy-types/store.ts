import type { Collection } from 'mongodb';
import { buildEvents, lostRace, type Outbox, type StoredDocument } from '../../db/outbox/index.js';
import type { CollectionMirror, ConfigState } from '../../db/state.js';

/** Another instance seeded or brought it up to date first. */
function ignoreRace(err: unknown): void {
  if (!lostRace(err)) throw err;
}

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
  description: string | null;
  /** A custom type's title (absent on documents stored before it was kept apart). */
  title?: string | null;
  parameters: StrategyParameter[];
  editable: boolean;
  deprecated: boolean;
  builtIn: boolean;
  sortOrder: number;
  createdAt: Date;
}

/**
 * The strategy types of a fresh Unleash 8 instance: the `strategy-created` events of its first
 * migrations (`description` there, docs/rules.md §4.5), then what later migrations changed without
 * an event — the display name, the description and the order `GET /api/admin/strategies` shows
 * (measured on Unleash 8.2: flexibleRollout, default, remoteAddress, applicationHostname).
 */
const BUILT_IN: Array<Pick<StrategyTypeDocument, 'name' | 'description'> & {
  parameters?: StrategyParameter[]; displayName: string; current: string; sortOrder: number;
}> = [
  {
    name: 'default', description: 'Default on or off Strategy.', displayName: 'Standard', sortOrder: 1,
    current: 'This strategy turns on / off for your entire userbase. Prefer using "Gradual rollout" strategy (100%=on, 0%=off).',
  },
  {
    name: 'applicationHostname',
    description: 'Active for client instances with a hostName in the hostNames-list.',
    parameters: [{ name: 'hostNames', type: 'list', description: 'List of hostnames to enable the feature toggle for.', required: false }],
    displayName: 'Hosts', current: 'Enable the feature for a specific set of hostnames.', sortOrder: 3,
  },
  {
    name: 'remoteAddress',
    description: 'Active for remote addresses defined in the IPs list.',
    parameters: [{ name: 'IPs', type: 'list', description: 'List of IPs to enable the feature toggle for.', required: true }],
    displayName: 'IPs', current: 'Enable the feature for a specific set of IP addresses.', sortOrder: 2,
  },
  {
    name: 'flexibleRollout',
    description: 'Gradually activate feature toggle based on sane stickiness',
    parameters: [
      { name: 'rollout', type: 'percentage', description: '', required: false },
      { name: 'stickiness', type: 'string', description: 'Used define stickiness. Possible values: default, userId, sessionId, random', required: true },
      { name: 'groupId', type: 'string', description: 'Used to define a activation groups, which allows you to correlate across feature toggles.', required: true },
    ],
    displayName: 'Gradual rollout', current: 'Roll out to a percentage of your userbase, and ensure that the experience is the same for the user on each visit.',
    sortOrder: 0,
  },
];

/** A custom type's place in the list: after the built-ins, by name (Unleash's column default). */
export const CUSTOM_SORT_ORDER = 9999;

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
    for (const builtIn of BUILT_IN) {
      const held = this.mirror.get(builtIn.name);
      const current = { displayName: builtIn.displayName, description: builtIn.current, sortOrder: builtIn.sortOrder };
      if (held) {
        // Stored by an earlier Vane with the first migrations' fields: brought up to date, as
        // Unleash's later migrations did, without an event.
        if (held.displayName === null) await this.outbox.replace(this.collection, held, { ...held, ...current }, []).catch(ignoreRace);
        continue;
      }
      const data = builtIn.parameters
        ? { name: builtIn.name, description: builtIn.description, parameters: builtIn.parameters }
        : { name: builtIn.name, description: builtIn.description };
      const doc: StrategyTypeDocument = {
        _id: builtIn.name,
        name: builtIn.name,
        ...current,
        title: null,
        parameters: builtIn.parameters ?? [],
        editable: false,
        deprecated: false,
        builtIn: true,
        createdAt: new Date(),
      };
      await this.outbox.insert(this.collection, doc, buildEvents(migration, [{ type: 'strategy-created', data }])).catch(ignoreRace);
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
