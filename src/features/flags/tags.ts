/**
 * A flag's tags as pure functions, as Unleash 8.2's feature-tag service records them: tagging
 * records `feature-tagged` even when the flag has the tag already, untagging `feature-untagged`
 * even when it does not (both measured on the reference), and an untag event carries the tags
 * before the change with their type's colour.
 */
import type { EventInput, EventTag } from '../../db/outbox/index.js';
import type { Applied } from './apply.js';
import type { FlagData, FlagTag } from './read-model.js';

export interface TagRef {
  type: string;
  value: string;
}

const same = (a: TagRef, b: TagRef) => a.type === b.type && a.value === b.value;

/** The tags an event carries: the flag's, as Unleash reads them back (sorted, without colour). */
export function plainTags(tags: readonly FlagTag[]): EventTag[] {
  return sortedTags(tags).map((t) => ({ value: t.value, type: t.type }));
}

/** Adds each of `added` the flag lacks; one `feature-tagged` per tag asked for. */
export function applyTag(flag: FlagData, added: readonly TagRef[]): Applied {
  const tags = [...flag.tags];
  const events: EventInput[] = [];
  for (const tag of added) {
    if (!tags.some((t) => same(t, tag))) tags.push({ type: tag.type, value: tag.value });
    events.push({
      type: 'feature-tagged', featureName: flag.name, project: flag.project, environment: null,
      data: { type: tag.type, value: tag.value }, preData: null, tags: plainTags(tags),
    });
  }
  return { next: { ...flag, tags }, events, transactional: false, result: undefined };
}

/** Removes each of `removed`; one `feature-untagged` per tag asked for, with the tags before it. */
export function applyUntag(flag: FlagData, removed: readonly TagRef[], colors: ReadonlyMap<string, string | null>): Applied {
  let tags = [...flag.tags];
  const events: EventInput[] = [];
  for (const tag of removed) {
    events.push({
      type: 'feature-untagged', featureName: flag.name, project: flag.project, environment: null,
      data: null, preData: { type: tag.type, value: tag.value },
      tags: sortedTags(tags).map((t) => ({ type: t.type, value: t.value, color: colors.get(t.type) ?? null })),
    });
    tags = tags.filter((t) => !same(t, tag));
  }
  return { next: { ...flag, tags }, events, transactional: false, result: undefined };
}

export interface TagView {
  type: string;
  value: string;
  color: string | null;
}

export function tagsView(flag: FlagData, colors: ReadonlyMap<string, string | null>): TagView[] {
  return flag.tags.map((t) => ({ type: t.type, value: t.value, color: colors.get(t.type) ?? null }));
}

/**
 * By type, then value, in code-unit order: Unleash lists a flag's tags in its primary key's order
 * (measured: `"  mx-sp  "` before `mx-b1` though added after it; PostgreSQL's C collation).
 */
export function sortedTags<T extends TagRef>(tags: readonly T[]): T[] {
  return [...tags].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}
