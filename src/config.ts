import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';

/**
 * Every setting Vane reads, validated once at start. A bad value stops the process with a message
 * naming the variable (see `loadConfig`); nothing else in the code reads `process.env`.
 */
const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 4242 }),
  HOST: Type.String({ minLength: 1, default: '0.0.0.0' }),
  MONGODB_URL: Type.Optional(Type.String({ pattern: '^mongodb(\\+srv)?://' })),
  MONGODB_DB: Type.String({ pattern: '^[^/\\\\. "$*<>:|?]{1,63}$', default: 'vane' }),
  INIT_ADMIN_API_TOKENS: Type.String({ default: '' }),
  INIT_ADMIN_API_TOKEN_NAME: Type.String({ minLength: 1, default: 'admin' }),
  BASE_URL: Type.String({ pattern: '^https?://[^\\s]+$', default: 'http://localhost:4242' }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  /** Milliseconds a request waits for the database before answering 503. */
  DB_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 2000 }),
  /**
   * Database operations in flight at once, by kind (src/db/guard.ts). 0 chooses for the server:
   * on FerretDB (SQLite admits one writer) 1 write and 4 reads, on MongoDB 16 and 32.
   */
  DB_MAX_CONCURRENT_WRITES: Type.Integer({ minimum: 0, default: 0 }),
  DB_MAX_CONCURRENT_READS: Type.Integer({ minimum: 0, default: 0 }),
  /** How often (ms) a small write and read check that the database answers (`/ready`, src/db/health.ts). */
  DB_HEALTH_INTERVAL_MS: Type.Integer({ minimum: 50, default: 1000 }),
  /** The embedded database is restarted when it has not answered the health check for this long (ms; 0: never). */
  DB_RESTART_AFTER_MS: Type.Integer({ minimum: 0, default: 60000 }),
  /**
   * Write concern of every write: `majority` (acknowledged once a majority of a replica set has
   * it), a number of members, or `1`; with MONGODB_JOURNAL `true`, only once it is in the journal.
   * A standalone server or FerretDB treats `majority` as itself.
   */
  MONGODB_WRITE_CONCERN: Type.String({ pattern: '^(majority|[0-9]+)$', default: 'majority' }),
  MONGODB_JOURNAL: Type.Union([Type.Literal('true'), Type.Literal('false')], { default: 'true' }),
  /** How often (ms) an instance looks for writes made by other instances. */
  REVISION_POLL_MS: Type.Integer({ minimum: 50, default: 250 }),
  PLAYGROUND_EVALUATION_LIMIT: Type.Integer({ minimum: 1, default: 15000 }),
  /** Advanced requests with more evaluations than this are streamed (needs a raised limit). */
  PLAYGROUND_STREAM_THRESHOLD: Type.Integer({ minimum: 1, default: 20000 }),
  PLAYGROUND_WORKERS: Type.Integer({ minimum: 0, default: 0 }),
  PLAYGROUND_MAX_QUEUE: Type.Integer({ minimum: 1, default: 64 }),
  PLAYGROUND_MAX_WAIT_MS: Type.Integer({ minimum: 10, default: 1500 }),
  PLAYGROUND_WORKER_NICE: Type.Integer({ minimum: 0, maximum: 19, default: 0 }),
  PLAYGROUND_TIMEOUT_MS: Type.Integer({ minimum: 10, default: 10000 }),
  SIGNUP_RATE_LIMIT: Type.Integer({ minimum: 1, default: 10 }),
  /** Hours a browser session lasts after sign-in (stored in the database, so it survives restarts). */
  SESSION_TTL_HOURS: Type.Integer({ minimum: 1, default: 48 }),
  /** Sign-in attempts allowed per client address and minute. */
  LOGIN_RATE_LIMIT: Type.Integer({ minimum: 1, default: 10 }),
  /** POSTs under /api/admin/user-admin allowed per client address and minute (Unleash's CREATE_USER_RATE_LIMIT_PER_MINUTE, 20). */
  USER_ADMIN_RATE_LIMIT: Type.Integer({ minimum: 1, default: 20 }),
  /** Reset links a client address may ask for per minute at /auth/reset/password-email (Unleash's PASSWORD_RESET_LIMIT_PER_MINUTE, 1). */
  PASSWORD_RESET_RATE_LIMIT: Type.Integer({ minimum: 1, default: 1 }),
  /** The first admin (username, or an e-mail address), created at start if no user has that name. */
  INIT_ADMIN_USER: Type.String({ default: '' }),
  INIT_ADMIN_PASSWORD: Type.String({ default: '' }),
  /** Origins the frontend API answers CORS for: `*` or a comma-separated list. */
  FRONTEND_API_ORIGINS: Type.String({ minLength: 1, default: '*' }),
  /**
   * Where frontend API answers are evaluated: `pool` (the worker pool when a thread is idle, else
   * the main thread; src/features/frontend-api/dispatch.ts) or `main` (always the main thread).
   */
  FRONTEND_EVALUATION: Type.Union([Type.Literal('pool'), Type.Literal('main')], { default: 'pool' }),
  /** OFREP evaluations allowed per client address and token and minute (429 with Retry-After beyond); 0: no limit. */
  OFREP_RATE_LIMIT: Type.Integer({ minimum: 0, default: 0 }),
  /** Batch and impact playground: contexts × flags × environments per request (100 000 contexts × 100 flags). */
  PLAYGROUND_BATCH_LIMIT: Type.Integer({ minimum: 1, default: 10_000_000 }),
  /**
   * The official Unleash admin UI served at `/`: the `unleash-server` npm version whose build is
   * fetched (src/features/admin-ui/package.ts), or `off` (Vane's own pages only, under /vane/).
   */
  UNLEASH_UI: Type.String({ pattern: '^(off|\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?)$', default: '8.2.0' }),
  /**
   * Whether addons (webhooks) may send to private, loopback and link-local addresses (Unleash's
   * UNLEASH_ALLOW_PRIVATE_URL_IN_INTEGRATION): refused by default, when a URL is saved and when sent.
   */
  ADDON_ALLOW_PRIVATE_URLS: Type.Union([Type.Literal('true'), Type.Literal('false')], { default: 'false' }),
  /** Host names addons may send to whatever they resolve to, comma-separated (Unleash's UNLEASH_ALLOW_LIST_INTEGRATION). */
  ADDON_ALLOWED_HOSTS: Type.String({ default: '' }),
  /** Milliseconds a webhook has to answer a delivery (Unleash's HTTP client waits 10 s). */
  ADDON_DELIVERY_TIMEOUT_MS: Type.Integer({ minimum: 10, default: 10000 }),
  /** Attempts per event and webhook, the first included; then the event is recorded as failed and the next one goes. */
  ADDON_DELIVERY_ATTEMPTS: Type.Integer({ minimum: 1, default: 8 }),
  /** The wait after a failed attempt, doubled after each, at most ADDON_DELIVERY_MAX_BACKOFF_MS (8 attempts span about 2 minutes). */
  ADDON_DELIVERY_BACKOFF_MS: Type.Integer({ minimum: 1, default: 1000 }),
  ADDON_DELIVERY_MAX_BACKOFF_MS: Type.Integer({ minimum: 1, default: 60000 }),
  /** How often new applications get their `application-created` event (Unleash: every 5 minutes; the first run within 10 s of the start); 0: never. */
  APPLICATION_ANNOUNCE_MS: Type.Integer({ minimum: 0, default: 300000 }),
  /** Profiling aid: `1` logs every driver command to stderr (src/plugins/database.ts); any other value does not. */
  VANE_MONITOR_COMMANDS: Type.String({ default: '' }),
});

export type Config = Static<typeof EnvSchema> & {
  adminTokens: string[];
  baseUrl: string;
  /** VANE_MONITOR_COMMANDS is `1`. */
  monitorCommands: boolean;
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const NUMERIC_KEYS = new Set([
  'PORT', 'DB_TIMEOUT_MS', 'DB_MAX_CONCURRENT_WRITES', 'DB_MAX_CONCURRENT_READS', 'DB_HEALTH_INTERVAL_MS', 'DB_RESTART_AFTER_MS', 'REVISION_POLL_MS', 'PLAYGROUND_EVALUATION_LIMIT', 'PLAYGROUND_STREAM_THRESHOLD', 'PLAYGROUND_WORKERS',
  'PLAYGROUND_MAX_QUEUE', 'PLAYGROUND_MAX_WAIT_MS', 'PLAYGROUND_WORKER_NICE', 'PLAYGROUND_TIMEOUT_MS', 'SIGNUP_RATE_LIMIT', 'SESSION_TTL_HOURS', 'LOGIN_RATE_LIMIT',
  'USER_ADMIN_RATE_LIMIT', 'PASSWORD_RESET_RATE_LIMIT',
  'PLAYGROUND_BATCH_LIMIT', 'OFREP_RATE_LIMIT', 'ADDON_DELIVERY_TIMEOUT_MS', 'ADDON_DELIVERY_ATTEMPTS', 'ADDON_DELIVERY_BACKOFF_MS',
  'ADDON_DELIVERY_MAX_BACKOFF_MS', 'APPLICATION_ANNOUNCE_MS',
]);

const validator = Compile(EnvSchema);

/** Reads and validates configuration from an environment map (process.env by default). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const raw: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(EnvSchema.properties)) {
    const value = env[key];
    if (value === undefined || value === '') {
      if ('default' in schema) raw[key] = (schema as { default: unknown }).default;
      continue;
    }
    raw[key] = NUMERIC_KEYS.has(key) && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;
  }
  if (!validator.Check(raw)) {
    const first = [...validator.Errors(raw)][0];
    const key = first?.instancePath.replace(/^\//, '') || 'environment';
    throw new ConfigError(`Invalid configuration: ${key}=${JSON.stringify(raw[key])} ${first?.message ?? 'is invalid'}`);
  }
  const adminTokens = String(raw.INIT_ADMIN_API_TOKENS)
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  for (const token of adminTokens) {
    if (!/^\*:\*\.[^\s]{8,}$/.test(token)) {
      throw new ConfigError(
        'Invalid configuration: INIT_ADMIN_API_TOKENS entries must look like "*:*.<secret>" with a secret of at least 8 characters',
      );
    }
  }
  const typed = raw;
  if ((typed.INIT_ADMIN_USER === '') !== (typed.INIT_ADMIN_PASSWORD === '')) {
    throw new ConfigError('Invalid configuration: INIT_ADMIN_USER and INIT_ADMIN_PASSWORD must be set together');
  }
  return {
    ...typed, adminTokens, baseUrl: typed.BASE_URL.replace(/\/+$/, ''), monitorCommands: typed.VANE_MONITOR_COMMANDS === '1', ...overrides,
  };
}
