import { auditOf } from '../shared.js';
import { ADMIN_ERRORS, EmptyResponse, errorResponses } from '../../schemas/common.js';
import { ApiTokenListSchema, ApiTokenSchema, CreateApiTokenBody, TokenParams } from './schemas.js';
import { publicToken } from './service.js';
const apiTokenRoutes = async (app, { service }) => {
    app.post('/api/admin/api-tokens', {
        config: { permission: 'CREATE_API_TOKEN' },
        schema: {
            tags: ['API tokens'],
            summary: 'Create a client, backend or frontend API token',
            body: CreateApiTokenBody,
            response: { 201: ApiTokenSchema, ...errorResponses(...ADMIN_ERRORS) },
        },
    }, async (request, reply) => {
        const { token, secret } = await service.create(request.body, auditOf(request));
        const { tokenName, environment, projects, type, alias, project, createdAt, secure, expiresAt } = publicToken(token);
        reply.code(201).header('location', 'api-tokens');
        return { tokenName, environment, projects, secret, type, alias, project, createdAt, secure, ...(expiresAt ? { expiresAt } : {}) };
    });
    app.get('/api/admin/api-tokens', {
        config: { permission: 'READ_API_TOKEN' },
        schema: {
            tags: ['API tokens'],
            summary: 'List API tokens (secrets masked: they are stored only as hashes)',
            response: { 200: ApiTokenListSchema, ...errorResponses(401, 403, 503) },
        },
    }, async () => {
        const tokens = await app.apiTokens.list();
        return {
            tokens: tokens.map((token) => ({ ...publicToken(token), secret: token.displaySecret })),
        };
    });
    app.delete('/api/admin/api-tokens/:token', {
        config: { permission: 'DELETE_API_TOKEN' },
        schema: {
            tags: ['API tokens'],
            summary: 'Revoke an API token by its secret',
            params: TokenParams,
            response: { 200: EmptyResponse, ...errorResponses(401, 403, 503) },
        },
    }, async (request, reply) => {
        await service.revoke(request.params.token, auditOf(request));
        return reply.code(200).send(null);
    });
};
export default apiTokenRoutes;
//# sourceMappingURL=routes.js.map