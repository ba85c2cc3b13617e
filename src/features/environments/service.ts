import { buildEvents, retrying, type AuditUser, type Outbox } from '../../db/outbox/index.js';
import { nameExists, notFound } from '../../errors.js';
import type { ApiTokenSource, EnvironmentJoiner, FlagSource, ProjectSource } from './sources.js';
import type { EnvironmentDocument, EnvironmentStore } from './store.js';
import { isDuplicateKey } from '../../db/keys.js';

export interface CreateEnvironmentInput {
  name: string;
  type: string;
  sortOrder?: number;
}

export interface EnvironmentView {
  name: string;
  type: string;
  sortOrder: number;
  enabled: boolean;
  protected: boolean;
  requiredApprovals: null;
  projectCount: number;
  apiTokenCount: number;
  enabledToggleCount: number;
}

export interface ProjectEnvironmentView extends Omit<EnvironmentView, 'projectCount' | 'apiTokenCount' | 'enabledToggleCount'> {
  projectApiTokenCount: number;
  projectEnabledToggleCount: number;
  visible: boolean;
}

/** The fields every view of an environment starts with, in Unleash's order. */
function baseView(env: EnvironmentDocument) {
  return { name: env.name, type: env.type, sortOrder: env.sortOrder, enabled: env.enabled, protected: env.protected, requiredApprovals: null };
}

/** Environments (docs/rules.md §1.4 S2), with Vane's creation endpoint. */
export class EnvironmentService {
  constructor(
    private readonly store: EnvironmentStore,
    private readonly projects: ProjectSource,
    private readonly flags: FlagSource,
    private readonly apiTokens: ApiTokenSource,
    /** In order: projects first, then flags (a flag's environments are its project's). */
    private readonly joiners: EnvironmentJoiner[],
    private readonly outbox: Outbox,
  ) {}

  async list(): Promise<EnvironmentView[]> {
    const [environments, projects, tokens, flags] = await Promise.all([
      this.store.list(), this.projects.list(), this.apiTokens.list(), this.flags.snapshotSource(),
    ]);
    return environments.map((env) => ({
      ...baseView(env),
      projectCount: projects.filter((p) => p.environments.includes(env.name)).length,
      apiTokenCount: tokens.filter((t) => t.environment === env.name).length,
      enabledToggleCount: flags.filter((f) => f.environments[env.name]?.enabled === true).length,
    }));
  }

  /**
   * Every environment as one project sees it (`GET /api/admin/environments/project/{p}`):
   * `visible` when connected to it, its tokens (those for every project too) and its flags on.
   * An unknown project sees every environment, none visible (measured on Unleash 8.2).
   */
  async listForProject(projectId: string): Promise<ProjectEnvironmentView[]> {
    const [environments, projects, tokens, flags] = await Promise.all([
      this.store.list(), this.projects.list(), this.apiTokens.list(), this.flags.snapshotSource(),
    ]);
    const connected = new Set(projects.find((p) => p.id === projectId)?.environments ?? []);
    const projectTokens = tokens.filter((t) => t.projects.includes(projectId) || t.projects.includes('*'));
    const projectFlags = flags.filter((f) => f.project === projectId);
    return environments.map((env) => ({
      ...baseView(env),
      projectApiTokenCount: projectTokens.filter((t) => t.environment === env.name).length,
      projectEnabledToggleCount: projectFlags.filter((f) => f.environments[env.name]?.enabled === true).length,
      visible: connected.has(env.name),
    }));
  }

  async get(name: string): Promise<EnvironmentView> {
    const env = (await this.list()).find((e) => e.name === name);
    if (!env) throw notFound(`Could not find environment with name: ${name}`);
    return env;
  }

  /**
   * [Vane design] Creates an environment, connects it to every project and gives every flag a
   * disabled feature-environment without strategies. Event `environment-created`.
   */
  async create(input: CreateEnvironmentInput, audit: AuditUser): Promise<EnvironmentView> {
    const existing = await this.store.list();
    const sortOrder = input.sortOrder ?? Math.max(0, ...existing.map((e) => e.sortOrder)) + 1;
    const doc: EnvironmentDocument = {
      _id: input.name, name: input.name, type: input.type, sortOrder, enabled: true, protected: false, createdAt: new Date(),
    };
    const data = { name: doc.name, type: doc.type, sortOrder: doc.sortOrder, enabled: true, protected: false };
    try {
      await this.outbox.insert(this.store.collection, doc, buildEvents(audit, [{ type: 'environment-created', data, environment: doc.name }]));
    } catch (err) {
      if (isDuplicateKey(err)) throw nameExists(`Environment with name ${input.name} already exists`);
      throw err;
    }
    for (const joiner of this.joiners) await joiner.addEnvironment(doc.name);
    return await this.get(doc.name);
  }

  /** Turns an environment on or off; Unleash records no event for either (measured). */
  async setEnabled(name: string, enabled: boolean): Promise<void> {
    await retrying(async () => {
      const env = await this.store.get(name);
      if (!env) throw notFound(`Could not find environment ${name}`);
      if (env.enabled !== enabled) await this.outbox.replace(this.store.collection, env, { ...env, enabled }, []);
    });
  }

  /** New sort orders by name; names of no environment are skipped and nothing is recorded (measured). */
  async setSortOrder(orders: Readonly<Record<string, number>>): Promise<void> {
    for (const [name, sortOrder] of Object.entries(orders)) {
      await retrying(async () => {
        const env = await this.store.get(name);
        if (env && env.sortOrder !== sortOrder) await this.outbox.replace(this.store.collection, env, { ...env, sortOrder }, []);
      });
    }
  }
}
