/**
 * Open server-sent-event streams grouped by token scope, shared by the SDK streaming
 * (streaming.ts) and OFREP's event streams (ofrep/events.ts): streams of one scope see the same
 * events, so a change is tested and serialized once per group, not once per stream.
 */
import type { ServerResponse } from 'node:http';
import { isAllProjects, type TokenScope } from './features.js';

/** Idle proxies close a silent connection; a comment line every 15 s keeps it open. */
const KEEP_ALIVE_MS = 15_000;

export function scopeKey(scope: TokenScope): string {
  return `${scope.environment}\0${isAllProjects(scope.projects) ? '*' : [...scope.projects].sort().join(',')}`;
}

export interface ScopeGroup<S> {
  scope: TokenScope;
  streams: Set<S>;
}

export class ScopeGroups<S> {
  private readonly groups = new Map<string, ScopeGroup<S>>();
  private keepAlive: NodeJS.Timeout | undefined;

  /** `ping` writes the keep-alive comment to one stream. */
  constructor(private readonly ping: (stream: S) => void) {}

  /** Scopes with at least one open stream. */
  get size(): number {
    return this.groups.size;
  }

  get connected(): number {
    let n = 0;
    for (const group of this.groups.values()) n += group.streams.size;
    return n;
  }

  values(): IterableIterator<ScopeGroup<S>> {
    return this.groups.values();
  }

  /** Adds `stream` to its scope's group until `res` closes, and keeps it alive meanwhile. */
  join(scope: TokenScope, stream: S, res: ServerResponse, key = scopeKey(scope)): void {
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
      if (joined.streams.size === 0 && this.groups.get(key) === joined) this.groups.delete(key);
    });
  }

  private startKeepAlive(): void {
    if (this.keepAlive) return;
    this.keepAlive = setInterval(() => {
      for (const group of this.groups.values()) for (const stream of group.streams) this.ping(stream);
    }, KEEP_ALIVE_MS);
    this.keepAlive.unref();
  }

  /** Stops the keep-alive and ends every stream (`end`). */
  close(end: (stream: S) => void): void {
    clearInterval(this.keepAlive);
    for (const group of this.groups.values()) for (const stream of group.streams) end(stream);
    this.groups.clear();
  }
}
