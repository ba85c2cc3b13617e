import { buildEvents, retrying, type AuditUser, type Outbox } from '../../db/outbox/index.js';
import { nameExists, validationError, notFound, schemaValidationError } from '../../errors.js';
import { isMarked, type FavoriteReadModel } from '../favorites/read-model.js';
import type { FlagReadModel } from '../flags/read-model.js';
import { isUrlFriendly } from '../shared.js';
import type { ProjectDefaultStrategy, ProjectDocument, ProjectStore } from './store.js';
import type { ProjectView } from './schemas.js';
import type { EnvironmentSource, ProjectFlagSource } from './sources.js';
import { isDuplicateKey } from '../../db/keys.js';
import { jsonbOrder } from '../../json.js';

export interface CreateProjectInput {
  id: string;
  name: string;
  description?: string | null;
}

export function projectView(project: ProjectDocument, featureCount: number, favorite = false): ProjectView {
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
    favorite,
    archivedAt: project.archivedAt ? project.archivedAt.toISOString() : null,
  };
}

export class ProjectService {
  constructor(
    private readonly store: ProjectStore,
    private readonly environments: EnvironmentSource,
    private readonly flags: FlagReadModel,
    private readonly outbox: Outbox,
    private readonly flagChanges: ProjectFlagSource,
    private readonly favorites: FavoriteReadModel,
  ) {}

  /** Every project, `favorite` as `userId` marked it (null: an API token, no favourites). */
  async list(userId: number | null): Promise<ProjectView[]> {
    const [projects, flags] = await Promise.all([this.store.list(), this.flags.snapshotSource()]);
    const marks = this.favorites.marksOf(userId).projects;
    return projects.map((p) => projectView(p, flags.filter((f) => f.project === p.id).length, isMarked(marks, p.id, p.createdAt)));
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

  /** Connects an existing environment to the project; event `project-environment-added`. */
  async connectEnvironment(projectId: string, environment: string, audit: AuditUser): Promise<void> {
    await this.outbox.exclusive(`project:${projectId}`, () => retrying(async () => {
      const project = await this.store.get(projectId);
      if (!project) throw notFound('No project found');
      if (!(await this.environments.list()).some((e) => e.name === environment)) throw validationError(`Environment ${environment} does not exist`);
      if (project.environments.includes(environment)) throw nameExists(`${projectId} already has the environment ${environment} enabled`);
      const next = { ...project, environments: [...project.environments, environment] };
      const events = buildEvents(audit, [{ type: 'project-environment-added', project: projectId, environment }]);
      await this.outbox.replace(this.store.collection, project, next, events);
    }));
  }

  /**
   * Disconnects `environment` (any name, every one may go) in one commit with what that does to the
   * project's flags; event `project-environment-removed` even when nothing was connected (measured).
   */
  async disconnectEnvironment(projectId: string, environment: string, audit: AuditUser): Promise<void> {
    await this.outbox.exclusive(`project:${projectId}`, () => retrying(async () => {
      const project = await this.store.get(projectId);
      const events = buildEvents(audit, [{ type: 'project-environment-removed', project: projectId, environment }]);
      if (!project || !project.environments.includes(environment)) return await this.outbox.write([], events);
      const { [environment]: _gone, ...defaultStrategies } = project.defaultStrategies ?? {};
      const next: ProjectDocument = { ...project, environments: project.environments.filter((e) => e !== environment), defaultStrategies };
      const base = project._rev ?? 0;
      const changes = [
        { coll: this.store.collection.collectionName, id: project._id, base, doc: { ...next, _rev: base + 1 } },
        ...await this.flagChanges.environmentRemoved(projectId, environment),
      ];
      await this.outbox.write(changes, events);
    }));
  }

  /**
   * Stores a connected environment's default strategy as sent, in jsonb key order (what Unleash
   * answers and records, measured); event `default-strategy-updated` with the previous one.
   */
  async setDefaultStrategy(projectId: string, environment: string, strategy: ProjectDefaultStrategy, audit: AuditUser): Promise<ProjectDefaultStrategy> {
    return await this.outbox.exclusive(`project:${projectId}`, () => retrying(async () => {
      const project = await this.store.get(projectId);
      if (!project) throw notFound('No project found');
      if (!project.environments.includes(environment)) {
        // Unleash 8.2 answers 500 (no project_environments row to update); D10.
        throw notFound(`Environment ${environment} is not connected to project ${projectId}`);
      }
      const stored = jsonbOrder(strategy);
      const next = { ...project, defaultStrategies: { ...project.defaultStrategies, [environment]: stored } };
      const preData = project.defaultStrategies?.[environment] ?? null;
      const events = buildEvents(audit, [{ type: 'default-strategy-updated', project: projectId, environment, data: stored, preData }]);
      await this.outbox.replace(this.store.collection, project, next, events);
      return stored;
    }));
  }
}
