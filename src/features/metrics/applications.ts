import { inBackground } from '../../db/guard.js';
import { ApiError } from '../../errors.js';
import type { FlagData } from '../flags/read-model.js';
import type { ApplicationView, ApplicationOverview, Applications, ApplicationsQuery, OutdatedSdks, ProjectApplications } from './schemas.js';
import { isOutdatedSdk } from './sdks.js';
import type { MetricsService } from './service.js';
import type { ApplicationSources } from './sources.js';
import type { ApplicationDocument, InstanceDocument, MetricsBucketDocument, MetricsStore } from './store.js';

const DAY_MS = 86_400_000;
const REPORT_EVERY_MS = 60_000;
/** Instances whose last report time is remembered before the stale ones are forgotten. */
const MAX_REPORTED = 10_000;
/** The strategies Unleash never reports as missing from a server (its DEPRECATED_STRATEGIES). */
const DEPRECATED_STRATEGIES: ReadonlySet<string> = new Set(['gradualRolloutRandom', 'gradualRolloutSessionId', 'gradualRolloutUserId']);

export interface RegisteredApplication {
  appName: string;
  instanceId?: string;
  sdkVersion?: string;
  strategies?: string[];
  description?: string;
  url?: string;
  color?: string;
  icon?: string;
}

export interface AppScope {
  projects: readonly string[];
  environment: string;
}

/** The fields an admin may set on an application (`POST /api/admin/metrics/applications/:appName`). */
export interface ApplicationEdit {
  description?: string;
  url?: string;
  color?: string;
  icon?: string;
  strategies?: string[];
}

export interface ProjectApplicationsQuery {
  query?: string;
  offset?: string;
  limit?: string;
  sortOrder?: string;
}

/** Unleash's 404 for an application: no `id`, the name in `appName=` form (measured). */
function applicationNotFound(appName: string): ApiError {
  return new ApiError('NotFoundError', 404, `Could not find appName=${appName}`);
}

/** A query string's positive integer, else undefined (Unleash falls back to its default). */
function positiveInteger(value: string | undefined): number | undefined {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

function sorted(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

/** Adds `environment` to `project`'s usage (Unleash keeps one usage row per application, project and environment). */
function withUsage(usage: ApplicationDocument['usage'], project: string, environment: string): ApplicationDocument['usage'] {
  const found = usage.find((u) => u.project === project);
  if (!found) return [...usage, { project, environments: [environment] }];
  if (found.environments.includes(environment)) return usage;
  return usage.map((u) => (u === found ? { project, environments: [...u.environments, environment] } : u));
}

/**
 * Applications and their SDK instances: registered by SDKs (`/api/client/register`, and the
 * metrics they send), edited and deleted by admins, and shown with what the client metrics of the
 * last 48 hours say each used (MetricsService.history). Not configuration: no events, as Unleash
 * 8.2 records none for any of these (measured).
 */
export class ApplicationService {
  constructor(
    private readonly store: MetricsStore,
    private readonly metrics: MetricsService,
    private readonly sources: ApplicationSources,
  ) {}

  /** When each instance's report was last written (reported). */
  private readonly reportedAt = new Map<string, number>();

  private projectsOf(scope: AppScope): string[] {
    return scope.projects.length === 0 ? ['*'] : [...scope.projects];
  }

  /** An SDK's registration: the application (its strategies and usage) and the instance. */
  async register(app: RegisteredApplication, scope: AppScope, clientIp: string | null, now = new Date()): Promise<void> {
    await this.upsertFromSdk(app.appName, scope, now, { strategies: app.strategies ?? [], createdBy: 'unleash_system_user' }, app);
    await this.touchInstance(app.appName, app.instanceId, scope.environment, clientIp, now, { sdkVersion: app.sdkVersion ?? null, sdkType: 'backend' });
  }

  /**
   * An SDK's metrics report: creates the application and the instance if unknown, and marks the
   * instance seen, after the answer and at most once a minute per instance (SDKs report every 60 s
   * by default; a write per report would put the database on the SDK's path). A failed write is
   * tried again by the next report.
   */
  async reported(appName: string, instanceId: string | undefined, scope: AppScope, clientIp: string | null, now = new Date()): Promise<void> {
    const key = `${appName}\0${scope.environment}\0${instanceId ?? 'default'}`;
    const last = this.reportedAt.get(key);
    if (last !== undefined && now.getTime() - last < REPORT_EVERY_MS) return;
    // Instances come and go (a pod's id is new on each start): the times past the minute are forgotten.
    if (this.reportedAt.size >= MAX_REPORTED) {
      for (const [known, at] of this.reportedAt) if (now.getTime() - at >= REPORT_EVERY_MS) this.reportedAt.delete(known);
    }
    this.reportedAt.set(key, now.getTime());
    try {
      await inBackground(async () => {
        await this.upsertFromSdk(appName, scope, now, {});
        await this.touchInstance(appName, instanceId, scope.environment, clientIp, now, {});
      });
    } catch {
      this.reportedAt.delete(key);
    }
  }

  private async upsertFromSdk(
    appName: string, scope: AppScope, now: Date, set: Partial<ApplicationDocument>, details: Partial<RegisteredApplication> = {},
  ): Promise<void> {
    const current = await this.store.getApplication(appName);
    const projects = this.projectsOf(scope);
    let usage = current?.usage ?? [];
    for (const project of projects) usage = withUsage(usage, project, scope.environment);
    const fresh: ApplicationDocument = {
      _id: appName, appName, createdAt: now, updatedAt: now, description: details.description ?? null, strategies: [],
      createdBy: null, url: details.url ?? null, color: details.color ?? null, icon: details.icon ?? null,
      project: projects.join(','), environment: scope.environment, usage,
    };
    await this.store.updateApplication(appName, { ...set, usage, updatedAt: now }, fresh);
  }

  private async touchInstance(
    appName: string, instanceId: string | undefined, environment: string, clientIp: string | null, now: Date,
    sdk: Partial<Pick<InstanceDocument, 'sdkVersion' | 'sdkType'>>,
  ): Promise<void> {
    const id = instanceId ?? 'default';
    await this.store.upsertInstance({
      _id: `${appName}\0${environment}\0${id}`, appName, instanceId: id, environment,
      sdkVersion: null, sdkType: null, ...sdk, clientIp, lastSeen: now, createdAt: now,
    }, sdk.sdkType === undefined ? ['sdkVersion', 'sdkType'] : []);
  }

  /**
   * Unleash 8.2's page of applications (measured): by name in byte order (`desc` reverses; sortBy
   * is ignored), `query` matching part of the name case-insensitively, `total` counted over the
   * page's rows, so a page past the end answers 0.
   */
  async list(query: ApplicationsQuery = {}): Promise<Applications> {
    const term = (query.query ?? '').trim().toLowerCase();
    const docs = (await this.store.listApplications())
      .filter((d) => d.appName.toLowerCase().includes(term))
      .sort((a, b) => (a.appName < b.appName ? -1 : a.appName > b.appName ? 1 : 0));
    if (query.sortOrder === 'desc') docs.reverse();
    const offset = positiveInteger(query.offset) ?? 0;
    const page = docs.slice(offset, offset + (positiveInteger(query.limit) ?? 1000));
    const applications = page.map((d) => ({
      appName: d.appName, createdAt: d.createdAt.toISOString(), updatedAt: d.updatedAt.toISOString(),
      description: d.description, strategies: d.strategies, createdBy: d.createdBy, url: d.url, color: d.color,
      icon: d.icon, project: d.project, environment: d.environment, usage: d.usage,
    }));
    return { applications, total: page.length ? docs.length : 0 };
  }

  /** An admin's edit: the fields sent replace the stored ones; an unknown application is created (project and environment `*`). */
  async save(appName: string, edit: ApplicationEdit, now = new Date()): Promise<void> {
    const current = await this.store.getApplication(appName);
    const usage = withUsage(current?.usage ?? [], '*', '*');
    const fields: Partial<ApplicationDocument> = { updatedAt: now, usage };
    for (const key of ['description', 'url', 'color', 'icon', 'strategies'] as const) {
      if (edit[key] !== undefined) Object.assign(fields, { [key]: edit[key] });
    }
    await this.store.updateApplication(appName, fields, {
      _id: appName, appName, createdAt: now, updatedAt: now, description: null, strategies: [], createdBy: null,
      url: null, color: null, icon: null, project: '*', environment: '*', usage,
    });
  }

  /** 200 whether it existed or not, as Unleash answers. */
  async delete(appName: string): Promise<void> {
    await this.store.deleteApplication(appName);
  }

  /** Every flag's name, archived ones included (the raw metrics of a name that is not a flag are empty). */
  async flagNames(): Promise<Set<string>> {
    return new Set((await this.sources.flags()).map((flag) => flag.name));
  }

  /** Existing flags only: Unleash never stores the metrics of a name that is not a flag. */
  private async knownBuckets(): Promise<{ buckets: MetricsBucketDocument[]; flags: Map<string, FlagData> }> {
    const flags = new Map((await this.sources.flags()).map((flag) => [flag.name, flag]));
    return { buckets: (await this.metrics.history()).filter((doc) => flags.has(doc.flag)), flags };
  }

  async get(appName: string): Promise<ApplicationView> {
    const app = await this.store.getApplication(appName);
    if (!app) throw applicationNotFound(appName);
    const [strategies, instances, { buckets, flags }] = await Promise.all([
      this.sources.strategies(), this.store.listInstances(appName), this.knownBuckets(),
    ]);
    const seen = sorted(buckets.filter((doc) => doc.appNames.includes(appName)).map((doc) => doc.flag));
    return {
      appName: app.appName,
      createdAt: app.createdAt.toISOString(),
      description: app.description,
      url: app.url,
      color: app.color,
      icon: app.icon,
      strategies: app.strategies.map((name) => {
        const found = strategies.find((s) => s.name === name);
        return found ?? { name, notFound: true };
      }),
      instances: instances.sort((a, b) => b.lastSeen.getTime() - a.lastSeen.getTime()).map((i) => ({
        appName: i.appName, instanceId: i.instanceId, sdkVersion: i.sdkVersion, sdkType: i.sdkType, clientIp: i.clientIp,
        lastSeen: i.lastSeen.toISOString(), createdAt: i.createdAt.toISOString(), environment: i.environment,
      })),
      seenToggles: seen.map((name) => {
        const f = flags.get(name);
        return f
          ? {
              name, description: f.description, type: f.type, project: f.project, stale: f.stale, createdAt: f.createdAt.toISOString(),
              impressionData: f.impressionData, archived: f.archived,
            }
          : { name, notFound: true };
      }),
      links: { self: `/api/applications/${app.appName}` },
    };
  }

  /** Instances seen in the last 24 hours (Unleash's window for the overview and the instance list). */
  private async recentInstances(appName?: string, now = Date.now()): Promise<InstanceDocument[]> {
    return (await this.store.listInstances(appName)).filter((i) => now - i.lastSeen.getTime() <= DAY_MS);
  }

  async instances(
    appName: string, environment: string,
  ): Promise<{ instances: Array<{ instanceId: string; clientIp: string | null; sdkVersion: string | null; lastSeen: string }> }> {
    const instances = (await this.recentInstances(appName)).filter((i) => i.environment === environment);
    instances.sort((a, b) => b.lastSeen.getTime() - a.lastSeen.getTime());
    return {
      instances: instances.slice(0, 1000).map((i) => ({
        instanceId: i.instanceId, clientIp: i.clientIp, sdkVersion: i.sdkVersion, lastSeen: i.lastSeen.toISOString(),
      })),
    };
  }

  /**
   * As Unleash 8.2 computes it, quirks included (measured): every other registered application adds
   * a row without flags, which `featureCount` counts as one more; 404 only when no application exists at all.
   */
  async overview(appName: string): Promise<ApplicationOverview> {
    const [apps, app, instances, { buckets, flags }, strategies] = await Promise.all([
      this.store.listApplications(), this.store.getApplication(appName), this.recentInstances(appName), this.knownBuckets(),
      this.sources.strategies(),
    ]);
    if (apps.length === 0) throw applicationNotFound(appName);
    const rows = new Map<string, { environment: string; project: string; features: Set<string> }>();
    for (const doc of buckets) {
      if (!doc.appNames.includes(appName)) continue;
      const project = flags.get(doc.flag)?.project ?? '';
      const key = `${doc.environment}\0${project}`;
      const row = rows.get(key) ?? { environment: doc.environment, project, features: new Set<string>() };
      row.features.add(doc.flag);
      rows.set(key, row);
    }
    const features = new Set([...rows.values()].flatMap((row) => [...row.features]));
    const emptyRows = (apps.length - (app ? 1 : 0)) + (app && rows.size === 0 ? 1 : 0);
    const known = new Set(strategies.map((s) => s.name));
    const missingStrategies = rows.size === 0 ? [] : (app?.strategies ?? []).filter((s) => !DEPRECATED_STRATEGIES.has(s) && !known.has(s));
    const environments = sorted([...rows.values()].map((row) => row.environment)).map((name) => {
      const here = instances.filter((i) => i.environment === name);
      const versions = (type?: string) => sorted(here.filter((i) => i.sdkVersion !== null && (type === undefined || i.sdkType === type)).map((i) => i.sdkVersion ?? ''));
      const sdks = versions();
      return {
        name,
        instanceCount: new Set(here.map((i) => i.instanceId)).size,
        sdks,
        frontendSdks: versions('frontend'),
        backendSdks: versions('backend'),
        lastSeen: here.length === 0 ? null : new Date(Math.max(...here.map((i) => i.lastSeen.getTime()))).toISOString(),
        issues: { missingFeatures: [] as string[], outdatedSdks: sdks.filter(isOutdatedSdk) },
      };
    });
    return {
      projects: sorted([...rows.values()].map((row) => row.project).filter((p) => p !== '')),
      featureCount: features.size + (emptyRows > 0 ? 1 : 0),
      environments,
      issues: { missingStrategies: [...new Set(missingStrategies)] },
    };
  }

  /** Outdated SDK versions and the applications using them; in a project, the applications whose metrics name its flags. */
  async outdatedSdks(project?: string): Promise<OutdatedSdks> {
    const instances = await this.store.listInstances();
    let inProject: Set<string> | undefined;
    if (project !== undefined) {
      const { buckets, flags } = await this.knownBuckets();
      inProject = new Set(buckets.filter((doc) => flags.get(doc.flag)?.project === project).flatMap((doc) => doc.appNames));
    }
    const byVersion = new Map<string, Set<string>>();
    for (const i of instances) {
      if (!isOutdatedSdk(i.sdkVersion) || (inProject && !inProject.has(i.appName))) continue;
      const apps = byVersion.get(i.sdkVersion ?? '') ?? new Set<string>();
      apps.add(i.appName);
      byVersion.set(i.sdkVersion ?? '', apps);
    }
    return { sdks: sorted(byVersion.keys()).map((sdkVersion) => ({ sdkVersion, applications: sorted(byVersion.get(sdkVersion) ?? []) })) };
  }

  /**
   * The applications whose metrics name the project's flags, with their environments, instances and
   * SDKs; `query` (comma-separated) matches any of name, environment, instance or SDK version in
   * part, case-insensitively; paged by application name (limit 1–100, else 50, as Unleash normalises).
   */
  async projectApplications(project: string, query: ProjectApplicationsQuery): Promise<ProjectApplications> {
    const [{ buckets, flags }, apps, instances] = await Promise.all([this.knownBuckets(), this.store.listApplications(), this.store.listInstances()]);
    const registered = new Set(apps.map((a) => a.appName));
    const pairs = new Map<string, Set<string>>();
    for (const doc of buckets) {
      if (flags.get(doc.flag)?.project !== project) continue;
      for (const app of doc.appNames) {
        if (!registered.has(app)) continue;
        const environments = pairs.get(app) ?? new Set<string>();
        environments.add(doc.environment);
        pairs.set(app, environments);
      }
    }
    const terms = (query.query ?? '').split(',').map((t) => t.trim().toLowerCase()).filter(Boolean);
    const matches = (...values: Array<string | null>) => terms.length === 0 || terms.some((t) => values.some((v) => v?.toLowerCase().includes(t)));
    const rows: Array<{ app: string; environment: string; instance: InstanceDocument | null }> = [];
    for (const [app, environments] of pairs) {
      for (const environment of environments) {
        const here = instances.filter((i) => i.appName === app && i.environment === environment);
        for (const instance of here.length === 0 ? [null] : here) {
          if (matches(app, environment, instance?.instanceId ?? null, instance?.sdkVersion ?? null)) rows.push({ app, environment, instance });
        }
      }
    }
    const descending = query.sortOrder === 'desc';
    const names = sorted(rows.map((r) => r.app));
    if (descending) names.reverse();
    const limitAsked = Number(query.limit ?? 50);
    const limit = limitAsked > 0 && limitAsked <= 100 ? limitAsked : 50;
    const offset = Number(query.offset) > 0 ? Number(query.offset) : 0;
    const page = names.slice(offset, offset + limit);
    return {
      applications: page.map((name) => {
        const mine = rows.filter((r) => r.app === name);
        const sdks: Array<{ name: string; versions: string[] }> = [];
        for (const { instance } of mine) {
          if (!instance?.sdkVersion) continue;
          const [sdkName = '', version = ''] = instance.sdkVersion.split(':');
          let sdk = sdks.find((s) => s.name === sdkName);
          if (!sdk) sdks.push((sdk = { name: sdkName, versions: [] }));
          if (version && !sdk.versions.includes(version)) sdk.versions.push(version);
        }
        return {
          name,
          environments: [...new Set(mine.map((r) => r.environment))],
          instances: [...new Set(mine.map((r) => r.instance?.instanceId ?? null))].filter((i): i is string => i !== null),
          sdks,
        };
      }),
      total: names.length,
    };
  }
}
