import { errorResponses } from '../../schemas/common.js';
import { UserListSchema } from './schemas.js';
import { ROOT_ROLES } from './service.js';
const userRoutes = async (app, { service }) => {
    app.get('/api/admin/user-admin', {
        config: { permission: 'ADMIN' },
        schema: {
            tags: ['Users'],
            summary: 'List users (for example those who joined through an invite link), by id',
            response: { 200: UserListSchema, ...errorResponses(401, 403, 503) },
        },
    }, async () => ({ users: await service.list(), rootRoles: ROOT_ROLES.map((role) => ({ ...role })) }));
};
export default userRoutes;
//# sourceMappingURL=routes.js.map