/**
 * The flag routes, one plugin per resource (flags, archive, strategies, environments on/off,
 * variants, dependencies), each given the flag service. Registered in this order, which is the
 * order of the OpenAPI document.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FlagService } from '../service.js';
import archiveRoutes from './archive.js';
import dependencyRoutes from './dependencies.js';
import environmentRoutes from './environments.js';
import flagRoutes from './flags.js';
import strategyRoutes from './strategies.js';
import variantRoutes from './variants.js';

const flagResourceRoutes: FastifyPluginAsyncTypebox<{ service: FlagService }> = async (app, options) => {
  for (const routes of [flagRoutes, archiveRoutes, strategyRoutes, environmentRoutes, variantRoutes, dependencyRoutes]) {
    await app.register(routes, options);
  }
};

export default flagResourceRoutes;
