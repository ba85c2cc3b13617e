import type { Config } from './config.js';
import type { Outbox } from './db/outbox.js';
import { ApiTokenService } from './features/api-tokens/service.js';
import { ApiTokenStore } from './features/api-tokens/store.js';
import { EnvironmentStore } from './features/environments/store.js';
import { ProjectStore } from './features/projects/store.js';
import { StrategyTypeStore } from './features/strategy-types/store.js';
import { TagStore } from './features/tags/store.js';
import { SegmentService } from './features/segments/service.js';
import { SegmentStore } from './features/segments/store.js';
import { InviteLinkService } from './features/invite-links/service.js';
import { InviteLinkStore } from './features/invite-links/store.js';
import { UserService } from './features/users/service.js';
import { UserStore } from './features/users/store.js';

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
  users: UserStore;
  inviteLinks: InviteLinkStore;
}

export interface Services {
  apiTokens: ApiTokenService;
  segments: SegmentService;
  users: UserService;
  inviteLinks: InviteLinkService;
}

export function createStores(outbox: Outbox, apiTokens: ApiTokenStore): Stores {
  return {
    outbox,
    strategyTypes: new StrategyTypeStore(outbox),
    environments: new EnvironmentStore(outbox),
    projects: new ProjectStore(outbox),
    tags: new TagStore(outbox),
    apiTokens,
    segments: new SegmentStore(outbox),
    users: new UserStore(outbox),
    inviteLinks: new InviteLinkStore(outbox),
  };
}

export function createServices(stores: Stores, config: Config): Services {
  const users = new UserService(stores.users);
  return {
    apiTokens: new ApiTokenService(stores.apiTokens, stores.environments, stores.outbox),
    segments: new SegmentService(stores.segments, stores.projects, stores.outbox),
    users,
    inviteLinks: new InviteLinkService(stores.inviteLinks, stores.users, users, stores.outbox, config.baseUrl),
  };
}

/**
 * Brings a database to the initial state of SPEC §7 (idempotent; safe with several instances).
 * The order fixes the ids of the initial events: strategy types (1–4), then the admin token (5).
 */
export async function initialiseState(stores: Stores, services: Services, config: Config): Promise<void> {
  await stores.strategyTypes.init();
  await stores.environments.init();
  await stores.projects.init();
  await stores.tags.init();
  await services.apiTokens.ensureAdminTokens(config.adminTokens, config.INIT_ADMIN_API_TOKEN_NAME);
  await stores.segments.init();
  await stores.users.init();
  await stores.inviteLinks.init();
}
