/**
 * A project's health as Unleash 8.2 rates it (domain/project-health): the share of its live flags
 * that are neither stale nor past their type's expected lifetime, rounded.
 */
import type { FlagData } from '../flags/read-model.js';

const DAY_MS = 86_400_000;

export function potentiallyStale(flag: FlagData, lifetimes: ReadonlyMap<string, number | null>, now: number): boolean {
  const lifetime = lifetimes.get(flag.type);
  return !flag.stale && lifetime !== null && lifetime !== undefined && now - flag.createdAt.getTime() >= lifetime * DAY_MS;
}

/** 100 when the project has no flags; `flags` are the live (not archived) ones. */
export function healthRating(flags: readonly FlagData[], lifetimes: ReadonlyMap<string, number | null>, now: number): number {
  if (flags.length === 0) return 100;
  const stale = flags.filter((f) => f.stale).length;
  const potentially = flags.filter((f) => potentiallyStale(f, lifetimes, now)).length;
  return Math.round(100 - (stale / flags.length) * 100 - (potentially / flags.length) * 100);
}
