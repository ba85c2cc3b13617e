/** A flag environment's strategies (S4). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { auditOf } from '../../shared.js';
import { ADMIN_ERRORS, NoBody, errorResponses } from '../../../schemas/common.js';
import { FlagEnvironmentService } from '../environment-service.js';
import {
  EnvironmentParams, PatchBody, StrategyBody, StrategyEventResponse, StrategyListResponse, StrategyOrderBody, StrategyParams, StrategyResponse,
} from '../schemas.js';
import type { FlagService } from '../service.js';
import { strategyCreatedView, strategyEventView, strategyListView } from '../views.js';
import { ENV } from './paths.js';

const TAGS = ['Strategies'];

const strategyRoutes: FastifyPluginAsyncTypebox<{ service: FlagService }> = async (app, { service }) => {
  const edits = new FlagEnvironmentService(service);

  app.post(`${ENV}/strategies`, {
    config: { permission: 'CREATE_FEATURE_STRATEGY' },
    schema: {
      tags: TAGS, summary: 'Add a strategy to a flag environment', params: EnvironmentParams, body: StrategyBody,
      response: { 200: StrategyResponse, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request) => {
    const { projectId, featureName, environment } = request.params;
    const strategy = await service.strategies.add(projectId, featureName, environment, request.body, auditOf(request));
    return strategyCreatedView(strategy);
  });

  app.get(`${ENV}/strategies`, {
    schema: {
      tags: TAGS, summary: 'List the strategies of a flag environment', params: EnvironmentParams,
      response: { 200: StrategyListResponse, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => {
    const { projectId, featureName, environment } = request.params;
    return (await service.strategies.list(projectId, featureName, environment)).map(strategyListView);
  });

  app.get(`${ENV}/strategies/:strategyId`, {
    schema: {
      tags: TAGS, summary: 'Get one strategy', params: StrategyParams,
      response: { 200: StrategyResponse, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => {
    const { projectId, featureName, environment, strategyId } = request.params;
    return strategyCreatedView(await service.strategies.get(projectId, featureName, environment, strategyId));
  });

  app.put(`${ENV}/strategies/:strategyId`, {
    config: { permission: 'UPDATE_FEATURE_STRATEGY' },
    schema: {
      tags: TAGS, summary: 'Replace a strategy', params: StrategyParams, body: StrategyBody,
      response: { 200: StrategyEventResponse, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request) => {
    const { projectId, featureName, environment, strategyId } = request.params;
    const strategy = await service.strategies.update(projectId, featureName, environment, strategyId, request.body, auditOf(request));
    return strategyEventView(strategy);
  });

  app.patch(`${ENV}/strategies/:strategyId`, {
    config: { permission: 'UPDATE_FEATURE_STRATEGY' },
    schema: {
      tags: TAGS, summary: 'Change a strategy with a JSON Patch (RFC 6902)',
      description: 'Applied to the strategy as `GET …/strategies/:strategyId` shows it; its sortOrder is kept (set-sort-order changes it). '
        + 'The strategy is found by id in any environment of the flag; the event names the path\'s environment.',
      params: StrategyParams, body: PatchBody,
      response: { 200: StrategyEventResponse, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request) => {
    const { projectId, featureName, environment, strategyId } = request.params;
    return strategyEventView(await edits.patchStrategy(projectId, featureName, environment, strategyId, request.body, auditOf(request)));
  });

  app.post(`${ENV}/strategies/set-sort-order`, {
    config: { permission: 'UPDATE_FEATURE_STRATEGY' },
    schema: {
      tags: TAGS, summary: 'Set the sortOrder of strategies of a flag environment',
      description: 'Records `strategy-order-changed` (the ids in order before and after) when the order changes.',
      params: EnvironmentParams, body: StrategyOrderBody,
      response: { 200: NoBody, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request, reply) => {
    const { projectId, featureName, environment } = request.params;
    await edits.setStrategyOrder(projectId, featureName, environment, request.body, auditOf(request));
    return reply.code(200).send(undefined);
  });

  app.delete(`${ENV}/strategies/:strategyId`, {
    config: { permission: 'DELETE_FEATURE_STRATEGY' },
    schema: {
      tags: TAGS, summary: 'Remove a strategy (the environment goes off when no active strategy remains)', params: StrategyParams,
      response: { 200: NoBody, ...errorResponses(400, 401, 403, 404, 503) },
    },
  }, async (request, reply) => {
    const { projectId, featureName, environment, strategyId } = request.params;
    await service.strategies.delete(projectId, featureName, environment, strategyId, auditOf(request));
    return reply.code(200).send(undefined);
  });
};

export default strategyRoutes;
