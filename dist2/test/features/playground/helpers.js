import { JSON_ADMIN } from '../../helpers/app.js';
export const FEATURES = '/api/admin/projects/default/features';
export async function post(app, url, payload) {
    return await app.inject({ method: 'POST', url, headers: JSON_ADMIN, ...(payload === undefined ? {} : { payload: payload }) });
}
export async function createEnabledFlag(app, name, environment = 'development') {
    const created = await post(app, FEATURES, { name });
    if (created.statusCode !== 201)
        throw new Error(`create ${name}: ${created.statusCode} ${created.body}`);
    const on = await post(app, `${FEATURES}/${name}/environments/${environment}/on`);
    if (on.statusCode !== 200)
        throw new Error(`enable ${name}: ${on.statusCode} ${on.body}`);
}
export async function playground(app, context, extra = {}) {
    return await post(app, '/api/admin/playground', { environment: 'development', context, ...extra });
}
export async function advanced(app, context, extra = {}) {
    return await post(app, '/api/admin/playground/advanced', { environments: ['development'], context, ...extra });
}
//# sourceMappingURL=helpers.js.map