import { isRootAdmin } from '../../plugins/auth.js';
import { errorResponses, preSerialized } from '../../schemas/common.js';
import { EventSearchQuerySchema, EventSearchResponse } from './schemas.js';
const eventRoutes = async (app, { service }) => {
    app.get('/api/admin/search/events', {
        schema: {
            tags: ['Events'],
            summary: 'Search the event log, newest first, with filters and paging',
            querystring: EventSearchQuerySchema,
            response: { 200: preSerialized(EventSearchResponse), ...errorResponses(400, 401, 403, 503) },
        },
    }, async (request, reply) => {
        // Only root admins see events outside projects; admin tokens are root admins.
        const allProjects = isRootAdmin(request.principal);
        // Sent as built (a string is not serialised again): the service keeps each event's JSON.
        const body = await service.searchBody(request.query, { allProjects });
        return await reply.type('application/json; charset=utf-8').send(body);
    });
};
export default eventRoutes;
//# sourceMappingURL=routes.js.map