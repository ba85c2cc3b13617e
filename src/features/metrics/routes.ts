import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { errorResponses } from '../../schemas/common.js';
import { sdkScope } from '../client-api/routes.js';
import type { ApplicationService } from './applications.js';
import { Accepted, BulkMetricsBody, FeatureNameParams, FeatureUsageSchema, MetricsBody, RegisterBody } from './schemas.js';
import type { MetricsService } from './service.js';

function instant(value: string | number | undefined, fallback: Date): Date {
  if (value === undefined) return fallback;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? fallback : date;
}

/** 202 with no body at all (Unleash's; `send(null)` would serialise "null"). */
export function accepted(reply: FastifyReply): FastifyReply {
  return reply.code(202).send();
}

const clientMetricsRoutes: FastifyPluginAsyncTypebox<{ service: MetricsService; applications: ApplicationService }> = async (app, { service, applications }) => {
  const SDK = { tokenFamily: 'client' } as const;
  const ERRORS = errorResponses(400, 401, 403, 415, 503);

  app.post('/api/client/register', {
    config: SDK,
    schema: { tags: ['Client API'], summary: 'An SDK instance announces itself', body: RegisterBody, response: { 202: Accepted, ...ERRORS } },
  }, async (request, reply) => {
    await applications.register(request.body, sdkScope(request), request.ip);
    return accepted(reply);
  });

  app.post('/api/client/metrics', {
    config: SDK,
    schema: { tags: ['Client API'], summary: 'Flag usage counted by an SDK', body: MetricsBody, response: { 202: Accepted, ...ERRORS } },
  }, async (request, reply) => {
    const { appName, bucket, instanceId } = request.body;
    const scope = sdkScope(request);
    // The token's environment, not the body's: a token only reports for where it reads.
    if (bucket) service.record(scope.environment, appName, instant(bucket.start, new Date()), bucket.toggles);
    void applications.reported(appName, instanceId, scope, request.ip);
    return accepted(reply);
  });

  app.post('/api/client/metrics/bulk', {
    config: SDK,
    schema: { tags: ['Client API'], summary: 'Metrics forwarded by Unleash Edge', body: BulkMetricsBody, response: { 202: Accepted, ...ERRORS } },
  }, async (request, reply) => {
    const scope = sdkScope(request);
    const now = new Date();
    for (const m of request.body.metrics) {
      // Edge forwards several environments; only the token's own are counted (as Unleash filters).
      if (m.environment !== scope.environment) continue;
      service.record(m.environment, m.appName, instant(m.timestamp, now), { [m.featureName]: m }, now);
    }
    for (const application of request.body.applications) {
      const { appName, instanceId, sdkVersion, strategies } = application;
      await applications.register({ appName, instanceId, sdkVersion, strategies }, scope, request.ip, now);
    }
    return accepted(reply);
  });

  app.get('/api/admin/client-metrics/features/:featureName', {
    config: { permission: 'READ_FEATURE' },
    schema: {
      tags: ['Metrics'], summary: 'Last hour of a flag\'s usage, per environment and hour', params: FeatureNameParams,
      response: { 200: FeatureUsageSchema, ...errorResponses(401, 403, 503) },
    },
  }, async (request) => await service.featureUsage(request.params.featureName));
};

export default clientMetricsRoutes;
