import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TObject, type TOptional, type TString } from 'typebox';
import { ANY_ROLE, auditOf } from '../shared.js';
import { ADMIN_ERRORS, NoBody, errorResponses } from '../../schemas/common.js';
import { ConstraintInput } from '../constraints/index.js';
import {
  ContextFieldListSchema, ContextFieldSchema, ContextFieldStrategiesSchema, CreateContextFieldBody, FieldParams, LegalValueBody,
  LegalValueParams, ListQuery, NameBody, ProjectFieldParams, ProjectLegalValueParams, ProjectParams, UpdateContextFieldBody,
} from './schemas.js';
import { publicField, type ContextFieldService } from './service.js';

const TAGS = ['Context'];

/** Path parameters of either API: `projectId` only on the project-scoped paths. */
type Scoped<P extends Record<string, TString>> = TObject<P & { projectId: TOptional<TString> }>;
const scoped = <P extends Record<string, TString>>(schema: TObject): Scoped<P> => schema as unknown as Scoped<P>;

/**
 * The same operations under `/api/admin/context` and, scoped to a project, under
 * `/api/admin/projects/{projectId}/context` (Unleash registers one controller twice; the project
 * paths are its [BETA] ones, present in 8.2 OSS).
 */
const contextFieldRoutes: FastifyPluginAsyncTypebox<{ service: ContextFieldService }> = async (app, { service }) => {
  // Here because the legal values it checks are the context fields'; permission NONE on Unleash
  // (any signed-in caller or admin token), 204 when the constraint may be saved.
  app.post('/api/admin/constraints/validate', {
    config: { permission: ANY_ROLE }, // Unleash's NONE: every signed-in role (measured: a Viewer gets 2xx)
    schema: {
      tags: TAGS,
      summary: 'Check one constraint as a strategy would take it, and its values against the field\'s legal values',
      body: ConstraintInput,
      response: { 204: NoBody, ...errorResponses(400, 401, 403, 415, 503) },
    },
  }, async (request, reply) => {
    await service.validateConstraint(request.body);
    return reply.code(204).send(undefined);
  });

  for (const mode of ['root', 'project'] as const) {
    const base = mode === 'root' ? '/api/admin/context' : '/api/admin/projects/:projectId/context';
    const inProject = mode === 'project';
    const summary = (text: string) => (inProject ? `${text} (project-scoped)` : text);
    const params = {
      list: scoped<Record<never, TString>>(inProject ? ProjectParams : Type.Object({})),
      field: scoped<(typeof FieldParams)['properties']>(inProject ? ProjectFieldParams : FieldParams),
      legalValue: scoped<(typeof LegalValueParams)['properties']>(inProject ? ProjectLegalValueParams : LegalValueParams),
    };

    app.get(base, {
      schema: {
        tags: TAGS,
        summary: summary(inProject
          ? 'List the project\'s context fields (`include=root`: and the root ones), by name'
          : 'List the context fields without a project (`include=project`: all), by name, with their use'),
        params: params.list,
        querystring: ListQuery,
        response: { 200: ContextFieldListSchema, ...errorResponses(400, 401, 403, 503) },
      },
    }, async (request) => await service.list({ projectId: request.params.projectId }, request.query.include));

    app.post(base, {
      config: { permission: 'CREATE_CONTEXT_FIELD' },
      schema: {
        tags: TAGS,
        summary: summary('Create a context field'),
        params: params.list,
        body: CreateContextFieldBody,
        response: { 201: ContextFieldSchema, ...errorResponses(...ADMIN_ERRORS, 404, 409) },
      },
    }, async (request, reply) => {
      const field = await service.create(request.body, { projectId: request.params.projectId }, auditOf(request));
      reply.code(201).header('location', `context/${field.name}`);
      return publicField(field);
    });

    app.post(`${base}/validate`, {
      config: { permission: 'UPDATE_CONTEXT_FIELD' },
      schema: {
        tags: TAGS,
        summary: summary('Check a name for a new context field: 400 when invalid, 409 when taken'),
        params: params.list,
        body: NameBody,
        response: { 200: NoBody, ...errorResponses(...ADMIN_ERRORS, 409) },
      },
    }, async (request, reply) => {
      await service.validateName(request.body.name);
      return reply.code(200).send(undefined);
    });

    app.get(`${base}/:contextField`, {
      schema: {
        tags: TAGS,
        summary: summary('Get a context field (any project\'s)'),
        params: params.field,
        response: { 200: ContextFieldSchema, ...errorResponses(400, 401, 403, 404, 503) },
      },
    }, async (request) => publicField(await service.get(request.params.contextField)));

    app.put(`${base}/:contextField`, {
      config: { permission: 'UPDATE_CONTEXT_FIELD' },
      schema: {
        tags: TAGS,
        summary: summary('Update a context field (description, stickiness, legal values; sortOrder is reset to 0)'),
        params: params.field,
        body: UpdateContextFieldBody,
        response: { 200: NoBody, ...errorResponses(...ADMIN_ERRORS, 404) },
      },
    }, async (request, reply) => {
      const { contextField, projectId } = request.params;
      await service.update(contextField, request.body, { projectId }, auditOf(request));
      return reply.code(200).send(undefined);
    });

    app.delete(`${base}/:contextField`, {
      config: { permission: 'DELETE_CONTEXT_FIELD' },
      schema: {
        tags: TAGS,
        summary: summary('Delete a context field; 409 while a strategy of a live flag constrains on it'),
        params: params.field,
        response: { 200: NoBody, ...errorResponses(400, 401, 403, 404, 409, 503) },
      },
    }, async (request, reply) => {
      const { contextField, projectId } = request.params;
      await service.delete(contextField, { projectId }, auditOf(request));
      return reply.code(200).send(undefined);
    });

    app.get(`${base}/:contextField/strategies`, {
      schema: {
        tags: ['Strategies'],
        summary: summary('List the strategies of live flags with a constraint on the field (empty for an unknown field)'),
        params: params.field,
        response: { 200: ContextFieldStrategiesSchema, ...errorResponses(400, 401, 403, 503) },
      },
    }, async (request) => await service.strategies(request.params.contextField));

    app.post(`${base}/:contextField/legal-values`, {
      config: { permission: 'UPDATE_CONTEXT_FIELD' },
      schema: {
        tags: TAGS,
        summary: summary('Add a legal value, or replace the one with the same value'),
        params: params.field,
        body: LegalValueBody,
        response: { 200: NoBody, ...errorResponses(...ADMIN_ERRORS, 404) },
      },
    }, async (request, reply) => {
      const { contextField, projectId } = request.params;
      await service.putLegalValue(contextField, request.body, { projectId }, auditOf(request));
      return reply.code(200).send(undefined);
    });

    app.delete(`${base}/:contextField/legal-values/:legalValue`, {
      config: { permission: 'UPDATE_CONTEXT_FIELD' },
      schema: {
        tags: TAGS,
        summary: summary('Remove a legal value (an absent one changes nothing)'),
        params: params.legalValue,
        response: { 200: NoBody, ...errorResponses(400, 401, 403, 404, 503) },
      },
    }, async (request, reply) => {
      const { contextField, legalValue, projectId } = request.params;
      await service.deleteLegalValue(contextField, legalValue, { projectId }, auditOf(request));
      return reply.code(200).send(undefined);
    });
  }
};

export default contextFieldRoutes;
