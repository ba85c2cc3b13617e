/**
 * A request's logger (`request.log`), made on the request's first log line rather than on its
 * arrival. Fastify gives every request a pino child bound to its request id; most requests log
 * nothing (request logging is off below debug), yet the child cost every one of them: a 304 from a
 * bare Fastify route took 27 µs of server CPU, 35 µs with a logger and its per-request child
 * (`node dist/bench/request-overhead.js`:
 * medians of four interleaved 4 s autocannon runs, 16 connections, 23 Nov). A line logged
 * through this one is the child's own: same bindings (reqId), same options.
 */
export class LazyRequestLogger {
    parent;
    bindings;
    options;
    made;
    constructor(parent, bindings, options) {
        this.parent = parent;
        this.bindings = bindings;
        this.options = options;
    }
    get log() {
        return (this.made ??= this.parent.child(this.bindings, this.options));
    }
    get level() {
        return this.made?.level ?? this.parent.level;
    }
    set level(level) {
        this.log.level = level;
    }
    // Each passes its arguments on untouched (pino's overloads: an object and/or a message, then
    // interpolation values). Methods on the prototype: nothing is allocated per request.
    fatal(...args) {
        this.log.fatal(...args);
    }
    error(...args) {
        this.log.error(...args);
    }
    warn(...args) {
        this.log.warn(...args);
    }
    info(...args) {
        this.log.info(...args);
    }
    debug(...args) {
        this.log.debug(...args);
    }
    trace(...args) {
        this.log.trace(...args);
    }
    silent(...args) {
        this.log.silent(...args);
    }
    child(bindings, options) {
        return this.log.child(bindings, options);
    }
}
/** Fastify's `childLoggerFactory`: the request logger above in place of an eager child. */
export function lazyChildLogger(logger, bindings, options) {
    return new LazyRequestLogger(logger, bindings, options);
}
//# sourceMappingURL=request-logger.js.map