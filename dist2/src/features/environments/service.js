import { buildEvents, retrying } from '../../db/outbox.js';
import { nameExists, notFound } from '../../errors.js';
import { emptyEnvironment } from '../flags/views.js';
import { isDuplicateKey } from '../../db/keys.js';
/** Environments (docs/rules.md §1.4 S2), with Vane's creation endpoint. */
export class EnvironmentService {
    store;
    projects;
    flags;
    apiTokens;
    outbox;
    constructor(store, projects, flags, apiTokens, outbox) {
        this.store = store;
        this.projects = projects;
        this.flags = flags;
        this.apiTokens = apiTokens;
        this.outbox = outbox;
    }
    async list() {
        const [environments, projects, tokens, flags] = await Promise.all([
            this.store.list(), this.projects.list(), this.apiTokens.list(), this.flags.snapshotSource(),
        ]);
        return environments.map((env) => ({
            name: env.name,
            type: env.type,
            sortOrder: env.sortOrder,
            enabled: env.enabled,
            protected: env.protected,
            requiredApprovals: null,
            projectCount: projects.filter((p) => p.environments.includes(env.name)).length,
            apiTokenCount: tokens.filter((t) => t.environment === env.name).length,
            enabledToggleCount: flags.filter((f) => f.environments[env.name]?.enabled === true).length,
        }));
    }
    async get(name) {
        const env = (await this.list()).find((e) => e.name === name);
        if (!env)
            throw notFound(`Could not find environment with name: ${name}`);
        return env;
    }
    /**
     * [Vane design] Creates an environment, connects it to every project and gives every flag a
     * disabled feature-environment without strategies. Event `environment-created`.
     */
    async create(input, audit) {
        const existing = await this.store.list();
        const sortOrder = input.sortOrder ?? Math.max(0, ...existing.map((e) => e.sortOrder)) + 1;
        const doc = {
            _id: input.name, name: input.name, type: input.type, sortOrder, enabled: true, protected: false, createdAt: new Date(),
        };
        const data = { name: doc.name, type: doc.type, sortOrder: doc.sortOrder, enabled: true, protected: false };
        try {
            await this.outbox.insert(this.store.collection, doc, buildEvents(audit, [{ type: 'environment-created', data, environment: doc.name }]));
        }
        catch (err) {
            if (isDuplicateKey(err))
                throw nameExists(`Environment with name ${input.name} already exists`);
            throw err;
        }
        for (const project of await this.projects.list())
            await this.connectProject(project.id, doc.name);
        for (const flag of await this.flags.all()) {
            if (flag.environments[doc.name])
                continue;
            await this.outbox.exclusive(`flag:${flag.name}`, () => retrying(async () => {
                const current = await this.flags.get(flag.name);
                if (!current || current.environments[doc.name])
                    return;
                await this.flags.replace(current, { ...current, environments: { ...current.environments, [doc.name]: emptyEnvironment() } }, []);
            }));
        }
        return await this.get(doc.name);
    }
    async connectProject(projectId, environment) {
        await this.outbox.exclusive(`project:${projectId}`, () => retrying(async () => {
            const project = await this.projects.get(projectId);
            if (!project || project.environments.includes(environment))
                return;
            await this.outbox.replace(this.projects.collection, project, { ...project, environments: [...project.environments, environment] }, []);
        }));
    }
}
//# sourceMappingURL=service.js.map