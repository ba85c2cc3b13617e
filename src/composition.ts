import type { Config } from './config.js';
import type { Db } from 'mongodb';
import type { FastifyBaseLogger } from 'fastify';
import type { Piscina } from 'piscina';
import type { Outbox } from './db/outbox.js';
import type { LoadProgress } from './db/state.js';
import { ApiTokenService } from './features/api-tokens/service.js';
import { ApiTokenStore } from './features/api-tokens/store.js';
import { EnvironmentStore } from './features/environments/store.js';
import { ProjectStore } from './features/projects/store.js';
import { StrategyTypeStore } from './features/strategy-types/store.js';
import { TagStore } from './features/tags/store.js';
import { SegmentService } from './features/segments/service.js';
import { SegmentStore } from './features/segments/store.js';
import { EventSearchService } from './features/events/service.js';
import { EventLogMirror, type MirrorLogger } from './features/events/log-mirror.js';
import { EventStore } from './features/events/store.js';
import { InviteLinkService } from './features/invite-links/service.js';
import { InviteLinkStore } from './features/invite-links/store.js';
import { UserService } from './features/users/service.js';
import { UserStore } from './features/users/store.js';
import { FlagStore } from './features/flags/store.js';
import { FlagService } from './features/flags/service.js';
import { TagService } from './features/tags/service.js';
import { EnvironmentService } from './features/environments/service.js';
import { ProjectService } from './features/projects/service.js';
import { StrategyTypeService } from './features/strategy-types/service.js';
import { ChangeRequestStore } from './features/change-requests/store.js';
import { ChangeRequestService } from './features/change-requests/service.js';
import { SessionStore } from './features/sessions/store.js';
import { SessionService, ensureInitialAdmin } from './features/sessions/service.js';
import { PlaygroundService } from './features/playground/service.js';
import { ChangeRequestPreview } from './features/change-requests/preview.js';
import { SnapshotCache } from './features/playground/snapshot.js';
import { storeSnapshotSource } from './features/playground/source.js';
import { PlaygroundBatchService } from './features/playground-batch/service.js';

/**
 * The one place where stores and services are wired together (Unleash keeps a small composition
 * file per feature; with this many cross-references one file reads better). Route plugins receive
 * what they need as options, so nothing reaches for globals.
 */
export interface Stores {
  outbox: Outbox;
  strategyTypes: StrategyTypeStore;
  environments: EnvironmentStore;
  projects: ProjectStore;
  tags: TagStore;
  apiTokens: ApiTokenStore;
  segments: SegmentStore;
  events: EventStore;
  eventLog: EventLogMirror;
  users: UserStore;
  inviteLinks: InviteLinkStore;
  flags: FlagStore;
  changeRequests: ChangeRequestStore;
  sessions: SessionStore;
}

export interface Services {
  apiTokens: ApiTokenService;
  segments: SegmentService;
  events: EventSearchService;
  users: UserService;
  inviteLinks: InviteLinkService;
  flags: FlagService;
  tags: TagService;
  environments: EnvironmentService;
  projects: ProjectService;
  strategyTypes: StrategyTypeService;
  changeRequests: ChangeRequestService;
  sessions: SessionService;
}

/** Built before the auth plugin is registered, which receives the token store from here. */
export function createStores(outbox: Outbox, db: Db, log: MirrorLogger): Stores {
  return {
    outbox,
    strategyTypes: new StrategyTypeStore(outbox),
    environments: new EnvironmentStore(outbox),
    projects: new ProjectStore(outbox),
    tags: new TagStore(outbox),
    apiTokens: new ApiTokenStore(outbox),
    segments: new SegmentStore(outbox),
    events: new EventStore(outbox),
    eventLog: new EventLogMirror(outbox, db, log),
    users: new UserStore(outbox),
    inviteLinks: new InviteLinkStore(outbox),
    flags: new FlagStore(outbox),
    changeRequests: new ChangeRequestStore(outbox),
    sessions: new SessionStore(db),
  };
}

export function createServices(stores: Stores, config: Config, logger: FastifyBaseLogger): Services {
  const users = new UserService(stores.users);
  const tags = new TagService(stores.tags, stores.outbox);
  const flags = new FlagService(
    stores.flags, stores.projects, stores.environments, stores.strategyTypes, tags, stores.segments, stores.outbox,
  );
  const segments = new SegmentService(stores.segments, stores.projects, stores.outbox);
  return {
    apiTokens: new ApiTokenService(stores.apiTokens, stores.environments, stores.outbox),
    segments,
    events: new EventSearchService(stores.events, config.baseUrl, stores.eventLog),
    users,
    inviteLinks: new InviteLinkService(stores.inviteLinks, stores.users, users, stores.outbox, config.baseUrl),
    flags,
    tags,
    environments: new EnvironmentService(stores.environments, stores.projects, stores.flags, stores.apiTokens, stores.outbox),
    projects: new ProjectService(stores.projects, stores.environments, stores.flags, stores.outbox),
    strategyTypes: new StrategyTypeService(stores.strategyTypes, stores.outbox),
    changeRequests: new ChangeRequestService(
      stores.changeRequests, flags, stores.segments, segments, stores.projects, stores.environments, stores.outbox, logger,
    ),
    sessions: new SessionService(stores.sessions, stores.users, config.SESSION_TTL_HOURS * 3_600_000, config.REVISION_POLL_MS),
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
export function createPlayground(pool: Piscina, stores: Stores, services: Services, config: Config): Playground {
  const snapshots = new SnapshotCache(storeSnapshotSource(stores.flags, stores.segments), stores.outbox);
  const threads = pool.options.maxThreads;
  const service = new PlaygroundService(pool, snapshots, {
    evaluationLimit: config.PLAYGROUND_EVALUATION_LIMIT,
    streamThreshold: config.PLAYGROUND_STREAM_THRESHOLD,
    maxQueue: config.PLAYGROUND_MAX_QUEUE,
    timeoutMs: config.PLAYGROUND_TIMEOUT_MS,
    threads,
  });
  const batch = new PlaygroundBatchService(pool, snapshots, services.changeRequests, {
    evaluationLimit: config.PLAYGROUND_BATCH_LIMIT,
    maxQueue: config.PLAYGROUND_MAX_QUEUE,
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
  // First: it must hear of every event appended from here on, and tell a fresh log (nothing to
  // backfill) from one written before it existed.
  await stores.eventLog.start();
  await stores.strategyTypes.init();
  await stores.environments.init();
  await stores.projects.init();
  await stores.tags.init();
  await stores.flags.init();
  await stores.segments.init();
  // The configuration state (src/db/state.ts) once the initial documents exist: reads and writes
  // from here on consult it.
  // Other instances' revisions first: what they write while the state loads is re-read after.
  await stores.outbox.markRevisionsSeen();
  await stores.outbox.state.load(progress);
  await services.apiTokens.ensureAdminTokens(config.adminTokens, config.INIT_ADMIN_API_TOKEN_NAME);
  await stores.events.init();
  await stores.users.init();
  await ensureInitialAdmin(services.users, stores.users, config.INIT_ADMIN_USER, config.INIT_ADMIN_PASSWORD);
  await stores.inviteLinks.init();
  await stores.changeRequests.init();
  // Applies a crash interrupted after their commit point are finished before anything is served.
  await services.changeRequests.resumeInterruptedApplies();
}
