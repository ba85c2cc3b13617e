/**
 * The feature search, lifecycle counts and flag creators, answered from memory: the search index
 * is built once per configuration revision (query.ts); only the client metrics (last seen,
 * yes/no) are read per request, for the flags of the page.
 */
import { createHash } from 'node:crypto';
import { ADMIN_TOKEN_USER_ID, ADMIN_TOKEN_USER_NAME } from '../shared.js';
import { likePattern } from '../events/service.js';
import { isMarked } from '../favorites/read-model.js';
import {
  buildIndex, lifecycleCount, pageOf, search, type Creator, type FeatureSearchParams, type LifecycleCount, type Restricted,
  type SearchIndex,
} from './query.js';
import type { FeatureSearchSources, SearchUser } from './sources.js';

/**
 * Unleash's generateImageUrl: the SHA-256 of the e-mail, else the name (`name || username ||
 * email`), lower-cased and trimmed. Measured on the reference: the admin token user -42 gets the
 * hash of "unleash admin token user", a signed-in user that of their e-mail.
 */
export function creatorImageUrl(ident: string): string {
  return `https://gravatar.com/avatar/${createHash('sha256').update(ident.toLowerCase().trim()).digest('hex')}?s=42&d=retro&r=g`;
}

/** The name Unleash shows for a user: name, else username, else e-mail. */
function displayName(user: SearchUser): string {
  return user.name || user.username || user.email || '';
}

/** A flag whose creator is unknown: Unleash's join finds no user (`Number(null)`, "unknown"). */
const UNKNOWN_CREATOR: Creator = { id: null, name: 'unknown', imageUrl: creatorImageUrl('unknown') };

const REBUILD_MS = 3_600_000;

const ADMIN_TOKEN_USER: SearchUser = { name: ADMIN_TOKEN_USER_NAME, username: null, email: null };

export interface FeatureSearchBody {
  features: unknown[];
  total: number;
}

export interface FlagCreator {
  id: number;
  name: string;
}

export class FeatureSearchService {
  constructor(private readonly sources: FeatureSearchSources, private readonly now: () => number = Date.now) {}

  private cached: { revision: number; builtAt: number; index: Promise<SearchIndex> } | undefined;

  /**
   * The index of the current revision (concurrent requests share one build), built again at
   * least hourly: which flags are potentially stale depends on the time.
   */
  async index(): Promise<SearchIndex> {
    const revision = this.sources.state.revision;
    const now = this.now();
    if (this.cached?.revision !== revision || now - this.cached.builtAt > REBUILD_MS) {
      const index = this.build();
      this.cached = { revision, builtAt: now, index };
      index.catch(() => {
        if (this.cached?.index === index) this.cached = undefined;
      });
    }
    return await this.cached.index;
  }

  private async user(id: number): Promise<SearchUser | null> {
    return id === ADMIN_TOKEN_USER_ID ? ADMIN_TOKEN_USER : await this.sources.users.get(id);
  }

  private async build(): Promise<SearchIndex> {
    const s = this.sources;
    const [flags, projects, environments, tagTypes, segments, open] = await Promise.all([
      s.flags.all(), s.projects.list(), s.environments.list(), s.tagTypes.listTypes(), s.segments.list(), s.changeRequests.open(),
    ]);
    // Unleash sorts a flag's environments by sortOrder, then name.
    const envs = [...environments].sort((a, b) => a.sortOrder - b.sortOrder || a.name.localeCompare(b.name));
    const projectEnvs = new Map(projects.map((p) => {
      const connected = new Set(p.environments);
      return [p.id, envs.filter((e) => connected.has(e.name))] as const;
    }));
    const changeRequests = new Map<string, number[]>();
    for (const cr of [...open].sort((a, b) => a.id - b.id)) {
      for (const feature of new Set(cr.features)) {
        const key = `${feature}\u0000${cr.environment}`;
        const ids = changeRequests.get(key);
        if (ids) ids.push(cr.id);
        else changeRequests.set(key, [cr.id]);
      }
    }
    const creators = new Map<number, Creator>();
    for (const flag of flags) {
      const id = flag.createdBy?.id;
      if (id === null || id === undefined || creators.has(id)) continue;
      const user = await this.user(id);
      if (!user) continue;
      const name = displayName(user) || 'unknown';
      creators.set(id, { id, name, imageUrl: creatorImageUrl(user.email || name) });
    }
    return buildIndex({
      flags, projectEnvs, changeRequests, creators, unknownCreator: UNKNOWN_CREATOR, now: this.now(),
      lifetimes: this.sources.featureTypes.lifetimes(),
      tagColors: new Map(tagTypes.map((t) => [t.name, t.color])),
      segmentNames: new Map(segments.map((sg) => [sg.id, sg.name])),
    });
  }

  /** `GET /api/admin/search/features` for `userId` (null: an API token): the body as JSON text. */
  async searchBody(params: FeatureSearchParams, userId: number | null): Promise<string> {
    const index = await this.index();
    const lastSeen = await this.sources.usage.lastSeenAll();
    const favorites = this.sources.favorites.marksOf(userId).flags;
    const page = search(index, params, { lastSeen, favorites });
    const features = await Promise.all(page.items.map(async (item) => this.view(item, lastSeen.get(item.entry.flag.name), favorites)));
    return JSON.stringify({ features, total: page.total } satisfies FeatureSearchBody);
  }

  /** One flag of the answer, keys in Unleash 8.2's order (measured on the reference). */
  private async view(item: Restricted, seen: ReadonlyMap<string, Date> | undefined, favorites: ReadonlyMap<string, number>): Promise<unknown> {
    const { entry } = item;
    const flag = entry.flag;
    const usage = item.envs.length > 0 ? await this.sources.usage.environmentUsage(flag.name) : undefined;
    const lifecycle = flag.lifecycle ?? { stage: 'initial', enteredStageAt: flag.createdAt };
    return {
      type: flag.type,
      description: flag.description,
      project: flag.project,
      favorite: isMarked(favorites, flag.name, flag.createdAt),
      name: flag.name,
      createdAt: flag.createdAt.toISOString(),
      stale: flag.stale,
      archivedAt: flag.archived && flag.archivedAt ? flag.archivedAt.toISOString() : null,
      impressionData: flag.impressionData,
      dependencyType: entry.dependencyType,
      environments: item.envs.map((env) => {
        const counts = usage?.get(env.name);
        return {
          name: env.name, enabled: env.enabled, type: env.type, sortOrder: env.sortOrder, variantCount: env.variantCount,
          lastSeenAt: seen?.get(env.name)?.toISOString() ?? null, hasStrategies: env.hasStrategies,
          hasEnabledStrategies: env.hasEnabledStrategies, yes: counts?.yes ?? 0, no: counts?.no ?? 0, changeRequestIds: env.changeRequestIds,
        };
      }),
      segments: item.segments,
      createdBy: { id: entry.creator.id ?? 0, name: entry.creator.name, imageUrl: entry.creator.imageUrl },
      lifecycle: entry.stage === 'archived'
        ? { stage: 'archived', enteredStageAt: lifecycle.enteredStageAt.toISOString() }
        // A completed flag's status too (measured: differential tester seed 11).
        : { stage: lifecycle.stage, ...(lifecycle.status ? { status: lifecycle.status } : {}), enteredStageAt: lifecycle.enteredStageAt.toISOString() },
      // Unleash adds `tags` only to flags that have (matching) tags.
      ...(item.tags.length > 0 ? { tags: item.tags.map((t) => ({ value: t.value, type: t.type, color: t.color })) } : {}),
    };
  }

  /** `GET /api/admin/lifecycle/count`: every flag by its current stage, archived ones included. */
  async lifecycleCount(): Promise<LifecycleCount> {
    return lifecycleCount(await this.index());
  }

  /** The users who created the non-archived flags (of one project, when given), with their display names. */
  private async creatorsOf(project?: string): Promise<Array<FlagCreator & { user: SearchUser }>> {
    const index = await this.index();
    const seen = new Map<number, FlagCreator & { user: SearchUser }>();
    for (const { flag } of index.flags) {
      const id = flag.createdBy?.id;
      if (flag.archived || (project !== undefined && flag.project !== project) || id === null || id === undefined || seen.has(id)) continue;
      const user = await this.user(id);
      // Unleash leaves out users without a name, username and e-mail.
      if (user && displayName(user)) seen.set(id, { id, name: displayName(user), user });
    }
    return [...seen.values()];
  }

  /** `GET /api/admin/projects/:projectId/flag-creators`: by user id (Unleash's DISTINCT). */
  async projectFlagCreators(project: string): Promise<FlagCreator[]> {
    return (await this.creatorsOf(project)).sort((a, b) => a.id - b.id).map(({ id, name }) => ({ id, name }));
  }

  /**
   * `GET /api/admin/flag-creators`: `q` matches the name anywhere, the username or e-mail at the
   * start (ILIKE); by name, then id; paged like the search but up to 10 000.
   */
  async flagCreators(params: { q?: string; offset?: string; limit?: string }): Promise<{ flagCreators: FlagCreator[]; total: number }> {
    const q = params.q?.trim() || undefined;
    let creators = await this.creatorsOf();
    if (q !== undefined) {
      const anywhere = new RegExp(likePattern(q));
      const prefix = new RegExp(`^${likePattern(q)}`);
      creators = creators.filter(({ user }) => (user.name !== null && anywhere.test(user.name.toLowerCase()))
        || (user.username !== null && prefix.test(user.username.toLowerCase()))
        || (user.email !== null && prefix.test(user.email.toLowerCase())));
    }
    creators.sort((a, b) => {
      const x = a.user.name;
      const y = b.user.name;
      // ORDER BY name puts users without a name last.
      if (x !== y) {
        if (x === null) return 1;
        if (y === null) return -1;
        // The reference's database orders by code point (its search put flag "Zed" before "a").
        if (x < y) return -1;
        if (x > y) return 1;
      }
      return a.id - b.id;
    });
    const { offset, limit } = pageOf(params, 10_000);
    return { flagCreators: creators.slice(offset, offset + limit).map(({ id, name }) => ({ id, name })), total: creators.length };
  }
}
