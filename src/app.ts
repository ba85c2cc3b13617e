import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { stdTimeFunctions } from 'pino';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { randomUUID } from 'node:crypto';
import type { Config } from './config.js';
import {
  createAddonDeliverer, createPlayground, createServices, createStores, eventCreatorNames, initialiseState, type Services, type Stores,
} from './composition.js';
import errors from './plugins/errors.js';
import database, { isDatabaseUnavailable } from './plugins/database.js';
import { backgroundFailureReporter } from './db/background-failures.js';
import auth from './plugins/auth.js';
import docs from './plugins/docs.js';
import metrics from './plugins/metrics.js';
import { lazyChildLogger } from './plugins/request-logger.js';
import workerPool, { type PoolOptions } from './plugins/worker-pool.js';
import healthRoutes from './features/health/routes.js';
import playgroundRoutes from './features/playground/routes.js';
import type { PlaygroundService } from './features/playground/service.js';
import apiTokenRoutes from './features/api-tokens/routes.js';
import segmentRoutes from './features/segments/routes.js';
import contextFieldRoutes from './features/context-fields/routes.js';
import eventRoutes from './features/events/routes.js';
import legacyEventRoutes from './features/events/legacy.js';
import inviteLinkRoutes from './features/invite-links/routes.js';
import userRoutes from './features/users/routes.js';
import userAdminRoutes from './features/users/admin-routes.js';
import resetRoutes from './features/users/reset-routes.js';
import flagRoutes from './features/flags/routes/index.js';
import tagRoutes from './features/tags/routes.js';
import environmentRoutes from './features/environments/routes.js';
import projectRoutes from './features/projects/routes.js';
import strategyTypeRoutes from './features/strategy-types/routes.js';
import changeRequestRoutes from './features/change-requests/routes.js';
import sessionRoutes from './features/sessions/routes.js';
import patRoutes from './features/personal-access-tokens/routes.js';
import favoriteRoutes from './features/favorites/routes.js';
import webRoutes from './features/web/routes.js';
import { registerAdminUi } from './features/admin-ui/index.js';
import uiConfigRoutes from './features/ui-config/routes.js';
import featureTypeRoutes from './features/feature-types/routes.js';
import maintenanceRoutes from './features/maintenance/routes.js';
import edgeRoutes from './features/edge/routes.js';
import projectStatusRoutes from './features/project-status/routes.js';
import personalDashboardRoutes from './features/personal-dashboard/routes.js';
import instanceStatsRoutes from './features/instance-stats/routes.js';
import featureSearchRoutes from './features/feature-search/routes.js';
import importExportRoutes from './features/import-export/routes.js';
import addonRoutes from './features/addons/routes.js';
import { registerSdkApi } from './features/sdk-api.js';
import playgroundBatchRoutes from './features/playground-batch/routes.js';
import { ErrorSchema } from './schemas/common.js';
import { serviceUnavailable } from './errors.js';
import { isDateTime } from './schemas/formats.js';

export interface BuildOptions {
  /** pino options or false; tests pass false to keep output readable. */
  logger?: FastifyServerOptions['logger'];
  /** Worker pool overrides (tests inject faults through a wrapping entry point). */
  pool?: Partial<PoolOptions>;
  /**
   * Return before the configuration state and the event log have loaded (the server: it listens
   * at once; `/ready` and the API answer 503 until `app.loaded` resolves). Tests wait.
   */
  loadInBackground?: boolean;
  /** Tests: the load starts only when this resolves (to observe the start-up window). */
  holdLoad?: Promise<void>;
}

/**
 * Validation as Unleash's validator behaves (docs/rules.md §1.3): scalars coerced in place (never into
 * arrays), defaults not applied, first error wins, the offending value kept for the message.
 */
const AJV_OPTIONS = {
  coerceTypes: true,
  useDefaults: false,
  removeAdditional: false,
  allErrors: false,
  verbose: true,
} as const;

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    // pino is Fastify's logger; ISO timestamps so an operator reads the log without converting epochs.
    logger: options.logger ?? { level: config.LOG_LEVEL, timestamp: stdTimeFunctions.isoTime },
    genReqId: () => randomUUID(),
    childLoggerFactory: lazyChildLogger,
    requestIdHeader: 'x-request-id',
    // Per-request "incoming/completed" lines only at debug: at playground volumes they would cost
    // more than the work. Every line a request does log carries its request id (reqId).
    logController: new LogController({
      disableRequestLogging: config.LOG_LEVEL !== 'debug' && config.LOG_LEVEL !== 'trace',
    }),
    ajv: {
      customOptions: AJV_OPTIONS,
      // Runs after Fastify has added ajv-formats, so this lenient date-time replaces its strict one.
      onCreate: (ajv) => void ajv.addFormat('date-time', { type: 'string', validate: isDateTime }),
    },
    return503OnClosing: true,
    // The first start on a machine may build FerretDB (about a minute) inside the database plugin.
    pluginTimeout: 10 * 60_000,
    forceCloseConnections: 'idle',
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addSchema(ErrorSchema);
  app.decorate('config', config);
  // `forceCloseConnections: 'idle'` closes the connections idle when closing starts; one still
  // answering then stays open as keep-alive afterwards, and the close waited for Fastify's
  // keep-alive timeout (72 s) behind a load balancer's or an SDK's connection. Idle ones are
  // closed again until the server has closed.
  app.addHook('preClose', (done) => {
    const timer = setInterval(() => app.server.closeIdleConnections(), 50);
    app.server.once('close', () => clearInterval(timer));
    done();
  });

  // Infrastructure first, then the features, in a fixed order.
  await app.register(errors);
  await app.register(database, { config });
  const stores = createStores(app.database.outbox, app.database.db);
  const services = createServices(stores, config, app.log);
  await app.register(auth, {
    tokens: stores.apiTokens, sessions: services.sessions, pats: services.personalAccessTokens,
    writesRefused: (method, url) => services.maintenance.refuses(method, url),
  });
  await app.register(metrics);
  await app.register(docs);
  await app.register(workerPool, { filename: options.pool?.filename });

  app.decorate('stores', stores);
  stores.eventLog.registerMetrics(app.metrics);
  app.database.health.registerMetrics(app.metrics);
  app.decorate('services', services);
  // Until the state has loaded, the API answers 503 + Retry-After (health and docs answer).
  let loaded = false;
  app.decorate('isLoaded', () => loaded);
  // Callback-style hooks on every request (here and in the database, errors and metrics plugins):
  // no promise per request and hook, which an async hook costs even when it does nothing.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!loaded && (request.url.startsWith('/api/') || request.url.startsWith('/ofrep/') || request.url.startsWith('/edge/'))) {
      done(serviceUnavailable('Vane is starting: its configuration is loading. Try again shortly.', 2));
    } else done();
  });

  await app.register(healthRoutes);
  await app.register(apiTokenRoutes, { service: services.apiTokens });
  await app.register(segmentRoutes, { service: services.segments, strategies: services.strategySegments });
  await app.register(contextFieldRoutes, { service: services.contextFields });
  await app.register(eventRoutes, { service: services.events });
  await app.register(legacyEventRoutes, { service: services.events, creators: eventCreatorNames(stores) });
  await app.register(featureSearchRoutes, { service: services.featureSearch });
  await app.register(inviteLinkRoutes, { service: services.inviteLinks });
  await app.register(userRoutes, { service: services.users, sessions: services.sessions });
  await app.register(userAdminRoutes, { admin: services.userAdmin, passwords: services.passwords, rateLimit: config.USER_ADMIN_RATE_LIMIT });
  await app.register(resetRoutes, { passwords: services.passwords, sessions: services.sessions, rateLimit: config.PASSWORD_RESET_RATE_LIMIT });
  await app.register(flagRoutes, {
    service: services.flags, bulk: services.flagBulk, links: services.flagLinks, lifecycle: services.flagLifecycle, clone: services.flagClone,
    favorites: stores.favorites,
  });
  await app.register(tagRoutes, { service: services.tags });
  await app.register(environmentRoutes, { service: services.environments });
  await app.register(projectRoutes, { service: services.projects });
  await app.register(strategyTypeRoutes, { service: services.strategyTypes });
  await app.register(sessionRoutes, { service: services.sessions, ttlHours: config.SESSION_TTL_HOURS });
  await app.register(patRoutes, { service: services.personalAccessTokens });
  await app.register(favoriteRoutes, { service: services.favorites });
  await app.register(uiConfigRoutes, { settings: services.frontendSettings, users: services.users, maintenance: () => services.maintenance.enabled });
  await app.register(featureTypeRoutes, { service: services.featureTypes });
  await app.register(maintenanceRoutes, { service: services.maintenance });
  await app.register(edgeRoutes, { service: services.edge });
  await app.register(projectStatusRoutes, { service: services.projectStatus });
  await app.register(personalDashboardRoutes, { service: services.personalDashboard });
  await app.register(instanceStatsRoutes, { service: services.instanceStats });
  await app.register(importExportRoutes, { exporter: services.exporter, importer: services.importer });
  await app.register(addonRoutes, { service: services.addons });
  const officialUi = await registerAdminUi(app, config.UNLEASH_UI);
  await app.register(webRoutes, { inviteLinks: services.inviteLinks, officialUi });

  const deliverer = createAddonDeliverer(stores, app.database.db, config, app.log);
  app.addHook('onClose', async () => {
    await services.applicationAnnouncer.stop();
    await deliverer.stop();
    app.database.outbox.stopFollowing();
    stores.eventLog.stop();
    await stores.eventLog.settled();
  });
  const playground = createPlayground(app.workerPool, stores, services, config);
  app.decorate('playground', playground.service);
  await app.register(playgroundRoutes, { service: playground.service, timeoutMs: config.PLAYGROUND_TIMEOUT_MS });
  await app.register(changeRequestRoutes, { service: services.changeRequests, preview: playground.preview, timeoutMs: config.PLAYGROUND_TIMEOUT_MS });
  await app.register(playgroundBatchRoutes, { service: playground.batch, timeoutMs: config.PLAYGROUND_TIMEOUT_MS });

  await registerSdkApi(app, stores, config);

  /**
   * The start-up load, tried again while the database does not answer in time (a database that
   * restarts with Vane after a crash may take seconds to answer its first reads); any other
   * failure ends the start. initialiseState is idempotent, so a retry after a partial load is safe.
   */
  const initialiseWhenAnswering = async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        await initialiseState(stores, services, config, (p) => app.log.info(p, 'configuration state: collection loaded'));
        return;
      } catch (err) {
        if (!isDatabaseUnavailable(err)) throw err;
        const waitMs = Math.min(5000, 250 * 2 ** Math.min(attempt, 5));
        app.log.warn({ err, attempt, waitMs }, 'loading the configuration: the database did not answer in time; trying again');
        await new Promise((r) => setTimeout(r, waitMs));
      }
    }
  };
  const load = async () => {
    await options.holdLoad;
    const started = performance.now();
    app.log.info('loading the configuration state and the event log');
    await initialiseWhenAnswering();
    // Other instances' commits reach every onCommitted listener (the configuration state, read
    // caches, the event log mirror, the SDK state, the playground's snapshot) through this poll.
    app.database.outbox.follow(config.REVISION_POLL_MS, backgroundFailureReporter(app.log));
    deliverer.start();
    if (config.APPLICATION_ANNOUNCE_MS > 0) services.applicationAnnouncer.start({
      intervalMs: config.APPLICATION_ANNOUNCE_MS, firstMs: Math.min(10_000, config.APPLICATION_ANNOUNCE_MS),
      maintenance: () => services.maintenance.enabled,
      onError: (err) => app.log.error({ err }, 'announcing new applications failed; tried again at the next run'),
    });
    loaded = true;
    app.log.info({ ms: Math.round(performance.now() - started) }, 'configuration state loaded: serving the API');
    stores.eventLog.pruneLeftovers();
  };
  const loading = load();
  app.decorate('loaded', loading);
  if (!options.loadInBackground) {
    try {
      await loading;
    } catch (err) {
      // A start that cannot finish (a bad INIT_ADMIN_PASSWORD, say) releases the pool and the connection.
      await app.close();
      throw err;
    }
  } else loading.catch(() => undefined); // the server awaits `app.loaded` and reports the failure
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    stores: Stores;
    services: Services;
    playground: PlaygroundService;
    /** Resolves when the configuration state and the event log have loaded. */
    loaded: Promise<void>;
    isLoaded(): boolean;
  }
}
