import t from 'tap';
import { ADMIN, buildTestApp } from '../helpers/app.js';

t.test('every answered request is counted under its route pattern, method and status', async (t) => {
  const app = await buildTestApp(t);
  for (let i = 0; i < 3; i++) await app.inject({ url: '/api/admin/projects', headers: ADMIN });
  await app.inject({ url: '/api/admin/projects' });
  await app.inject({ url: '/api/admin/no-such-route', headers: ADMIN });
  const text = (await app.inject({ url: '/internal-backstage/prometheus', headers: ADMIN })).body;
  t.match(text, /# TYPE http_request_duration_seconds histogram\n/);
  t.match(text, /http_request_duration_seconds_count\{method="GET",route="\/api\/admin\/projects",status_code="200"\} 3\n/);
  t.match(text, /http_request_duration_seconds_count\{method="GET",route="\/api\/admin\/projects",status_code="401"\} 1\n/);
  t.match(text, /http_request_duration_seconds_count\{method="GET",route="not_found",status_code="404"\} 1\n/);
  t.match(text, /http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/api\/admin\/projects",status_code="200"\} 3\n/);
  t.match(text, /http_request_duration_seconds_bucket\{le="5",method="GET",route="\/api\/admin\/projects",status_code="200"\} 3\n/, 'every request under 5 s');
  t.match(text, /http_request_duration_seconds_sum\{method="GET",route="\/api\/admin\/projects",status_code="200"\} [0-9.e-]+\n/);
});
