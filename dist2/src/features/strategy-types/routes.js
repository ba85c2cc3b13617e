import { auditOf } from '../shared.js';
import { ADMIN_ERRORS, errorResponses } from '../../schemas/common.js';
import { CreateStrategyTypeBody, StrategyNameParams, StrategyTypeListSchema, StrategyTypeSchema } from './schemas.js';
const TAGS = ['Strategy types'];
const strategyTypeRoutes = async (app, { service }) => {
    app.get('/api/admin/strategies', {
        schema: {
            tags: TAGS, summary: 'List strategy types',
            response: { 200: StrategyTypeListSchema, ...errorResponses(401, 403, 503) },
        },
    }, async () => ({ version: 1, strategies: await service.list() }));
    app.get('/api/admin/strategies/:name', {
        schema: {
            tags: TAGS, summary: 'Get one strategy type', params: StrategyNameParams,
            response: { 200: StrategyTypeSchema, ...errorResponses(401, 403, 404, 503) },
        },
    }, async (request) => await service.get(request.params.name));
    app.post('/api/admin/strategies', {
        config: { permission: 'CREATE_STRATEGY' },
        schema: {
            tags: TAGS, summary: 'Create a custom strategy type', body: CreateStrategyTypeBody,
            response: { 201: StrategyTypeSchema, ...errorResponses(...ADMIN_ERRORS, 409) },
        },
    }, async (request, reply) => {
        const created = await service.create(request.body, auditOf(request));
        return reply.code(201).send(created);
    });
};
export default strategyTypeRoutes;
//# sourceMappingURL=routes.js.map