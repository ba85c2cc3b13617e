/**
 * A flag's links (`…/features/:featureName/link`), as Unleash 8.2 answers them (measured,
 * test/fixtures/flag-links/reference.json): kept in the flag's document, in the order added, at most
 * ten; the URL normalised (link-url.ts). Unleash finds the flag by name alone: the path's project is
 * not checked, only recorded in the event; a link is found by its id alone, and a PUT moves it to
 * the path's flag.
 */
import { buildEvents, retrying, withoutBookkeeping, type AuditUser, type EventInput, type Outbox } from '../../db/outbox/index.js';
import { notFound, operationDenied, validationError } from '../../errors.js';
import { flagEvent } from './apply.js';
import { normaliseLinkUrl } from './link-url.js';
import type { FlagData, FlagDocument, FlagLink } from './read-model.js';
import { ulid } from './rules.js';
import type { FlagStore } from './store.js';

/** Unleash 8.2's limit per flag: the eleventh is refused. */
export const LINK_LIMIT = 10;

export interface LinkInput {
  url: string;
  title?: string | null;
}

function normalised(url: string): string {
  const result = normaliseLinkUrl(url);
  if (result === null) throw validationError(`Invalid URL: ${url}`);
  return result;
}

/** The event's data: `title` only when the body had the key (null and '' too). */
function linkData(url: string, input: LinkInput): { url: string; title?: string | null } {
  return { url, ...('title' in input && input.title !== undefined ? { title: input.title } : {}) };
}

export class FlagLinkService {
  constructor(private readonly store: FlagStore, private readonly outbox: Outbox) {}

  /** The flag holding each link id, derived once per revision (a PUT or DELETE names the link alone). */
  private async owner(linkId: string): Promise<FlagDocument | null> {
    const flags = await this.store.all();
    const owners = this.outbox.state.derived('flags:link-owners', () => {
      const map = new Map<string, string>();
      for (const flag of flags) for (const link of flag.links ?? []) map.set(link.id, flag.name);
      return map;
    });
    const name = owners.get(linkId);
    return name === undefined ? null : this.store.getNow(name);
  }

  async create(projectId: string, featureName: string, input: LinkInput, audit: AuditUser): Promise<void> {
    await this.outbox.exclusive(`flag:${featureName}`, () => retrying(async () => {
      const current = this.store.getNow(featureName);
      if (!current) throw notFound(`Could not find feature with name ${featureName}`);
      const links = current.links ?? [];
      if (links.length >= LINK_LIMIT) throw operationDenied(`Too many links (${LINK_LIMIT}) exist for this feature`);
      const url = normalised(input.url);
      const link: FlagLink = { id: ulid(), url, title: input.title ?? null };
      const flag = withoutBookkeeping(current) as FlagData;
      const event = { ...flagEvent(flag, 'feature-link-added', null, linkData(url, input)), project: projectId };
      await this.store.replace(current, { ...flag, links: [...links, link] }, buildEvents(audit, [event], { transactional: true }));
    }));
  }

  /** A title left out keeps the stored one (Unleash updates the columns given). */
  async update(projectId: string, featureName: string, linkId: string, input: LinkInput, audit: AuditUser): Promise<void> {
    const url = normalised(input.url);
    const home = await this.owner(linkId);
    if (!home) throw notFound(`No item with id ${linkId}`);
    const keys = [...new Set([home.name, featureName])].sort().map((name) => `flag:${name}`);
    await this.locked(keys, () => retrying(async () => {
      const from = await this.owner(linkId);
      if (!from) throw notFound(`No item with id ${linkId}`);
      const to = from.name === featureName ? from : this.store.getNow(featureName);
      if (!to) throw notFound(`Could not find feature with name ${featureName}`);
      const before = from.links!.find((link) => link.id === linkId)!;
      const after: FlagLink = { id: linkId, url, title: input.title === undefined ? before.title : input.title };
      const target = withoutBookkeeping(to) as FlagData;
      const event: EventInput = {
        ...flagEvent(target, 'feature-link-updated', null, { url, title: after.title }, { url: before.url, title: before.title }),
        project: projectId,
      };
      const events = buildEvents(audit, [event], { transactional: true });
      if (from === to) {
        const links = (from.links ?? []).map((link) => (link.id === linkId ? after : link));
        await this.store.replace(from, { ...target, links }, events);
        return;
      }
      const source = withoutBookkeeping(from) as FlagData;
      await this.store.writeMany([
        { current: from, next: { ...source, links: (source.links ?? []).filter((link) => link.id !== linkId) } },
        { current: to, next: { ...target, links: [...(target.links ?? []), after] } },
      ], events);
    }));
  }

  async remove(projectId: string, linkId: string, audit: AuditUser): Promise<void> {
    const home = await this.owner(linkId);
    if (!home) throw notFound(`No item with id ${linkId}`);
    await this.outbox.exclusive(`flag:${home.name}`, () => retrying(async () => {
      const current = await this.owner(linkId);
      if (!current) throw notFound(`No item with id ${linkId}`);
      const flag = withoutBookkeeping(current) as FlagData;
      const link = flag.links!.find((known) => known.id === linkId)!;
      const links = flag.links!.filter((known) => known.id !== linkId);
      const event = { ...flagEvent(flag, 'feature-link-removed', null, null, { url: link.url, title: link.title }), project: projectId };
      const { links: _links, ...rest } = flag;
      await this.store.replace(current, links.length > 0 ? { ...rest, links } : rest, buildEvents(audit, [event], { transactional: true }));
    }));
  }

  private async locked<T>(keys: string[], fn: () => Promise<T>): Promise<T> {
    if (keys.length === 0) return await fn();
    return await this.outbox.exclusive(keys[0]!, () => this.locked(keys.slice(1), fn));
  }
}
