/**
 * The flag routes, one plugin per resource (flags, archive, strategies, environments on/off,
 * variants, dependencies, tags), each given the flag service. Registered in this order, which is the
 * order of the OpenAPI document.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FlagBulkService } from '../bulk.js';
import type { FlagService } from '../service.js';
import archiveRoutes from './archive.js';
import bulkRoutes from './bulk.js';
import dependencyRoutes from './dependencies.js';
import environmentRoutes from './environments.js';
import flagRoutes from './flags.js';
import strategyRoutes from './strategies.js';
import variantRoutes from './variants.js';
import tagRoutes from './tags.js';

const flagResourceRoutes: FastifyPluginAsyncTypebox<{ service: FlagService; bulk: FlagBulkService }> = async (app, options) => {
  for (const routes of [flagRoutes, archiveRoutes, strategyRoutes, environmentRoutes, variantRoutes, dependencyRoutes, tagRoutes]) {
    await app.register(routes, options);
  }
  await app.register(bulkRoutes, options);
};

export default flagResourceRoutes;
