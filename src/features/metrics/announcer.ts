/**
 * `application-created`, as Unleash 8.2 records it: not when an application is first seen, but by
 * a job (its `announceUnannounced`: 2–30 s after start, then every 5 minutes, skipped in
 * maintenance mode) that records one event per application not yet announced, by the system user,
 * with the application as it is then — `{appName, createdAt, updatedAt, description, strategies,
 * createdBy, url, color, icon}`, `createdBy` null for one an SDK made (measured on the reference).
 *
 * Once per application across instances: the mark is committed through the outbox with its event,
 * under the application's name with its creation time, so another instance's commit of the same
 * mark fails as a duplicate and records nothing; an application deleted and seen again is a new
 * one (a new creation time) and is announced again, as Unleash's new row is.
 */
import type { Collection } from 'mongodb';
import { buildEvents, lostRace, type Outbox, type StoredDocument } from '../../db/outbox/index.js';
import type { CollectionMirror } from '../../db/state.js';
import { SYSTEM_USER } from '../api-tokens/service.js';
import type { ApplicationDocument, MetricsStore } from './store.js';

declare module '../../db/state.js' {
  interface HeldDocuments {
    application_announcements: AnnouncementDocument;
  }
}

/** An announced application: `_id` is its name. */
export interface AnnouncementDocument extends StoredDocument {
  _id: string;
  /** The creation time of the application announced. */
  appCreatedAt: Date;
}

export interface AnnouncerOptions {
  /** Between two runs (Unleash: 5 minutes). */
  intervalMs: number;
  /** Before the first run after the start. */
  firstMs: number;
  /** Whether maintenance mode is on (the job is skipped, as Unleash's scheduler skips it). */
  maintenance: () => boolean;
  onError: (err: unknown) => void;
}

function announced(app: ApplicationDocument) {
  return {
    appName: app.appName, createdAt: app.createdAt.toISOString(), updatedAt: app.updatedAt.toISOString(), description: app.description,
    strategies: app.strategies, createdBy: app.createdBy === SYSTEM_USER.name ? null : app.createdBy, url: app.url, color: app.color, icon: app.icon,
  };
}

export class ApplicationAnnouncer {
  private readonly collection: Collection<AnnouncementDocument>;
  private readonly marks: CollectionMirror<AnnouncementDocument>;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(private readonly store: MetricsStore, private readonly outbox: Outbox) {
    this.collection = outbox.collection<AnnouncementDocument>('application_announcements');
    this.marks = outbox.state.mirror('application_announcements');
  }

  /** Records `application-created` for every application not announced yet; how many it recorded. */
  async announce(): Promise<number> {
    this.running ??= this.announceOnce().finally(() => { this.running = undefined; });
    return await this.running;
  }

  private async announceOnce(): Promise<number> {
    let count = 0;
    const apps = (await this.store.listApplications()).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.appName < b.appName ? -1 : 1));
    for (const app of apps) {
      const mark = this.marks.get(app.appName);
      if (mark?.appCreatedAt.getTime() === app.createdAt.getTime()) continue;
      const next: AnnouncementDocument = { _id: app.appName, appCreatedAt: app.createdAt };
      const events = buildEvents(SYSTEM_USER, [{ type: 'application-created', data: announced(app) }]);
      try {
        if (mark) await this.outbox.replace(this.collection, mark, next, events);
        else await this.outbox.insert(this.collection, next, events);
        count++;
      } catch (err) {
        // Another instance announced it first.
        if (!lostRace(err)) throw err;
      }
    }
    return count;
  }

  start(options: AnnouncerOptions): void {
    const run = () => {
      if (options.maintenance()) return;
      this.announce().catch(options.onError);
    };
    const first = setTimeout(() => {
      run();
      this.timer = setInterval(run, options.intervalMs);
      this.timer.unref();
    }, options.firstMs);
    first.unref();
    this.timer = first;
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer); // the first run's timeout or the interval after it: Node clears either
    await this.running?.catch(() => undefined);
  }
}
