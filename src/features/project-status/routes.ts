import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../schemas/common.js';
import { personIdOf } from '../shared.js';
import {
  ProjectDoraSchema, ProjectHealthReportSchema, ProjectInsightsSchema, ProjectOverviewSchema, ProjectParams, ProjectStatusSchema,
} from './schemas.js';
import type { ProjectStatusService } from './service.js';

const TAGS = ['Projects'];

const projectStatusRoutes: FastifyPluginAsyncTypebox<{ service: ProjectStatusService }> = async (app, { service }) => {
  app.get('/api/admin/projects/:projectId/overview', {
    schema: {
      tags: TAGS, summary: 'A project\'s overview: settings, health, flag counts by type, activity in the last 30 days against the 30 before',
      params: ProjectParams,
      response: { 200: ProjectOverviewSchema, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => await service.overview(request.params.projectId, personIdOf(request)));

  app.get('/api/admin/projects/:projectId/status', {
    schema: {
      tags: TAGS, summary: 'A project\'s status: its resources, a year of activity by day, health, lifecycle stages, stale flags',
      params: ProjectParams,
      response: { 200: ProjectStatusSchema, ...errorResponses(401, 403, 503) },
    },
  }, async (request) => await service.status(request.params.projectId));

  app.get('/api/admin/projects/:projectId/health-report', {
    schema: {
      tags: TAGS, summary: 'A project\'s health report: its overview, its live flags and the counts its health comes from',
      params: ProjectParams,
      response: { 200: ProjectHealthReportSchema, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => await service.healthReport(request.params.projectId));

  app.get('/api/admin/projects/:projectId/insights', {
    schema: {
      tags: TAGS, summary: 'A project\'s insights: window stats, flag types, technical debt and health with their counts, lead time',
      params: ProjectParams,
      response: { 200: ProjectInsightsSchema, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => await service.insights(request.params.projectId));

  app.get('/api/admin/projects/:projectId/dora', {
    schema: {
      tags: TAGS, summary: 'Lead time to production of a project\'s release flags (DORA), and its average',
      params: ProjectParams,
      response: { 200: ProjectDoraSchema, ...errorResponses(401, 403, 503) },
    },
  }, async (request) => await service.dora(request.params.projectId));
};

export default projectStatusRoutes;
