import { Type } from 'typebox';
const HealthSchema = Type.Object({ health: Type.String() });
/** Liveness and readiness, for orchestrators (no authentication). */
const healthRoutes = async (app) => {
    app.get('/health', {
        config: { public: true },
        schema: { tags: ['Operations'], summary: 'The process is alive', response: { 200: HealthSchema } },
    }, async () => ({ health: 'GOOD' }));
    app.get('/ready', {
        config: { public: true },
        schema: {
            tags: ['Operations'],
            summary: 'The configuration has loaded and the database answered its last health check (a write and a read)',
            response: { 200: HealthSchema, 503: HealthSchema },
        },
    }, async (_request, reply) => {
        // The database is checked continuously (src/db/health.ts), never per request: a load
        // balancer polling /ready adds no database work, and a wedged database cannot hang it.
        const ok = app.isLoaded() && app.database.isAvailable();
        return ok ? { health: 'GOOD' } : reply.code(503).send({ health: 'BAD' });
    });
};
export default healthRoutes;
//# sourceMappingURL=routes.js.map