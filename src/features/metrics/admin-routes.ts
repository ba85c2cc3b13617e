import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { bodyNeedsContentType } from '../../plugins/errors.js';
import { errorResponses, NoBody } from '../../schemas/common.js';
import type { ApplicationService } from './applications.js';
import { accepted } from './routes.js';
import { hoursBackOf, rawMetrics } from './raw.js';
import {
  Accepted, AppNameParams, ApplicationEditBody, ApplicationOverviewSchema, ApplicationSchema, ApplicationsQuerySchema, ApplicationsSchema, FeatureMetricsParams,
  FeatureMetricsSchema, HoursBackQuery, InstanceParams, InstancesSchema, OutdatedSdksSchema, ProjectApplicationsQuerySchema,
  ProjectApplicationsSchema, ProjectParams, UnknownFlagsSchema,
} from './schemas.js';
import type { MetricsService } from './service.js';
import { unknownFlags } from './unknown-flags.js';

const READ_ERRORS = errorResponses(401, 403, 503);

/** The admin UI's applications pages and a flag's metrics page (every read open to every signed-in role, as in Unleash 8.2). */
const applicationRoutes: FastifyPluginAsyncTypebox<{ metrics: MetricsService; applications: ApplicationService }> = async (app, { metrics, applications }) => {
  app.get('/api/admin/client-metrics/features/:name/raw', {
    schema: {
      tags: ['Metrics'], summary: 'A flag\'s usage per application, environment and hour over the last hours (24 unless hoursBack says 1 to 48)',
      params: FeatureMetricsParams, querystring: HoursBackQuery,
      response: { 200: FeatureMetricsSchema, ...READ_ERRORS },
    },
  }, async (request) => {
    const { name } = request.params;
    const exists = (await applications.flagNames()).has(name);
    return rawMetrics(name, exists ? await metrics.history(name) : [], hoursBackOf(request.query.hoursBack));
  });

  app.get('/api/admin/metrics/applications', {
    schema: {
      tags: ['Metrics'], summary: 'Applications registered by SDKs, by their metrics or by an admin, a page at a time',
      querystring: ApplicationsQuerySchema, response: { 200: ApplicationsSchema, ...READ_ERRORS },
    },
  }, async (request) => await applications.list(request.query));

  app.get('/api/admin/metrics/applications/:appName', {
    schema: {
      tags: ['Metrics'], summary: 'One application: its strategies, instances and the flags its metrics named',
      params: AppNameParams, response: { 200: ApplicationSchema, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => await applications.get(request.params.appName));

  app.post('/api/admin/metrics/applications/:appName', {
    config: { permission: 'UPDATE_APPLICATION' },
    preValidation: bodyNeedsContentType,
    schema: {
      tags: ['Metrics'], summary: 'Create an application or change its description, url, color, icon or strategies (no event)',
      params: AppNameParams, body: ApplicationEditBody, response: { 202: Accepted, ...errorResponses(400, 401, 403, 415, 503) },
    },
  }, async (request, reply) => {
    await applications.save(request.params.appName, request.body);
    return accepted(reply);
  });

  app.delete('/api/admin/metrics/applications/:appName', {
    config: { permission: 'DELETE_APPLICATION' },
    schema: {
      tags: ['Metrics'], summary: 'Delete an application and its instances (200 also when there is none; no event)',
      params: AppNameParams, response: { 200: NoBody, ...READ_ERRORS },
    },
  }, async (request, reply) => {
    await applications.delete(request.params.appName);
    return reply.code(200).send(undefined);
  });

  app.get('/api/admin/metrics/applications/:appName/overview', {
    schema: {
      tags: ['Metrics'], summary: 'An application\'s environments, SDKs and issues over the last 48 hours of metrics',
      params: AppNameParams, response: { 200: ApplicationOverviewSchema, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => await applications.overview(request.params.appName));

  app.get('/api/admin/metrics/instances/:appName/environment/:environment', {
    schema: {
      tags: ['Metrics'], summary: 'An application\'s instances in an environment seen in the last 24 hours, latest first',
      params: InstanceParams, response: { 200: InstancesSchema, ...READ_ERRORS },
    },
  }, async (request) => await applications.instances(request.params.appName, request.params.environment));

  app.get('/api/admin/metrics/unknown-flags', {
    schema: {
      tags: ['Metrics'], summary: 'Names SDKs reported in the last 24 hours that are not flags (at most 1000, by name)',
      response: { 200: UnknownFlagsSchema, ...READ_ERRORS },
    },
  }, async () => ({ unknownFlags: unknownFlags(await metrics.history(), await applications.flagNames(), () => null) }));

  app.get('/api/admin/metrics/sdks/outdated', {
    schema: {
      tags: ['Metrics'], summary: 'SDK versions older than Unleash 8.2 recommends, with the applications using them',
      response: { 200: OutdatedSdksSchema, ...READ_ERRORS },
    },
  }, async () => await applications.outdatedSdks());

  app.get('/api/admin/projects/:projectId/sdks/outdated', {
    schema: {
      tags: ['Projects'], summary: 'Outdated SDK versions of the applications whose metrics name the project\'s flags',
      params: ProjectParams, response: { 200: OutdatedSdksSchema, ...READ_ERRORS },
    },
  }, async (request) => await applications.outdatedSdks(request.params.projectId));

  app.get('/api/admin/projects/:projectId/applications', {
    schema: {
      tags: ['Projects'], summary: 'The applications whose metrics name the project\'s flags (an unknown project has none)',
      params: ProjectParams, querystring: ProjectApplicationsQuerySchema, response: { 200: ProjectApplicationsSchema, ...READ_ERRORS },
    },
  }, async (request) => await applications.projectApplications(request.params.projectId, request.query));
};

export default applicationRoutes;
