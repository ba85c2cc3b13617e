import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
/** OpenAPI document generated from the route schemas, at /docs/openapi.json, and Swagger UI at /docs. */
async function docsPlugin(app) {
    await app.register(swagger, {
        openapi: {
            openapi: '3.0.3',
            info: {
                title: 'Vane Admin API',
                description: 'A subset of the Unleash Admin API: feature flags, strategies, segments, events, playground, change requests, invite links; the Unleash client and frontend APIs; and OpenFeature\'s remote evaluation protocol (OFREP 0.3, tag OFREP).',
                version: '1.0.0',
            },
            components: {
                securitySchemes: {
                    apiKey: { type: 'apiKey', in: 'header', name: 'Authorization' },
                    // OFREP's two ways to send a frontend or client token (docs/rules.md §9.1).
                    ofrepBearer: { type: 'http', scheme: 'bearer', description: 'A frontend or client token' },
                    ofrepApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A frontend or client token' },
                },
            },
            security: [{ apiKey: [] }],
        },
    });
    await app.register(swaggerUi, { routePrefix: '/docs' });
    app.get('/docs/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
export default fp(docsPlugin, { name: 'docs' });
//# sourceMappingURL=docs.js.map