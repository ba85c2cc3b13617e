import { randomUUID } from 'node:crypto';
/** An event as the search returns it before presentation (no key, no search text), as JSON. */
export function storedEventJson(id, event) {
    const { key: _key, ...rest } = event;
    return JSON.stringify({ id, ...rest });
}
/** Deep equality for JSON-like values (used to drop no-op update events, docs/rules.md §4.4). */
export function jsonEqual(a, b) {
    return JSON.stringify(a) === JSON.stringify(b);
}
export function buildEvents(audit, inputs, options = {}) {
    const createdAt = options.at ?? new Date();
    const groupId = options.transactional ? randomUUID() : undefined;
    const events = [];
    for (const input of inputs) {
        const data = input.data ?? null;
        const preData = input.preData ?? null;
        if (data !== null && preData !== null && jsonEqual(data, preData))
            continue;
        events.push({
            key: randomUUID(),
            type: input.type,
            createdBy: audit.name,
            createdByUserId: audit.id,
            createdAt,
            data,
            preData,
            tags: input.tags ?? [],
            featureName: input.featureName ?? null,
            project: input.project ?? null,
            environment: input.environment ?? null,
            ...(groupId ? { groupType: 'transaction', groupId } : {}),
        });
    }
    return events;
}
export function searchTextOf(event) {
    const parts = [];
    if (event.data !== null && event.data !== undefined)
        parts.push(JSON.stringify(event.data));
    if (event.tags && event.tags.length > 0)
        parts.push(JSON.stringify(event.tags));
    if (event.preData !== null && event.preData !== undefined)
        parts.push(JSON.stringify(event.preData));
    return parts.join('\u0000').toLowerCase();
}
//# sourceMappingURL=events.js.map