import { buildEvents } from '../../db/outbox.js';
import { isDuplicateKey } from '../../db/keys.js';
/** The strategy types of a fresh Unleash 8 instance, with the `strategy-created` events of its migrations (docs/rules.md §4.5). */
const BUILT_IN = [
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
    outbox;
    collection;
    mirror;
    state;
    constructor(outbox) {
        this.outbox = outbox;
        this.collection = outbox.collection('strategy_types');
        this.state = outbox.state;
        this.mirror = outbox.state.mirror('strategy_types');
    }
    async init() {
        const migration = { name: 'migration', id: null };
        for (const [index, builtIn] of BUILT_IN.entries()) {
            if (await this.collection.findOne({ _id: builtIn.name }))
                continue;
            const data = builtIn.parameters
                ? { name: builtIn.name, description: builtIn.description, parameters: builtIn.parameters }
                : { name: builtIn.name, description: builtIn.description };
            const doc = {
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
            }
            catch (err) {
                if (!isDuplicateKey(err))
                    throw err; // another instance seeded it
            }
        }
    }
    async get(name) {
        return this.mirror.get(name) ?? null;
    }
    /** From the configuration state, sorted once per revision (shared documents: do not mutate). */
    async list() {
        return this.state.derived('strategy-types:list', () => [...this.mirror.values()].sort((a, b) => a.sortOrder - b.sortOrder || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0)));
    }
}
//# sourceMappingURL=store.js.map