import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LogFn } from 'pino';

/**
 * A request's logger (`request.log`), made on the request's first log line rather than on its
 * arrival. Fastify gives every request a pino child bound to its request id; most requests log
 * nothing (request logging is off below debug), yet the child cost every one of them: a 304 from a
 * bare Fastify route takes 27 µs of server CPU, 35 µs with a logger and its per-request child
 * (`node dist/bench/request-overhead.js`: medians of four interleaved 4 s autocannon runs, 16
 * connections). A line logged through this one is the child's own: same bindings (reqId), same
 * options.
 */
export class LazyRequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get log(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.log.level = level;
  }

  // Each passes its arguments on untouched (pino's overloads: an object and/or a message, then
  // interpolation values). Methods on the prototype: nothing is allocated per request.
  fatal(...args: Parameters<LogFn>): void {
    this.log.fatal(...args);
  }
  error(...args: Parameters<LogFn>): void {
    this.log.error(...args);
  }
  warn(...args: Parameters<LogFn>): void {
    this.log.warn(...args);
  }
  info(...args: Parameters<LogFn>): void {
    this.log.info(...args);
  }
  debug(...args: Parameters<LogFn>): void {
    this.log.debug(...args);
  }
  trace(...args: Parameters<LogFn>): void {
    this.log.trace(...args);
  }
  silent(...args: Parameters<LogFn>): void {
    this.log.silent(...args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.log.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: the request logger above in place of an eager child. */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyRequestLogger(logger, bindings, options);
}
