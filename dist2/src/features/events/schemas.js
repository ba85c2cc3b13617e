import { Type } from 'typebox';
/** Unleash's patterns, verbatim (docs/rules.md §4.1): the lazy `(.*?)` lets any value after the operator through. */
export const FILTER_PATTERN = '^(IS|IS_ANY_OF):(.*?)(,([a-zA-Z0-9_]+))*$';
export const NUMERIC_FILTER_PATTERN = '^(IS|IS_ANY_OF):(.*?)(,([0-9]+))*$';
export const DATE_PATTERN = '^(IS):\\d{4}-\\d{2}-\\d{2}$';
const filter = (description) => Type.Optional(Type.String({ pattern: FILTER_PATTERN, description }));
const numericFilter = (description) => Type.Optional(Type.String({ pattern: NUMERIC_FILTER_PATTERN, description }));
const day = (description) => Type.Optional(Type.String({ pattern: DATE_PATTERN, description }));
/** Every parameter optional and a string (a repeated parameter is an array: "must be string"). */
export const EventSearchQuerySchema = Type.Object({
    query: Type.Optional(Type.String({ description: 'Case-insensitive substring of the data, tags or preData JSON; % and _ are wildcards, \\ escapes' })),
    feature: filter('Flag name: IS:name or IS_ANY_OF:a,b'),
    project: filter('Project: IS:id or IS_ANY_OF:a,b'),
    type: filter('Event type: IS:type or IS_ANY_OF:a,b'),
    environment: filter('Environment: IS:name or IS_ANY_OF:a,b'),
    createdBy: numericFilter('Numeric id of the user who caused the event (admin tokens: -42)'),
    id: numericFilter('Event id: IS:n or IS_ANY_OF:n,m'),
    groupId: numericFilter('Id shared by the events of one transactional operation'),
    from: day('First day, inclusive (UTC): IS:YYYY-MM-DD'),
    to: day('Last day, inclusive (UTC): IS:YYYY-MM-DD'),
    offset: Type.Optional(Type.String({ description: 'Events to skip; anything but a positive number means 0' })),
    limit: Type.Optional(Type.String({ description: '1–1000; anything else means 50' })),
});
/**
 * Key order id, type, createdBy, createdAt, createdByUserId, data, preData, tags, featureName,
 * project, environment, groupType?, groupId?, label, summary. Every key is optional in the schema
 * because the serializer writes required keys first (that would move groupType/groupId).
 */
export const EventSchema = Type.Object({
    id: Type.Optional(Type.Integer({ minimum: 1 })),
    type: Type.Optional(Type.String()),
    createdBy: Type.Optional(Type.String()),
    createdAt: Type.Optional(Type.String({ format: 'date-time' })),
    createdByUserId: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    data: Type.Optional(Type.Unknown({ description: 'JSON object or null' })),
    preData: Type.Optional(Type.Unknown({ description: 'JSON object or null' })),
    tags: Type.Optional(Type.Unknown({ description: 'Tags of the flag when the event was stored: [{value, type}]' })),
    featureName: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    project: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    environment: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    groupType: Type.Optional(Type.String()),
    groupId: Type.Optional(Type.String()),
    label: Type.Optional(Type.String()),
    summary: Type.Optional(Type.String({ description: 'Markdown' })),
});
export const EventSearchResponse = Type.Object({
    events: Type.Array(EventSchema),
    total: Type.Integer({ minimum: 0, description: 'Matching events, ignoring offset and limit' }),
});
//# sourceMappingURL=schemas.js.map