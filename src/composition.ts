import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Db } from 'mongodb';
import type { EventLog } from './db/event-log/index.js';
import { withoutBookkeeping, type Outbox } from './db/outbox/index.js';
import type { FlagData } from './features/flags/read-model.js';
import type { ProjectFlagSource } from './features/projects/sources.js';
import type { PoolScheduler } from './plugins/pool-scheduler.js';
import type { LoadProgress } from './db/state.js';
import { ApiTokenService, SYSTEM_USER } from './features/api-tokens/service.js';
import { ApiError } from './errors.js';
import { ApiTokenStore } from './features/api-tokens/store.js';
import { EnvironmentStore } from './features/environments/store.js';
import { ProjectStore } from './features/projects/store.js';
import { StrategyTypeStore } from './features/strategy-types/store.js';
import { TagStore, colorOf } from './features/tags/store.js';
import { SegmentService } from './features/segments/service.js';
import { StrategySegmentService } from './features/segments/strategies.js';
import { SegmentStore } from './features/segments/store.js';
import { ContextFieldService } from './features/context-fields/service.js';
import { ContextFieldStore } from './features/context-fields/store.js';
import { EventSearchService, MAX_LIMIT } from './features/events/service.js';
import type { EventCreatorNames } from './features/events/legacy.js';
import { InviteLinkService } from './features/invite-links/service.js';
import { InviteLinkStore } from './features/invite-links/store.js';
import { UserService } from './features/users/service.js';
import { UserAdminService } from './features/users/admin-service.js';
import { PasswordService } from './features/users/password-service.js';
import { ResetTokenStore } from './features/users/reset-tokens.js';
import { UserStore } from './features/users/store.js';
import { FlagStore } from './features/flags/store.js';
import { FlagService } from './features/flags/service.js';
import type { CollaboratorSource } from './features/flags/sources.js';
import { FlagBulkService } from './features/flags/bulk.js';
import { FlagCloneService } from './features/flags/clone.js';
import { FlagLifecycleService } from './features/flags/lifecycle-service.js';
import { FlagLinkService } from './features/flags/links.js';
import { plainTags } from './features/flags/tags.js';
import { TagService } from './features/tags/service.js';
import { EnvironmentService } from './features/environments/service.js';
import { ProjectService } from './features/projects/service.js';
import { StrategyTypeService } from './features/strategy-types/service.js';
import { ChangeRequestStore, FINAL_STATES } from './features/change-requests/store.js';
import { ChangeRequestService } from './features/change-requests/service.js';
import { SessionStore } from './features/sessions/store.js';
import { PatStore } from './features/personal-access-tokens/store.js';
import { PatService } from './features/personal-access-tokens/service.js';
import { FavoriteStore } from './features/favorites/store.js';
import { FavoriteService } from './features/favorites/service.js';
import { SessionService, ensureInitialAdmin } from './features/sessions/service.js';
import { PlaygroundService } from './features/playground/service.js';
import { ChangeRequestPreview } from './features/change-requests/preview.js';
import { SnapshotCache } from './features/playground/snapshot.js';
import { storeSnapshotSource } from './features/playground/source.js';
import { PlaygroundBatchService } from './features/playground-batch/service.js';
import { ApplicationService } from './features/metrics/applications.js';
import { MetricsService } from './features/metrics/service.js';
import { MetricsStore } from './features/metrics/store.js';
import { FrontendSettingsService } from './features/ui-config/service.js';
import { SettingStore } from './features/ui-config/store.js';
import { MaintenanceService } from './features/maintenance/service.js';
import { ApplicationAnnouncer } from './features/metrics/announcer.js';
import { MaintenanceStore } from './features/maintenance/store.js';
import { EdgeService } from './features/edge/service.js';
import { FeatureSearchService } from './features/feature-search/service.js';
import { ProjectStatusService } from './features/project-status/service.js';
import { PersonalDashboardService } from './features/personal-dashboard/service.js';
import type { DashboardSources } from './features/personal-dashboard/sources.js';
import type { ProjectStatusSources } from './features/project-status/sources.js';
import { InstanceStatsService } from './features/instance-stats/service.js';
import type { InstanceStatsSources } from './features/instance-stats/sources.js';
import { UNLEASH_VERSION } from './features/ui-config/routes.js';
import { ADMIN_TOKEN_USER_ID, ADMIN_TOKEN_USER_NAME, gravatarUrl, instanceIdOf } from './features/shared.js';
import { FeatureTypeStore } from './features/feature-types/store.js';
import { FeatureTypeService } from './features/feature-types/service.js';
import type { FeatureSearchSources } from './features/feature-search/sources.js';
import { ExportService } from './features/import-export/export.js';
import { ImportService } from './features/import-export/import.js';
import type { ImportSources, ImportWriter } from './features/import-export/sources.js';
import { packFlag } from './features/flags/store.js';
import type { ContextFieldDocument } from './features/context-fields/store.js';
import { tagId, type TagDocument, type TagTypeDocument } from './features/tags/store.js';
import { AddonStore } from './features/addons/store.js';
import { AddonService } from './features/addons/service.js';
import { DeliveryLog } from './features/addons/log.js';
import { DeliveryLease } from './features/addons/lease.js';
import { Deliverer } from './features/addons/deliverer.js';
import type { UrlPolicy } from './features/addons/url.js';
import { summaryOf } from './features/events/presenter.js';

/**
 * The one place where stores and services are wired together (Unleash keeps a small composition
 * file per feature; with this many cross-references one file reads better). Route plugins receive
 * what they need as options, so nothing reaches for globals.
 *
 * A store is its feature's write model: only its own folder and this file use it. What one
 * feature asks of another is a read model, passed to the asker's constructor: the provider's
 * `read-model.ts` (questions several features ask) or the asker's `sources.ts` (questions only it
 * asks, declared there so the provider needs nothing from it). The stores answer them as they
 * are; a new environment reaches projects and flags through their services (`EnvironmentJoiner`).
 */
export interface Stores {
  outbox: Outbox;
  strategyTypes: StrategyTypeStore;
  environments: EnvironmentStore;
  projects: ProjectStore;
  tags: TagStore;
  apiTokens: ApiTokenStore;
  segments: SegmentStore;
  contextFields: ContextFieldStore;
  featureTypes: FeatureTypeStore;
  /** The outbox's: where its flushes append, what the search and change requests read. */
  eventLog: EventLog;
  users: UserStore;
  /** Welcome and reset links of users (the users feature's second collection). */
  resetTokens: ResetTokenStore;
  inviteLinks: InviteLinkStore;
  flags: FlagStore;
  changeRequests: ChangeRequestStore;
  sessions: SessionStore;
  metrics: MetricsStore;
  settings: SettingStore;
  maintenance: MaintenanceStore;
  personalAccessTokens: PatStore;
  favorites: FavoriteStore;
  addons: AddonStore;
  /** The addons' delivery attempts (not configuration: written to its collection directly). */
  addonDeliveries: DeliveryLog;
}

export interface Services {
  apiTokens: ApiTokenService;
  segments: SegmentService;
  strategySegments: StrategySegmentService;
  contextFields: ContextFieldService;
  featureTypes: FeatureTypeService;
  events: EventSearchService;
  users: UserService;
  /** The admin's user operations (`/api/admin/user-admin`). */
  userAdmin: UserAdminService;
  /** Passwords set by an admin or through a link, and the links. */
  passwords: PasswordService;
  inviteLinks: InviteLinkService;
  flags: FlagService;
  /** Operations on several of a project's flags at once, through the same rules as `flags`. */
  flagBulk: FlagBulkService;
  /** A flag's links, lifecycle list and completion, and cloning: beside the flag service, through the flags store. */
  flagLinks: FlagLinkService;
  flagLifecycle: FlagLifecycleService;
  flagClone: FlagCloneService;
  tags: TagService;
  environments: EnvironmentService;
  projects: ProjectService;
  strategyTypes: StrategyTypeService;
  changeRequests: ChangeRequestService;
  sessions: SessionService;
  personalAccessTokens: PatService;
  favorites: FavoriteService;
  /** SDK usage counts; started and stopped with the SDK API (registerSdkApi). */
  metrics: MetricsService;
  /** Applications and SDK instances, shown with the client metrics. */
  applications: ApplicationService;
  /** The frontend API's CORS origins (ui-config). */
  frontendSettings: FrontendSettingsService;
  featureSearch: FeatureSearchService;
  projectStatus: ProjectStatusService;
  personalDashboard: PersonalDashboardService;
  instanceStats: InstanceStatsService;
  /** Export of flags to another instance, and import from one (one commit). */
  exporter: ExportService;
  importer: ImportService;
  /** Maintenance mode's switch, and whether it refuses a write (the auth plugin asks). */
  maintenance: MaintenanceService;
  applicationAnnouncer: ApplicationAnnouncer;
  /** Unleash Edge's token validation. */
  edge: EdgeService;
  addons: AddonService;
}

/** Built before the auth plugin is registered, which receives the token store from here. */
export function createStores(outbox: Outbox, db: Db): Stores {
  return {
    outbox,
    strategyTypes: new StrategyTypeStore(outbox),
    environments: new EnvironmentStore(outbox),
    projects: new ProjectStore(outbox),
    tags: new TagStore(outbox),
    apiTokens: new ApiTokenStore(outbox),
    segments: new SegmentStore(outbox),
    contextFields: new ContextFieldStore(outbox),
    featureTypes: new FeatureTypeStore(outbox),
    eventLog: outbox.eventLog,
    users: new UserStore(outbox),
    resetTokens: new ResetTokenStore(outbox),
    inviteLinks: new InviteLinkStore(outbox),
    flags: new FlagStore(outbox),
    changeRequests: new ChangeRequestStore(outbox),
    sessions: new SessionStore(db),
    metrics: new MetricsStore(outbox),
    settings: new SettingStore(outbox),
    maintenance: new MaintenanceStore(outbox),
    personalAccessTokens: new PatStore(outbox),
    favorites: new FavoriteStore(outbox),
    addons: new AddonStore(outbox),
    addonDeliveries: new DeliveryLog(db),
  };
}

export function createServices(stores: Stores, config: Config, log: FastifyBaseLogger): Services {
  const users = new UserService(stores.users);
  const tags = new TagService(stores.tags, stores.outbox);
  const metrics = new MetricsService(stores.metrics, {
    report: ({ job, err, recovered }) => recovered
      ? log.info({ job }, 'client metrics: the database work succeeds again')
      : log.error({ job, err }, 'client metrics: the database work failed; retried every second'),
  }, undefined, {
    // A flag's lifecycle follows the SDKs' reports (FlagRewrites.metricsSeen), off the SDK's path.
    used: (environment, names) => void flags.rewrites.metricsSeen(environment, names).catch((err: unknown) => {
      log.warn({ err, environment }, 'client metrics: a flag\'s lifecycle stage was not written; the next report tries again');
    }),
  });
  // The admin flag views show lastSeenAt / yes / no per environment from the client metrics.
  const legalValues = { legalValues: async (name: string) => ((await stores.contextFields.get(name))?.legalValues ?? []).map((v) => v.value) };
  const flags = new FlagService(
    stores.flags, stores.projects, stores.environments, stores.strategyTypes, tags, stores.segments, metrics, stores.outbox, legalValues,
    flagCollaborators(stores),
  );
  const segments = new SegmentService(stores.segments, stores.flags, stores.projects, stores.outbox, legalValues);
  const projects = new ProjectService(stores.projects, stores.environments, stores.flags, stores.outbox, projectFlagChanges(stores), stores.favorites);
  const events = new EventSearchService(stores.eventLog, config.baseUrl);
  const projectStatus = new ProjectStatusService(projectStatusSources(stores, events, flags));
  const strategyTypes = new StrategyTypeService(stores.strategyTypes, stores.outbox);
  const sessions = new SessionService(
    stores.sessions, stores.users, config.SESSION_TTL_HOURS * 3_600_000, config.REVISION_POLL_MS, (id, at) => users.markSeen(id, at),
  );
  const tokensSeenAt = (userId: number) => stores.personalAccessTokens.ofUser(userId).map((pat) => pat.seenAt);
  return {
    apiTokens: new ApiTokenService(stores.apiTokens, stores.environments, stores.outbox, stores.projects),
    segments,
    strategySegments: new StrategySegmentService(stores.segments, stores.flags, flags.rewrites),
    featureTypes: new FeatureTypeService(stores.featureTypes, stores.outbox),
    contextFields: new ContextFieldService(stores.contextFields, stores.flags, stores.projects, stores.outbox),
    events,
    users,
    userAdmin: new UserAdminService(stores.users, stores.resetTokens, sessions, tokensSeenAt, config.baseUrl),
    passwords: new PasswordService(stores.users, stores.resetTokens, sessions, config.baseUrl),
    inviteLinks: new InviteLinkService(stores.inviteLinks, stores.users, users, stores.outbox, config.baseUrl),
    flags,
    flagBulk: new FlagBulkService(flags, stores.flags, stores.projects, tags, stores.outbox),
    flagLinks: new FlagLinkService(stores.flags, stores.outbox),
    flagLifecycle: new FlagLifecycleService(stores.flags, stores.outbox),
    flagClone: new FlagCloneService(flags, stores.flags, stores.projects, stores.environments),
    tags,
    environments: new EnvironmentService(
      stores.environments, stores.projects, stores.flags, stores.apiTokens, [projects, flags.rewrites], stores.outbox,
    ),
    projects,
    strategyTypes,
    changeRequests: new ChangeRequestService(
      stores.changeRequests, flags, stores.flags, stores.segments, segments, stores.projects, stores.environments, stores.eventLog,
      stores.outbox, log,
    ),
    sessions,
    personalAccessTokens: new PatService(stores.personalAccessTokens, stores.users, log),
    favorites: new FavoriteService(stores.favorites, {
      flag: (name) => {
        const flag = stores.flags.getNow(name);
        return flag ? { createdAt: flag.createdAt, tags: plainTags(flag.tags) } : null;
      },
      projectCreatedAt: async (id) => (await stores.projects.get(id))?.createdAt ?? null,
    }),
    metrics,
    applications: new ApplicationService(stores.metrics, metrics, {
      flags: () => stores.flags.all(),
      strategies: async () => await strategyTypes.list(),
    }),
    frontendSettings: new FrontendSettingsService(
      stores.settings, stores.outbox, config.FRONTEND_API_ORIGINS.split(',').map((origin) => origin.trim()).filter(Boolean),
    ),
    featureSearch: new FeatureSearchService(featureSearchSources(stores, metrics)),
    projectStatus,
    personalDashboard: new PersonalDashboardService(dashboardSources(stores, projectStatus, events)),
    instanceStats: new InstanceStatsService(instanceStatsSources(stores, metrics, events, config)),
    exporter: new ExportService(importSources(stores), importWriter(stores)),
    importer: new ImportService(importSources(stores), importWriter(stores)),
    maintenance: new MaintenanceService(stores.maintenance, stores.outbox),
    applicationAnnouncer: new ApplicationAnnouncer(stores.metrics, stores.outbox),
    edge: new EdgeService({ token: (secret) => stores.apiTokens.lookup(secret) }),
    addons: new AddonService(stores.addons, stores.addonDeliveries, {
      ensureTagType: async (tagType) => {
        try {
          await tags.createType(tagType, SYSTEM_USER);
        } catch (err) {
          if (!(err instanceof ApiError && err.name === 'NameExistsError')) throw err;
        }
      },
    }, addonUrlPolicy(config), log),
  };
}

/** What export and import read (import-export/sources.ts): the held state of the stores. */
function importSources(stores: Stores): ImportSources {
  return {
    flag: (name) => stores.flags.getNow(name),
    flags: () => stores.flags.all(),
    children: (name) => stores.flags.childrenNow(name),
    project: (id) => stores.projects.get(id),
    environments: () => stores.environments.list(),
    strategyTypes: async () => (await stores.strategyTypes.list()).map((t) => ({ name: t.name, editable: t.editable })),
    segments: () => stores.segments.list(),
    contextFields: () => stores.contextFields.list(),
    tagTypes: async () => (await stores.tags.listTypes()).map((t) => ({ name: t.name, description: t.description, icon: t.icon, color: colorOf(t) })),
    tags: () => stores.tags.listTags(),
  };
}

/** How an import's documents become one commit: each in its store's stored form (import-export/sources.ts). */
function importWriter(stores: Stores): ImportWriter {
  const { outbox } = stores;
  return {
    flag: (current, next) => {
      const base = current ? current._rev ?? 0 : null;
      return { coll: stores.flags.collection.collectionName, id: next._id, base, doc: { ...packFlag(next), _rev: (base ?? 0) + 1 } };
    },
    tagType: (type, at) => {
      const doc: TagTypeDocument = { _id: type.name, ...type, createdAt: at, _rev: 1 };
      return { coll: stores.tags.types.collectionName, id: doc._id, base: null, doc };
    },
    tag: (type, value, at) => {
      const doc: TagDocument = { _id: tagId(type, value), type, value, createdAt: at, _rev: 1 };
      return { coll: stores.tags.tags.collectionName, id: doc._id, base: null, doc };
    },
    contextField: (field) => {
      const doc: ContextFieldDocument = { _id: field.name, ...field, _rev: 1 };
      return { coll: stores.contextFields.collection.collectionName, id: doc._id, base: null, doc };
    },
    commit: (changes, events) => outbox.write(changes, events),
  };
}

/** Where addons may send (ADDON_ALLOW_PRIVATE_URLS, ADDON_ALLOWED_HOSTS). */
function addonUrlPolicy(config: Config): UrlPolicy {
  return {
    allowPrivate: config.ADDON_ALLOW_PRIVATE_URLS === 'true',
    allowedHosts: config.ADDON_ALLOWED_HOSTS.split(',').map((host) => host.trim().toLowerCase()).filter(Boolean),
  };
}

/**
 * The addons' deliverer (features/addons/deliverer.ts): the configurations, the event log it
 * follows, each commit as its signal, and the event search's summary as Unleash's eventMarkdown.
 * Started once the state has loaded (app.ts).
 */
export function createAddonDeliverer(stores: Stores, db: Db, config: Config, log: FastifyBaseLogger): Deliverer {
  const { outbox, eventLog } = stores;
  return new Deliverer({
    addons: () => stores.addons.list(),
    addon: (id) => stores.addons.get(id),
    newestEventId: () => eventLog.newestId,
    events: async (ids) => await eventLog.read(ids),
    eventsReady: async () => await eventLog.whenReady(),
    onCommitted: (listener) => outbox.onCommitted(listener),
    markdown: (event) => summaryOf(event, config.baseUrl),
  }, stores.addonDeliveries, new DeliveryLease(db, outbox.instance), {
    timeoutMs: config.ADDON_DELIVERY_TIMEOUT_MS,
    attempts: config.ADDON_DELIVERY_ATTEMPTS,
    backoffMs: config.ADDON_DELIVERY_BACKOFF_MS,
    maxBackoffMs: config.ADDON_DELIVERY_MAX_BACKOFF_MS,
    policy: addonUrlPolicy(config),
    tickMs: 1000,
  }, log);
}

/** What disconnecting a project's environment writes to its flags (projects/sources.ts), in the project's commit. */
function projectFlagChanges(stores: Stores): ProjectFlagSource {
  return {
    environmentRemoved: async (projectId, environment) => {
      const flags = [...await stores.flags.listByProject(projectId), ...await stores.flags.listByProject(projectId, { archived: true })];
      return flags.flatMap((flag) => {
        const state = flag.environments[environment];
        if (!state || (!state.enabled && state.variants.length === 0)) return [];
        const next = { ...withoutBookkeeping(flag) as FlagData, environments: { ...flag.environments, [environment]: { ...state, enabled: false, variants: [] } } };
        const base = flag._rev ?? 0;
        return [{ coll: stores.flags.collection.collectionName, id: flag._id, base, doc: { ...packFlag(next), _id: flag._id, _rev: base + 1 } }];
      });
    },
  };
}

/** What the personal dashboard reads (personal-dashboard/sources.ts): other features' read sides. */
function dashboardSources(stores: Stores, projectStatus: ProjectStatusService, events: EventSearchService): DashboardSources {
  return {
    favorites: stores.favorites,
    projects: () => stores.projects.list(),
    // The whole flags: the dashboard shows who created each, which the live copies leave out.
    flags: async () => (await stores.flags.all()).filter((flag) => !flag.archived),
    admins: async () => (await stores.users.list()).filter((u) => u.rootRole === 1).map((u) => ({
      id: u._id, name: u.name, username: u.username, email: u.email,
    })),
    overview: (projectId) => projectStatus.overview(projectId),
    staleCount: async (projectId) => (await projectStatus.status(projectId)).staleFlags.total,
    latestEvents: async (projectId, limit) => (await events.search({ project: `IS:${projectId}`, limit: String(limit) })).events,
  };
}

/** What the instance statistics count (instance-stats/sources.ts): the held state, the SDK instances and metrics, the event search. */
function instanceStatsSources(stores: Stores, metrics: MetricsService, events: EventSearchService, config: Config): InstanceStatsSources {
  return {
    instanceId: instanceIdOf(config.MONGODB_DB),
    version: UNLEASH_VERSION,
    users: async () => (await stores.users.list()).map((u) => ({ id: u._id, email: u.email, seenAt: u.seenAt })),
    tokensSeenAt: (userId) => stores.personalAccessTokens.ofUser(userId).map((p) => p.seenAt),
    apiTokenTypes: async () => (await stores.apiTokens.list()).map((t) => t.type),
    flags: () => stores.flags.all(),
    projects: () => stores.projects.list(),
    contextFieldCount: async () => (await stores.contextFields.list()).length,
    environments: () => stores.environments.list(),
    segmentCount: async () => (await stores.segments.list()).length,
    strategyTypeCount: async () => (await stores.strategyTypes.list()).length,
    sdkInstances: () => stores.metrics.listInstances(),
    metricsBuckets: () => metrics.history(),
    eventCount: async ({ type, environments, from }) => (await events.search({
      ...(type === undefined ? {} : { type: `IS:${type}` }),
      ...(environments === undefined ? {} : { environment: `IS_ANY_OF:${environments.join(',')}` }),
      ...(from === undefined ? {} : { from: `IS:${from.toISOString().slice(0, 10)}` }),
      limit: '1',
    }, { allProjects: true })).total,
  };
}

/**
 * A flag's collaborators: the event log's creators of its name, named by the users' read side
 * (the admin token user by its fixed name; someone no longer a user is left out, as Unleash's
 * join with its users table leaves them).
 */
function flagCollaborators(stores: Stores): CollaboratorSource {
  return {
    of: async (featureName) => {
      const ids = stores.eventLog.featureCreators(featureName);
      if (ids.length === 0) return [];
      const users = new Map((await stores.users.list()).map((user) => [user._id, user]));
      return ids.flatMap((id) => {
        if (id === ADMIN_TOKEN_USER_ID) return [{ id, name: ADMIN_TOKEN_USER_NAME, imageUrl: gravatarUrl(ADMIN_TOKEN_USER_NAME) }];
        const user = users.get(id);
        if (!user) return [];
        const name = user.name ?? user.username ?? user.email ?? String(user._id);
        // By name, as a flag's createdBy: Vane's first admin has an e-mail address Unleash's lacks (D17).
        return [{ id, name, imageUrl: gravatarUrl(name) }];
      });
    },
  };
}

/** Who created events, named by the users' read side (the older event routes, events/legacy.ts). */
export function eventCreatorNames(stores: Stores): EventCreatorNames {
  return {
    creatorIds: () => stores.eventLog.creatorIds(),
    nameOf: async (id) => {
      const user = (await stores.users.list()).find((u) => u._id === id);
      return user ? user.name ?? user.username ?? user.email : null;
    },
  };
}

/** What a project's overview and status pages read (project-status/sources.ts). */
function projectStatusSources(stores: Stores, events: EventSearchService, flags: FlagService): ProjectStatusSources {
  return {
    favorites: stores.favorites,
    flagViews: (projectId) => flags.list(projectId),
    enabledEvents: async (projectId) => {
      const found: Array<{ featureName: string; environment: string; createdAt: Date }> = [];
      const query = { type: 'IS:feature-environment-enabled', project: `IS:${projectId}`, limit: String(MAX_LIMIT) };
      for (let offset = 0; ; offset += MAX_LIMIT) {
        const page = await events.search({ ...query, offset: String(offset) });
        for (const e of page.events) {
          if (e.featureName && e.environment) found.push({ featureName: e.featureName, environment: e.environment, createdAt: new Date(e.createdAt) });
        }
        if (page.events.length < MAX_LIMIT) return found;
      }
    },
    environmentTypes: async () => new Map((await stores.environments.list()).map((e) => [e.name, e.type])),
    project: (id) => stores.projects.get(id),
    flags: async (projectId) => [
      ...await stores.flags.listByProject(projectId), ...await stores.flags.listByProject(projectId, { archived: true }),
    ],
    apiTokens: () => stores.apiTokens.list(),
    segments: () => stores.segments.list(),
    activityByDay: (projectId, since) => stores.eventLog.projectDays(projectId, since),
    activityBetween: (projectId, from, to) => stores.eventLog.projectEventCount(projectId, from, to),
    lifetimes: () => stores.featureTypes.lifetimes(),
    revision: () => stores.outbox.state.revision,
  };
}

/** What the feature search reads: the stores' held state and the client metrics (feature-search/sources.ts). */
function featureSearchSources(stores: Stores, metrics: MetricsService): FeatureSearchSources {
  return {
    flags: stores.flags, projects: stores.projects, environments: stores.environments, segments: stores.segments, users: stores.users,
    featureTypes: stores.featureTypes,
    usage: metrics, state: stores.outbox.state, favorites: stores.favorites,
    tagTypes: { listTypes: async () => (await stores.tags.listTypes()).map((t) => ({ name: t.name, color: colorOf(t) })) },
    changeRequests: {
      open: async () => (await Promise.all((await stores.projects.list()).map((p) => stores.changeRequests.listByProject(p.id)))).flat()
        .filter((cr) => !FINAL_STATES.has(cr.state))
        .map((cr) => ({ id: cr._id, environment: cr.environment, features: cr.changes.flatMap((c) => (c.feature === undefined ? [] : [c.feature])) })),
    },
  };
}

/** The playground and its batch/impact sibling: one snapshot cache, one worker pool. */
export interface Playground {
  snapshots: SnapshotCache;
  service: PlaygroundService;
  batch: PlaygroundBatchService;
  /** The change-request preview (E3), on the playground. */
  preview: ChangeRequestPreview;
}

/**
 * The playground's wiring: the per-revision snapshot (built from the flags and segments stores,
 * rebuilt after any commit this process hears of) shared by the playground and playground-batch
 * services, both dispatching to `pool` (the worker-pool plugin's, whose default module is the
 * playground's entry point, workers/playground.ts), and the change-request preview on them.
 */
export function createPlayground(pool: PoolScheduler, stores: Stores, services: Services, config: Config): Playground {
  const snapshots = new SnapshotCache(storeSnapshotSource(stores.flags, stores.segments), stores.outbox);
  const threads = pool.threads;
  const service = new PlaygroundService(pool, snapshots, {
    evaluationLimit: config.PLAYGROUND_EVALUATION_LIMIT,
    streamThreshold: config.PLAYGROUND_STREAM_THRESHOLD,
    timeoutMs: config.PLAYGROUND_TIMEOUT_MS,
    threads,
  });
  const batch = new PlaygroundBatchService(pool, snapshots, services.changeRequests, {
    evaluationLimit: config.PLAYGROUND_BATCH_LIMIT,
    threads,
  });
  return { snapshots, service, batch, preview: new ChangeRequestPreview(services.changeRequests, service) };
}

/**
 * Brings a database to the initial state of docs/rules.md §7 (idempotent; safe with several instances).
 * The order fixes the ids of the initial events: strategy types (1–4), then the admin token (5).
 */
export async function initialiseState(
  stores: Stores, services: Services, config: Config, progress: (p: LoadProgress) => void = () => undefined,
): Promise<void> {
  // The event log's copy loads beside the configuration: both are reads, and at 5 000 flags
  // (37 500 events) one after the other took 2.2 s + 1.5 s of a 5.7 s start. The copy
  // hears of every event appended from its start on, and tells a fresh log (nothing to backfill)
  // from one written before it existed; appends made meanwhile (a fresh database's built-in
  // strategies) wait until it knows the newest stored id (EventLog.start).
  const logStarted = stores.eventLog.start();
  const configurationLoaded = (async () => {
    // The configuration state is the commit log folded; the initial documents (docs/rules.md §7)
    // are committed after it by whichever instance finds them missing.
    await stores.outbox.load(progress);
    await stores.strategyTypes.init();
    await stores.environments.init();
    await stores.projects.init();
    await stores.tags.init();
    await stores.contextFields.init();
  })();
  // Both end before a failure is thrown: the caller starts again after a database that did not
  // answer, and two starts of the copy must not run at once.
  const [log, configuration] = await Promise.allSettled([logStarted, configurationLoaded]);
  if (log.status === 'rejected') throw log.reason;
  if (configuration.status === 'rejected') throw configuration.reason;
  await services.apiTokens.ensureAdminTokens(config.adminTokens, config.INIT_ADMIN_API_TOKEN_NAME);
  await ensureInitialAdmin(services.users, stores.users, config.INIT_ADMIN_USER, config.INIT_ADMIN_PASSWORD);
  // Applies a crash interrupted after their commit point are finished before anything is served,
  // once every committed event is in the log (an apply's writes are recognised by their events).
  await stores.outbox.eventsAppended();
  await services.changeRequests.resumeInterruptedApplies();
}
