/**
 * Unleash's older event routes, deprecated there and still called by scripts: the latest events,
 * a flag's events, and who created events. Answered from the same log as the search, in the
 * search's event shape without its `label` and `summary`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../schemas/common.js';
import { ADMIN_TOKEN_USER_ID } from '../shared.js';
import type { PresentedEvent } from './presenter.js';
import type { EventSearchService } from './service.js';

/** Unleash lists its latest 100 events, or 50 of a project's or a flag's. */
const LATEST = 100;
const FILTERED = 50;
const SYSTEM_USER_ID = -1337;

export interface EventCreatorNames {
  /** The name of a person by id (null: no longer there, or has none). */
  nameOf(id: number): Promise<string | null>;
  /** Everyone who created an event. */
  creatorIds(): number[];
}

const LegacyEvent = Type.Object({}, { additionalProperties: true });

function withoutPresentation(events: PresentedEvent[]): Array<Omit<PresentedEvent, 'label' | 'summary'>> {
  return events.map(({ label: _label, summary: _summary, ...event }) => event);
}

const legacyEventRoutes: FastifyPluginAsyncTypebox<{ service: EventSearchService; creators: EventCreatorNames }> = async (app, { service, creators }) => {
  app.get('/api/admin/events', {
    config: { permission: 'ADMIN' },
    schema: {
      tags: ['Events'], summary: 'The latest 100 events, or a project\'s latest 50 (deprecated: use the event search)',
      querystring: Type.Object({ project: Type.Optional(Type.String()) }),
      response: {
        200: Type.Object({ version: Type.Integer(), events: Type.Array(LegacyEvent), totalEvents: Type.Integer() }),
        ...errorResponses(401, 403, 503),
      },
    },
  }, async (request) => {
    const { project } = request.query;
    const result = await service.search(project ? { project: `IS:${project}`, limit: String(FILTERED) } : { limit: String(LATEST) });
    return { version: 1, events: withoutPresentation(result.events), totalEvents: result.total };
  });

  app.get('/api/admin/events/:featureName', {
    schema: {
      tags: ['Events'], summary: 'A flag\'s latest 50 events (deprecated: use the event search)',
      params: Type.Object({ featureName: Type.String() }),
      response: {
        200: Type.Object({ version: Type.Integer(), toggleName: Type.String(), events: Type.Array(LegacyEvent), totalEvents: Type.Integer() }),
        ...errorResponses(401, 403, 503),
      },
    },
  }, async (request) => {
    const { featureName } = request.params;
    const result = await service.search({ feature: `IS:${featureName}`, limit: String(FILTERED) }, { allProjects: true });
    return { version: 1, toggleName: featureName, events: withoutPresentation(result.events), totalEvents: result.total };
  });

  app.get('/api/admin/event-creators', {
    schema: {
      tags: ['Events'], summary: 'Everyone who created an event, by id: the event log\'s "created by" filter',
      response: { 200: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() })), ...errorResponses(401, 403, 503) },
    },
  }, async () => {
    const named: Array<{ id: number; name: string }> = [];
    for (const id of creators.creatorIds()) {
      const name = id === SYSTEM_USER_ID ? 'Unleash System'
        : id === ADMIN_TOKEN_USER_ID ? 'Unleash Admin Token'
        : await creators.nameOf(id) ?? (await service.search({ createdBy: `IS:${id}`, limit: '1' })).events[0]?.createdBy ?? null;
      if (name) named.push({ id, name });
    }
    return named;
  });
};

export default legacyEventRoutes;
