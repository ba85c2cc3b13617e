import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { schemaValidationError, validationError } from '../../errors.js';
import { auditOf } from '../shared.js';
import { formatValidationErrors } from '../../plugins/errors.js';
import { ADMIN_ERRORS, errorResponses } from '../../schemas/common.js';
import { answerWithinBudget } from '../playground/routes.js';
import { AdvancedPlaygroundResponse, ChangeRequestPlaygroundBody } from '../playground/schemas.js';
import {
  AddChangesBody, ChangeBody, ChangeParams, ChangeRequestListResponse, ChangeRequestParams, ChangeRequestResponse,
  EnvironmentParams, PAYLOAD_SCHEMAS, PreviewParams, ProjectParams, StateBody,
} from './schemas.js';
import type { ChangeRequestPreview } from './preview.js';
import type { ChangeInput, ChangeRequestService } from './service.js';
import type { ValidChange } from './schemas.js';
import type { ChangeAction } from './store.js';

const TAGS = ['Change requests'];
const BASE = '/api/admin/projects/:projectId/change-requests';

/**
 * Schema validation of one change, with the validator (and so the coercion and the messages) of
 * the live routes: the change's shape, then its payload against the live endpoint's body schema.
 * Paths are rooted where the value sits in this body (`/body/payload/...`, `/body/1/payload/...`).
 */
/** `{payload}` around each action's payload schema (compiled once each: the compiler caches by schema object). */
const wrapPayload = (schema: TSchema) => ({ type: 'object', properties: { payload: schema }, required: ['payload'] });
const PAYLOAD_WRAPPERS: Readonly<Record<string, ReturnType<typeof wrapPayload>>> = Object.fromEntries(
  Object.entries(PAYLOAD_SCHEMAS).map(([action, schema]) => [action, wrapPayload(schema)]),
);

type ValidationFunction = ReturnType<FastifyRequest['compileValidationSchema']>;

/** The payload has passed its action's schema (PAYLOAD_SCHEMAS), so the pair is a ValidChange. */
function payloadFits(change: { action: ChangeAction; payload: unknown }, check: ValidationFunction): change is ValidChange {
  return check({ payload: change.payload });
}

/** A change the compiled ChangeBody validator accepted has ChangeBody's static type. */
function shapeFits(value: unknown, check: ValidationFunction): value is Static<typeof ChangeBody> {
  return check(value);
}

function parseChange(request: FastifyRequest, change: unknown, at: string): ChangeInput {
  const checkShape = request.compileValidationSchema(ChangeBody, 'body');
  if (!shapeFits(change, checkShape)) throw schemaValidationError(formatValidationErrors(checkShape.errors ?? [], at));
  const payload = change.payload === undefined && change.action === 'archiveFeature' ? {} : change.payload;
  const checkPayload = request.compileValidationSchema(PAYLOAD_WRAPPERS[change.action]!, 'body');
  const input = { action: change.action, payload };
  if (!payloadFits(input, checkPayload)) throw schemaValidationError(formatValidationErrors(checkPayload.errors ?? [], at));
  const valid: ChangeInput = input;
  if (change.feature !== undefined && change.feature !== null) valid.feature = change.feature;
  if (valid.action === 'updateSegment' || valid.action === 'deleteSegment') valid.segment = valid.payload.id;
  return valid;
}

function parseChanges(request: FastifyRequest): ChangeInput[] {
  const body = request.body;
  if (!Array.isArray(body)) return [parseChange(request, body, 'body')];
  if (body.length === 0) throw validationError('No changes provided');
  return body.map((item, i) => parseChange(request, item, `body/${i}`));
}

const changeRequestRoutes: FastifyPluginAsyncTypebox<{ service: ChangeRequestService; preview: ChangeRequestPreview; timeoutMs: number }> = async (
  app,
  { service, preview, timeoutMs },
) => {
  app.post('/api/admin/projects/:projectId/environments/:environment/change-requests', {
    config: { permission: 'UPDATE_FEATURE' },
    schema: {
      tags: TAGS,
      summary: "Add one change {feature, action, payload} (or a list) to the caller's Draft change request for the project and environment",
      description:
        'Flag actions: updateEnabled, addStrategy, updateStrategy, deleteStrategy, patchVariant, reorderStrategy, archiveFeature, ' +
        'addDependency, deleteDependency (payload as the live endpoint takes it; the strategy id of update/delete goes in payload.id). ' +
        'Segment actions updateSegment / deleteSegment have no feature; payload.id is the segment. Each change is validated like ' +
        'its live endpoint against the current state with the Draft\'s earlier changes applied.',
      params: EnvironmentParams,
      body: AddChangesBody,
      response: { 200: ChangeRequestResponse, ...errorResponses(...ADMIN_ERRORS, 404, 409) },
    },
  }, async (request) => {
    const { projectId, environment } = request.params;
    return await service.addChanges(projectId, environment, parseChanges(request), auditOf(request));
  });

  app.get(BASE, {
    schema: {
      tags: TAGS, summary: 'List the change requests of a project', params: ProjectParams,
      response: { 200: ChangeRequestListResponse, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => await service.list(request.params.projectId));

  app.get(`${BASE}/:id`, {
    schema: {
      tags: TAGS, summary: 'Get a change request', params: ChangeRequestParams,
      response: { 200: ChangeRequestResponse, ...errorResponses(400, 401, 403, 404, 503) },
    },
  }, async (request) => await service.get(request.params.projectId, request.params.id));

  app.put(`${BASE}/:id/state`, {
    config: { permission: 'APPROVE_CHANGE_REQUEST' },
    schema: {
      tags: TAGS,
      summary: 'Change the state: Draft → In review → Approved → Applied, In review → Rejected, any non-final → Cancelled',
      description: 'Applying performs every change with the live rules and events, all or nothing (409 naming the change that no longer applies).',
      params: ChangeRequestParams,
      body: StateBody,
      response: { 200: ChangeRequestResponse, ...errorResponses(...ADMIN_ERRORS, 404, 409) },
    },
  }, async (request) => {
    const { projectId, id } = request.params;
    return await service.setState(projectId, id, request.body.state, auditOf(request));
  });

  app.delete(`${BASE}/:id/changes/:changeId`, {
    config: { permission: 'UPDATE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Discard one change of a Draft or In review change request', params: ChangeParams,
      response: { 200: ChangeRequestResponse, ...errorResponses(400, 401, 403, 404, 409, 503) },
    },
  }, async (request) => {
    const { projectId, id, changeId } = request.params;
    return await service.discardChange(projectId, id, changeId, auditOf(request));
  });

  // E3 (docs/glossary.md): the advanced playground over the current state with the request's changes applied in memory.
  app.post('/api/admin/playground/change-request/:id', {
    schema: {
      tags: ['Playground'],
      summary: "Evaluate a context against a change request's project and environment with its changes applied (preview, nothing written)",
      params: PreviewParams,
      body: ChangeRequestPlaygroundBody,
      response: { 200: AdvancedPlaygroundResponse, ...errorResponses(400, 401, 403, 404, 415, 500, 503) },
    },
  }, async (request, reply) => {
    return await answerWithinBudget(reply, timeoutMs, (signal) => preview.advanced(request.params.id, request.body.context, signal));
  });
};

export default changeRequestRoutes;
