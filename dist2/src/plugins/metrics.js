import fp from 'fastify-plugin';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { RouteDurations } from './route-durations.js';
/**
 * Prometheus metrics at /internal-backstage/prometheus: process metrics and a request-duration
 * histogram per route (labelled by the route pattern, never the raw URL, to bound cardinality).
 */
async function metricsPlugin(app) {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const duration = new RouteDurations('http_request_duration_seconds', 'HTTP request duration by route', [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], registry);
    app.decorate('metrics', registry);
    app.addHook('onResponse', (request, reply, done) => {
        duration.observe(request.method, request.routeOptions.url ?? 'not_found', reply.statusCode, reply.elapsedTime / 1000);
        done();
    });
    app.get('/internal-backstage/prometheus', { schema: { hide: true } }, async (_request, reply) => {
        reply.type(registry.contentType);
        return await registry.metrics();
    });
}
export default fp(metricsPlugin, { name: 'metrics' });
//# sourceMappingURL=metrics.js.map