import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';

const HealthSchema = Type.Object({ health: Type.String() });

/** Liveness and readiness, for orchestrators (no authentication). */
const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    config: { public: true },
    schema: { tags: ['Operations'], summary: 'The process is alive', response: { 200: HealthSchema } },
  }, async () => ({ health: 'GOOD' }));

  app.get('/ready', {
    config: { public: true },
    schema: {
      tags: ['Operations'],
      summary: 'The configuration has loaded and the database is reachable',
      response: { 200: HealthSchema, 503: HealthSchema },
    },
  }, async (_request, reply) => {
    const ok = app.isLoaded() && app.database.isAvailable() && (await app.database.ping(1000));
    return ok ? { health: 'GOOD' } : reply.code(503).send({ health: 'BAD' });
  });
};

export default healthRoutes;
