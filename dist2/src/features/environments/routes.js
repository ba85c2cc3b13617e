import { auditOf } from '../shared.js';
import { ADMIN_ERRORS, errorResponses } from '../../schemas/common.js';
import { CreateEnvironmentBody, EnvironmentListSchema, EnvironmentNameParams, EnvironmentSchema } from './schemas.js';
const TAGS = ['Environments'];
const environmentRoutes = async (app, { service }) => {
    app.get('/api/admin/environments', {
        schema: {
            tags: TAGS, summary: 'List environments (sortOrder, then creation)',
            response: { 200: EnvironmentListSchema, ...errorResponses(401, 403, 503) },
        },
    }, async () => ({ version: 1, environments: await service.list() }));
    app.get('/api/admin/environments/:name', {
        schema: {
            tags: TAGS, summary: 'Get one environment', params: EnvironmentNameParams,
            response: { 200: EnvironmentSchema, ...errorResponses(401, 403, 404, 503) },
        },
    }, async (request) => await service.get(request.params.name));
    app.post('/api/admin/environments', {
        config: { permission: 'ADMIN' },
        schema: {
            tags: TAGS, summary: 'Create an environment, connected to every project and flag (Vane design)', body: CreateEnvironmentBody,
            response: { 201: EnvironmentSchema, ...errorResponses(...ADMIN_ERRORS, 409) },
        },
    }, async (request, reply) => {
        const env = await service.create(request.body, auditOf(request));
        return reply.code(201).send(env);
    });
};
export default environmentRoutes;
//# sourceMappingURL=routes.js.map