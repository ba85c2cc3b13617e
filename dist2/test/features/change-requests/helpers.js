import { ADMIN, JSON_ADMIN } from '../../helpers/app.js';
export const FEATURES = '/api/admin/projects/default/features';
export async function send(app, method, url, payload) {
    return await app.inject({
        method: method, url, headers: payload === undefined ? ADMIN : JSON_ADMIN,
        ...(payload === undefined ? {} : { payload: payload }),
    });
}
/** Sends and fails loudly unless the status is the expected one; returns the parsed body. */
export async function ok(app, method, url, payload, status = 200) {
    const res = await send(app, method, url, payload);
    if (res.statusCode !== status)
        throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : undefined;
}
export async function createFlag(app, name, project = 'default') {
    await ok(app, 'POST', `/api/admin/projects/${project}/features`, { name }, 201);
}
export async function addStrategy(app, flag, body, env = 'development') {
    return (await ok(app, 'POST', `${FEATURES}/${flag}/environments/${env}/strategies`, body)).id;
}
export async function turnOn(app, flag, env = 'development') {
    await ok(app, 'POST', `${FEATURES}/${flag}/environments/${env}/on`);
}
export async function createSegment(app, body) {
    return (await ok(app, 'POST', '/api/admin/segments', body, 201)).id;
}
export function changesUrl(project = 'default', env = 'development') {
    return `/api/admin/projects/${project}/environments/${env}/change-requests`;
}
export async function addChanges(app, changes, project = 'default', env = 'development') {
    return await send(app, 'POST', changesUrl(project, env), changes);
}
export async function setState(app, id, state, project = 'default') {
    return await send(app, 'PUT', `/api/admin/projects/${project}/change-requests/${id}/state`, { state });
}
export async function preview(app, id, context) {
    return await send(app, 'POST', `/api/admin/playground/change-request/${id}`, { context });
}
export async function advanced(app, env, project, context) {
    return await send(app, 'POST', '/api/admin/playground/advanced', { environments: [env], projects: [project], context });
}
export async function eventCount(app) {
    await app.database.outbox.flushed(); // events are appended after the response
    return await app.database.db.collection('events').countDocuments({});
}
export async function eventsAfter(app, id) {
    await app.database.outbox.flushed(); // events are appended after the response
    return await app.database.db.collection('events').find({ id: { $gt: id } }).sort({ id: 1 }).toArray();
}
export async function lastEventId(app) {
    await app.database.outbox.flushed(); // events are appended after the response
    const last = await app.database.db.collection('events').find({}).sort({ id: -1 }).limit(1).next();
    return last?.id ?? 0;
}
/** Every flag and segment document, as stored (bookkeeping included): to prove nothing was written. */
export async function storedState(app) {
    const db = app.database.db;
    const flags = await db.collection('flags').find({}).sort({ _id: 1 }).toArray();
    const segments = await db.collection('segments').find({}).sort({ _id: 1 }).toArray();
    const crs = await db.collection('change_requests').find({}).sort({ _id: 1 }).toArray();
    return JSON.stringify({ flags, segments, crs });
}
export async function strategyIds(app) {
    const flags = await app.database.db.collection('flags').find({}).toArray();
    return new Set(flags.flatMap((f) => f.strategyIds ?? []));
}
/**
 * Playground text with generated strategy ids replaced: a strategy unknown before (added by the
 * preview or by the apply, whose ids differ) becomes `new:{flag}:{title or name}` everywhere
 * (its result entry and its edit link).
 */
export function withStableIds(body, known) {
    const parsed = JSON.parse(body);
    const names = new Map();
    for (const feature of parsed.features) {
        for (const results of Object.values(feature.environments)) {
            for (const result of results) {
                for (const s of result.strategies.data) {
                    if (!known.has(s.id))
                        names.set(s.id, `new:${feature.name}:${s.title ?? s.name}`);
                }
            }
        }
    }
    let text = body;
    for (const [id, name] of names)
        text = text.split(id).join(name);
    return text;
}
//# sourceMappingURL=helpers.js.map