import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../schemas/common.js';
import { UI_FLAGS } from './flags.js';

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

/** A stable id for this installation (one database): the UI sends it with its version check. */
function instanceIdOf(database: string): string {
  const hex = createHash('sha256').update(`vane:${database}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** What the official UI reads first: which server this is and how it is configured. */
const uiConfigRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const origins = app.config.FRONTEND_API_ORIGINS.split(',').map((origin) => origin.trim()).filter(Boolean);
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
      frontendApiOrigins: origins,
      versionInfo: { current: { oss: UNLEASH_VERSION, enterprise: '' }, latest: {}, isLatest: true, instanceId },
      prometheusAPIAvailable: false,
      impactMetrics: 'disabled',
      resourceLimits: RESOURCE_LIMITS,
      disablePasswordAuth: false,
      maintenanceMode: false,
      maxSessionsCount: 0,
      unleashContext: principal?.kind === 'session' && secret
        ? { userId: principal.user._id, sessionId: createHash('sha256').update(secret).digest('hex') }
        : {},
      storiesPageEnabled: false,
    };
  });
};

export default uiConfigRoutes;
