/**
 * The flag routes, one plugin per resource (flags, archive, strategies, environments on/off,
 * variants, dependencies, tags, links, lifecycle, clone), each given the flag service or its own. Registered in this order, which is the
 * order of the OpenAPI document.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FavoriteReadModel } from '../../favorites/read-model.js';
import type { FlagBulkService } from '../bulk.js';
import type { FlagCloneService } from '../clone.js';
import type { FlagLifecycleService } from '../lifecycle-service.js';
import type { FlagLinkService } from '../links.js';
import type { FlagService } from '../service.js';
import archiveRoutes from './archive.js';
import bulkRoutes from './bulk.js';
import cloneRoutes from './clone.js';
import lifecycleRoutes from './lifecycle.js';
import linkRoutes from './links.js';
import dependencyRoutes from './dependencies.js';
import environmentRoutes from './environments.js';
import flagRoutes from './flags.js';
import strategyRoutes from './strategies.js';
import variantRoutes from './variants.js';
import tagRoutes from './tags.js';

export interface FlagRouteServices {
  service: FlagService;
  bulk: FlagBulkService;
  links: FlagLinkService;
  lifecycle: FlagLifecycleService;
  clone: FlagCloneService;
  /** Whom a flag is a favourite of: its view says so to the signed-in user. */
  favorites: FavoriteReadModel;
}

const flagResourceRoutes: FastifyPluginAsyncTypebox<FlagRouteServices> = async (app, options) => {
  for (const routes of [flagRoutes, archiveRoutes, strategyRoutes, environmentRoutes, variantRoutes, dependencyRoutes, tagRoutes]) {
    await app.register(routes, options);
  }
  await app.register(bulkRoutes, options);
  await app.register(linkRoutes, options);
  await app.register(lifecycleRoutes, options);
  await app.register(cloneRoutes, options);
};

export default flagResourceRoutes;
