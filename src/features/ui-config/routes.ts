import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { notFound } from '../../errors.js';
import { bodyNeedsContentType } from '../../plugins/errors.js';
import { errorResponses, NoBody } from '../../schemas/common.js';
import { ANY_ROLE, auditOf, instanceIdOf } from '../shared.js';
import type { UserService } from '../users/service.js';
import { UI_FLAGS } from './flags.js';
import type { FrontendSettingsService } from './service.js';

/** The Unleash version whose API and UI Vane answers as (the UI gates pages on it). */
export const UNLEASH_VERSION = '8.2.0';

/**
 * Unleash's default limits, which the UI shows beside its forms. Vane enforces the ones its
 * writes check (docs/rules.md); the others name things Vane does not have (signals, actions,
 * release templates) and are reported as Unleash reports them.
 */
const RESOURCE_LIMITS = {
  segmentValues: 1000, strategySegments: 5, signalEndpoints: 5, actionSetActions: 10, actionSetsPerProject: 5, actionSetFilters: 5,
  actionSetFilterValues: 25, signalTokensPerEndpoint: 5, featureEnvironmentStrategies: 30, constraintValues: 250, constraints: 30,
  environments: 50, projects: 500, apiTokens: 2000, segments: 300, featureFlags: 5000, releaseTemplates: 10,
};

const UiConfigSchema = Type.Object({
  environment: Type.String({ description: '"Open Source": the UI shows the open-source pages' }),
  flags: Type.Object({}, { additionalProperties: true, description: 'The UI feature flags (Unleash 8.2 OSS defaults)' }),
  version: Type.String(),
  emailEnabled: Type.Boolean(),
  unleashUrl: Type.String({ description: 'BASE_URL' }),
  baseUriPath: Type.String(),
  authenticationType: Type.String(),
  frontendApiOrigins: Type.Array(Type.String()),
  versionInfo: Type.Object({
    current: Type.Object({ oss: Type.String(), enterprise: Type.String() }),
    latest: Type.Object({}),
    isLatest: Type.Boolean(),
    instanceId: Type.String(),
  }),
  prometheusAPIAvailable: Type.Boolean(),
  impactMetrics: Type.String(),
  resourceLimits: Type.Object({}, { additionalProperties: Type.Integer() }),
  disablePasswordAuth: Type.Boolean(),
  maintenanceMode: Type.Boolean(),
  maxSessionsCount: Type.Integer(),
  unleashContext: Type.Object({
    userId: Type.Optional(Type.Integer()),
    sessionId: Type.Optional(Type.String()),
  }),
  storiesPageEnabled: Type.Boolean(),
});

const SetCorsBody = Type.Object({
  frontendApiOrigins: Type.Optional(Type.Array(Type.Unknown(), { description: '`*` or origins (scheme://host[:port], nothing after); a non-string is refused naming it' })),
}, { additionalProperties: false });

/** Open, so each answer keeps its own key order: {seen, splashId, userId} for a person, {splashId, seen} for the admin token (measured). */
const SplashSchema = Type.Unsafe<{ seen: true; splashId: string; userId?: number }>(
  Type.Object({}, { additionalProperties: true, description: '{seen: true, splashId, userId}; the admin token, which has no user: {splashId, seen: true}' }),
);

const RecordUiErrorBody = Type.Object({
  errorMessage: Type.String(),
  errorStack: Type.Optional(Type.String()),
});

const TelemetrySettingsSchema = Type.Object({
  versionInfoCollectionEnabled: Type.Boolean(),
  featureInfoCollectionEnabled: Type.Boolean(),
});

interface UiConfigOptions {
  settings: FrontendSettingsService;
  users: UserService;
  /** Whether maintenance mode is on (the UI shows its banner and greys out changes). */
  maintenance: () => boolean;
}

/** What the official UI reads first: which server this is and how it is configured; and the UI's own housekeeping calls. */
const uiConfigRoutes: FastifyPluginAsyncTypebox<UiConfigOptions> = async (app, { settings, users, maintenance }) => {
  const instanceId = instanceIdOf(app.config.MONGODB_DB);

  app.get('/api/admin/ui-config', {
    schema: {
      tags: ['Admin UI'],
      summary: 'The server as the admin UI needs to know it: version, authentication, UI flags, limits',
      response: { 200: UiConfigSchema, ...errorResponses(401, 503) },
    },
  }, async (request) => {
    const principal = request.principal;
    const secret = principal?.kind === 'session' ? app.sessionSecret(request) : undefined;
    return {
      environment: 'Open Source',
      flags: UI_FLAGS,
      version: UNLEASH_VERSION,
      emailEnabled: false,
      unleashUrl: app.config.baseUrl,
      baseUriPath: '',
      authenticationType: 'open-source',
      frontendApiOrigins: [...settings.origins()],
      versionInfo: { current: { oss: UNLEASH_VERSION, enterprise: '' }, latest: {}, isLatest: true, instanceId },
      prometheusAPIAvailable: false,
      impactMetrics: 'disabled',
      resourceLimits: RESOURCE_LIMITS,
      disablePasswordAuth: false,
      maintenanceMode: maintenance(),
      maxSessionsCount: 0,
      unleashContext: principal?.kind === 'session' && secret
        ? { userId: principal.user._id, sessionId: createHash('sha256').update(secret).digest('hex') }
        : {},
      storiesPageEnabled: false,
    };
  });

  app.post('/api/admin/ui-config/cors', {
    config: { permission: 'UPDATE_CORS' },
    preValidation: bodyNeedsContentType,
    schema: {
      tags: ['Admin UI'],
      summary: 'Set the origins the frontend API answers browsers from (a setting event each time, also when unchanged)',
      body: SetCorsBody,
      response: { 204: NoBody, ...errorResponses(400, 401, 403, 404, 415, 503) },
    },
  }, async (request, reply) => {
    const origins = request.body.frontendApiOrigins;
    // Unleash 8.2 answers a body without the list with its generic 404 (measured).
    if (origins === undefined) throw notFound();
    await settings.setOrigins(origins, auditOf(request));
    return reply.code(204).send(undefined);
  });

  app.post('/api/admin/splash/:splashId', {
    config: { permission: ANY_ROLE },
    schema: {
      tags: ['Admin UI'],
      summary: 'Mark a splash screen seen by the signed-in person (the body is ignored; the admin token stores nothing)',
      params: Type.Object({ splashId: Type.String() }),
      response: { 200: SplashSchema, ...errorResponses(401, 403, 503) },
    },
  }, async (request) => {
    const { splashId } = request.params;
    const principal = request.principal;
    if (principal?.kind !== 'session') return { splashId, seen: true } as const;
    await users.seeSplash(principal.user._id, splashId);
    return { seen: true, splashId, userId: principal.user._id } as const;
  });

  app.post('/api/admin/record-ui-error', {
    config: { permission: ANY_ROLE },
    preValidation: bodyNeedsContentType,
    schema: {
      tags: ['Admin UI'],
      summary: 'Log an error the admin UI met (written to the server log, nothing stored)',
      body: RecordUiErrorBody,
      response: { 204: NoBody, ...errorResponses(400, 401, 403, 415, 503) },
    },
  }, async (request, reply) => {
    request.log.error({ uiError: { message: request.body.errorMessage, stack: request.body.errorStack } }, 'the admin UI reported an error');
    return reply.code(204).send(undefined);
  });

  app.get('/api/admin/telemetry/settings', {
    schema: {
      tags: ['Admin UI'],
      summary: 'Whether version and feature usage information is sent home: never, from Vane',
      response: { 200: TelemetrySettingsSchema, ...errorResponses(401, 403, 503) },
    },
  }, async () => ({ versionInfoCollectionEnabled: false, featureInfoCollectionEnabled: false }));
};

export default uiConfigRoutes;
