import { isAllProjects } from './features.js';
/** Idle proxies close a silent connection; a comment line every 15 s keeps it open. */
const KEEP_ALIVE_MS = 15_000;
export function scopeKey(scope) {
    return `${scope.environment}\0${isAllProjects(scope.projects) ? '*' : [...scope.projects].sort().join(',')}`;
}
export class ScopeGroups {
    ping;
    groups = new Map();
    keepAlive;
    /** `ping` writes the keep-alive comment to one stream. */
    constructor(ping) {
        this.ping = ping;
    }
    /** Scopes with at least one open stream. */
    get size() {
        return this.groups.size;
    }
    get connected() {
        let n = 0;
        for (const group of this.groups.values())
            n += group.streams.size;
        return n;
    }
    values() {
        return this.groups.values();
    }
    /** Adds `stream` to its scope's group until `res` closes, and keeps it alive meanwhile. */
    join(scope, stream, res, key = scopeKey(scope)) {
        let group = this.groups.get(key);
        if (!group) {
            group = { scope, streams: new Set() };
            this.groups.set(key, group);
        }
        group.streams.add(stream);
        this.startKeepAlive();
        const joined = group;
        res.on('close', () => {
            joined.streams.delete(stream);
            if (joined.streams.size === 0 && this.groups.get(key) === joined)
                this.groups.delete(key);
        });
    }
    startKeepAlive() {
        if (this.keepAlive)
            return;
        this.keepAlive = setInterval(() => {
            for (const group of this.groups.values())
                for (const stream of group.streams)
                    this.ping(stream);
        }, KEEP_ALIVE_MS);
        this.keepAlive.unref();
    }
    /** Stops the keep-alive and ends every stream (`end`). */
    close(end) {
        clearInterval(this.keepAlive);
        for (const group of this.groups.values())
            for (const stream of group.streams)
                end(stream);
        this.groups.clear();
    }
}
//# sourceMappingURL=stream-groups.js.map