import { buildEvents, retrying, type AuditUser, type Outbox } from '../../db/outbox/index.js';
import { nameExists, schemaValidationError } from '../../errors.js';
import type { FlagReadModel } from '../flags/read-model.js';
import { isUrlFriendly } from '../shared.js';
import type { ProjectDocument, ProjectStore } from './store.js';
import type { ProjectView } from './schemas.js';
import type { EnvironmentSource } from './sources.js';
import { isDuplicateKey } from '../../db/keys.js';

export interface CreateProjectInput {
  id: string;
  name: string;
  description?: string | null;
}

export function projectView(project: ProjectDocument, featureCount: number): ProjectView {
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    createdAt: project.createdAt.toISOString(),
    health: 100,
    featureCount,
    memberCount: 0,
    defaultStickiness: project.defaultStickiness,
    mode: 'open',
    favorite: false,
    archivedAt: project.archivedAt ? project.archivedAt.toISOString() : null,
  };
}

export class ProjectService {
  constructor(
    private readonly store: ProjectStore,
    private readonly environments: EnvironmentSource,
    private readonly flags: FlagReadModel,
    private readonly outbox: Outbox,
  ) {}

  async list(): Promise<ProjectView[]> {
    const [projects, flags] = await Promise.all([this.store.list(), this.flags.snapshotSource()]);
    return projects.map((p) => projectView(p, flags.filter((f) => f.project === p.id).length));
  }

  /** `{id, name, description?}` → a project connected to every enabled environment; event `project-created`. */
  async create(input: CreateProjectInput, audit: AuditUser): Promise<ProjectView> {
    const fail = (reason: string): never => {
      throw schemaValidationError([{ message: reason }]);
    };
    if (input.id.length === 0) fail('"id" is not allowed to be empty.');
    if (input.id.length > 100) fail(`"id" length must be less than or equal to 100 characters long. You provided "${input.id}".`);
    if (!isUrlFriendly(input.id)) fail(`"id" must be URL friendly. You provided "${input.id}".`);
    if (input.name.trim().length === 0) fail('"name" is not allowed to be empty.');
    const environments = (await this.environments.list()).filter((e) => e.enabled).map((e) => e.name);
    const doc: ProjectDocument = {
      _id: input.id, id: input.id, name: input.name, description: input.description || null, defaultStickiness: 'default',
      environments, archivedAt: null, createdAt: new Date(),
    };
    const data = { id: doc.id, name: doc.name, description: doc.description, defaultStickiness: doc.defaultStickiness, environments };
    try {
      await this.outbox.insert(this.store.collection, doc, buildEvents(audit, [{ type: 'project-created', project: doc.id, data }]));
    } catch (err) {
      if (isDuplicateKey(err)) throw nameExists(`A project with id ${input.id} already exists`);
      throw err;
    }
    return projectView(doc, 0);
  }

  /** A new environment is connected to every project, without events (`environment-created` says it). */
  async addEnvironment(environment: string): Promise<void> {
    for (const { id } of await this.store.list()) {
      await this.outbox.exclusive(`project:${id}`, () => retrying(async () => {
        const project = await this.store.get(id);
        if (!project || project.environments.includes(environment)) return;
        await this.outbox.replace(this.store.collection, project, { ...project, environments: [...project.environments, environment] }, []);
      }));
    }
  }
}
