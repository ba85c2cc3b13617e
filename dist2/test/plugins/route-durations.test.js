import t from 'tap';
import { Histogram, Registry } from 'prom-client';
import { RouteDurations } from '../../src/plugins/route-durations.js';
import { ADMIN, buildTestApp } from '../helpers/app.js';
const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
t.test('the exposition is the one prom-client prints for a Histogram fed the same observations', async (t) => {
    const ours = new Registry();
    const theirs = new Registry();
    const durations = new RouteDurations('http_request_duration_seconds', 'HTTP request duration by route', BOUNDS, ours);
    const histogram = new Histogram({
        name: 'http_request_duration_seconds', help: 'HTTP request duration by route',
        labelNames: ['method', 'route', 'status_code'], buckets: BOUNDS, registers: [theirs],
    });
    t.equal(await ours.metrics(), await theirs.metrics(), 'no observations yet');
    const routes = ['/api/client/features', '/api/frontend', 'not_found', '/api/admin/projects/:projectId/features'];
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 2000; i++) {
        const method = random() < 0.5 ? 'GET' : 'POST';
        const route = routes[Math.floor(random() * routes.length)];
        const status = [200, 304, 400, 404][Math.floor(random() * 4)];
        // Durations on the bounds too: a value equal to a bound belongs to that bucket.
        const seconds = random() < 0.2 ? BOUNDS[Math.floor(random() * BOUNDS.length)] : random() ** 4 * 8;
        durations.observe(method, route, status, seconds);
        histogram.observe({ method, route, status_code: String(status) }, seconds);
    }
    t.equal(await ours.metrics(), await theirs.metrics());
    durations.reset();
    histogram.reset();
    t.equal(await ours.metrics(), await theirs.metrics(), 'after a reset');
});
t.test('every answered request is counted under its route pattern, method and status', async (t) => {
    const app = await buildTestApp(t);
    for (let i = 0; i < 3; i++)
        await app.inject({ url: '/api/admin/projects', headers: ADMIN });
    await app.inject({ url: '/api/admin/projects' });
    await app.inject({ url: '/api/admin/no-such-route', headers: ADMIN });
    const text = (await app.inject({ url: '/internal-backstage/prometheus', headers: ADMIN })).body;
    t.match(text, /http_request_duration_seconds_count\{method="GET",route="\/api\/admin\/projects",status_code="200"\} 3\n/);
    t.match(text, /http_request_duration_seconds_count\{method="GET",route="\/api\/admin\/projects",status_code="401"\} 1\n/);
    t.match(text, /http_request_duration_seconds_count\{method="GET",route="not_found",status_code="404"\} 1\n/);
    t.match(text, /http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/api\/admin\/projects",status_code="200"\} 3\n/);
});
//# sourceMappingURL=route-durations.test.js.map