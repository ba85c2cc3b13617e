import { ADMIN, JSON_ADMIN } from '../../helpers/app.js';
export const BASE = '/api/admin/projects/default/features';
export async function createFlag(app, body, project = 'default') {
    return await app.inject({ method: 'POST', url: `/api/admin/projects/${project}/features`, headers: JSON_ADMIN, payload: body });
}
export async function send(app, method, url, payload) {
    return await app.inject({
        method: method, url, headers: payload === undefined ? ADMIN : JSON_ADMIN,
        ...(payload === undefined ? {} : { payload: payload }),
    });
}
/** Events after id 5 (the fresh-instance ones), in id order. */
export async function eventsSince(app, afterId = 5) {
    await app.database.outbox.flushed(); // events are appended after the response
    return await app.database.db.collection('events').find({ id: { $gt: afterId } }).sort({ id: 1 }).toArray();
}
export async function lastEventId(app) {
    await app.database.outbox.flushed(); // events are appended after the response
    const last = await app.database.db.collection('events').find({}).sort({ id: -1 }).limit(1).next();
    return last?.id ?? 0;
}
//# sourceMappingURL=helpers.js.map