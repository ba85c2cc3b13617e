import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Stores } from '../composition.js';
import { toSegmentConfig } from './segments/read-model.js';
import clientApiRoutes from './client-api/routes.js';
import { ClientFeaturesService } from './client-api/service.js';
import { SdkStateCache } from './client-api/state.js';
import { DeltaService } from './client-api/streaming.js';
import { EvaluationDispatcher, FrontendDispatcher } from './frontend-api/dispatch.js';
import frontendApiRoutes from './frontend-api/routes.js';
import applicationRoutes from './metrics/admin-routes.js';
import clientMetricsRoutes from './metrics/routes.js';
import type { MetricsService } from './metrics/service.js';
import { answerOfrep, type OfrepQuestion } from './ofrep/evaluate.js';
import { OfrepEventStreams } from './ofrep/events.js';
import ofrepRoutes from './ofrep/routes.js';
import { OfrepService } from './ofrep/service.js';

/**
 * Wires the SDK-facing API (client API, frontend API, metrics, OFREP) in one call, so app.ts changes by
 * one line. It sits beside the feature folders, not in client-api/: frontend-api and metrics
 * import client-api's scope helpers, so wiring them from inside client-api made a folder cycle
 * (test/features/folder-cycles.test.ts keeps the folders acyclic).
 */
export async function registerSdkApi(app: FastifyInstance, stores: Stores, config: Config): Promise<void> {
  const states = new SdkStateCache({
    flags: () => stores.flags.snapshotSource(),
    segments: async () => (await stores.segments.list()).map(toSegmentConfig),
  }, stores.outbox);
  const clientFeatures = new ClientFeaturesService(states);
  app.decorate('sdkStates', states);
  const delta = new DeltaService(states);
  delta.registerMetrics(app.metrics);
  app.addHook('preClose', async () => delta.close());
  app.decorate('sdkDelta', delta);
  await app.register(clientApiRoutes, { service: clientFeatures, delta });
  const metrics = app.services.metrics;
  metrics.start();
  app.addHook('onClose', async () => await metrics.stop());
  app.decorate('clientMetrics', metrics);
  await app.register(clientMetricsRoutes, { service: metrics, applications: app.services.applications });
  await app.register(applicationRoutes, { metrics, applications: app.services.applications });
  const pool = app.workerPool;
  const onPool = config.FRONTEND_EVALUATION !== 'main';
  const dispatcher = new FrontendDispatcher(
    onPool ? { idleThreads: () => pool.idleThreads, run: (task) => pool.run({ kind: 'frontend', ...task }) } : undefined,
    (err) => app.log.warn({ err }, 'frontend API batch failed on the worker pool; answered on the main thread'),
  );
  dispatcher.registerMetrics(app.metrics);
  app.decorate('frontendDispatcher', dispatcher);
  const origins = () => app.services.frontendSettings.origins();
  await app.register(frontendApiRoutes, { states, dispatcher, metrics, origins });

  // OFREP: the frontend API's evaluation in OpenFeature's protocol, dispatched the same way (its
  // bulk answers share the pool, in their own entry point, workers/ofrep.ts).
  const ofrepDispatcher = new EvaluationDispatcher<OfrepQuestion>(
    onPool ? { idleThreads: () => pool.idleThreads, run: (task) => pool.run({ kind: 'ofrep', ...task }) } : undefined,
    (err) => app.log.warn({ err }, 'OFREP batch failed on the worker pool; answered on the main thread'),
    answerOfrep,
  );
  ofrepDispatcher.registerMetrics(app.metrics, 'ofrep', 'OFREP bulk evaluation');
  const ofrepStreams = new OfrepEventStreams(delta);
  app.addHook('preClose', async () => ofrepStreams.close());
  const ofrep = new OfrepService(states, ofrepDispatcher, stores.apiTokens, ofrepStreams, new URL(config.baseUrl).pathname.replace(/\/+$/, ''));
  app.decorate('ofrep', ofrep);
  await app.register(ofrepRoutes, { service: ofrep, origins, rateLimit: config.OFREP_RATE_LIMIT });
}

declare module 'fastify' {
  interface FastifyInstance {
    sdkStates: SdkStateCache;
    clientMetrics: MetricsService;
    sdkDelta: DeltaService;
    frontendDispatcher: FrontendDispatcher;
    ofrep: OfrepService;
  }
}
