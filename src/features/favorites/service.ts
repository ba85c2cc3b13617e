import { buildEvents, lostRace, type AuditUser, type EventTag } from '../../db/outbox/index.js';
import { notFound } from '../../errors.js';
import type { FavoriteSources } from './sources.js';
import { favoriteId, type FavoriteDocument, type FavoriteKind, type FavoriteStore } from './store.js';

/** Attempts at a mark while other writers change the same one (another instance, a second tab). */
const ATTEMPTS = 5;

/**
 * A person's favourite flags and projects (the stars of the admin UI), as Unleash 8.2 records
 * them (measured): every call records its event, a mark set twice or cleared when absent included;
 * a flag's mark ignores the project of the path. Marking an unknown flag or project is a 404
 * (Unleash: 500 from its foreign key, D10); clearing one is not checked, as in Unleash.
 */
export class FavoriteService {
  constructor(private readonly store: FavoriteStore, private readonly sources: FavoriteSources) {}

  async markFlag(userId: number, name: string, audit: AuditUser): Promise<void> {
    const flag = this.sources.flag(name);
    if (!flag) throw notFound(`Could not find feature flag "${name}".`);
    await this.set('flag', userId, name, flag.createdAt, audit, flag.tags);
  }

  async unmarkFlag(userId: number, name: string, audit: AuditUser): Promise<void> {
    await this.set('flag', userId, name, null, audit, this.sources.flag(name)?.tags ?? []);
  }

  async markProject(userId: number, id: string, audit: AuditUser): Promise<void> {
    const createdAt = await this.sources.projectCreatedAt(id);
    if (!createdAt) throw notFound(`No project with id "${id}" exists.`);
    await this.set('project', userId, id, createdAt, audit);
  }

  async unmarkProject(userId: number, id: string, audit: AuditUser): Promise<void> {
    await this.set('project', userId, id, null, audit);
  }

  /**
   * Sets (`createdAt`: of what is marked) or clears the mark, with its event, in one commit. A
   * flag's event carries its `tags`, as every event about a flag does in Unleash (measured:
   * test/fixtures/ui-actions/script.json), an unknown flag's none.
   */
  private async set(kind: FavoriteKind, userId: number, name: string, createdAt: Date | null, audit: AuditUser, tags: EventTag[] = []): Promise<void> {
    const type = `${kind === 'flag' ? 'feature' : 'project'}-${createdAt ? 'favorited' : 'unfavorited'}`;
    const event = kind === 'flag'
      ? { type, data: { feature: name }, featureName: name, tags }
      : { type, data: { project: name }, project: name };
    const id = favoriteId(kind, userId, name);
    for (let attempt = 1; ; attempt++) {
      const current = this.store.get(id);
      const next: FavoriteDocument | null = createdAt
        ? { _id: id, userId, kind, name, markedCreatedAt: createdAt, createdAt: current?.createdAt ?? new Date() }
        : null;
      try {
        await this.store.write(current, next, buildEvents(audit, [event]));
        return;
      } catch (err) {
        if (!lostRace(err) || attempt >= ATTEMPTS) throw err;
      }
    }
  }
}
