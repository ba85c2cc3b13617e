import { Type } from 'typebox';
import { NullableString, inOrder } from '../../schemas/common.js';

/** Unleash 8.2's patterns, verbatim (its OpenAPI document, /api/admin/search/features). */
export const IS_PATTERN = '^(IS|IS_NOT|IS_ANY_OF|IS_NONE_OF):(.*?)(,([a-zA-Z0-9_]+))*$';
export const TAG_PATTERN = '^(INCLUDE|DO_NOT_INCLUDE|INCLUDE_ALL_OF|INCLUDE_ANY_OF|EXCLUDE_IF_ANY_OF|EXCLUDE_ALL):([^:,]+:.+?)(,\\s*[^:,]+:.+?)*$';
export const SEGMENT_PATTERN = '^(INCLUDE|DO_NOT_INCLUDE|INCLUDE_ALL_OF|INCLUDE_ANY_OF|EXCLUDE_IF_ANY_OF|EXCLUDE_ALL):(.*?)(,([a-zA-Z0-9_]+))*$';
export const DATE_FILTER_PATTERN = '^(IS_BEFORE|IS_ON_OR_AFTER):\\d{4}-\\d{2}-\\d{2}$';

const text = (pattern: string, description: string) => Type.Optional(Type.String({ pattern, description }));

/** Every parameter optional; a repeated one is an array (refused, but for `status`, which is a list). */
export const FeatureSearchQuery = Type.Object({
  query: Type.Optional(Type.String({ description: 'Comma-separated terms, each a case-insensitive substring (% and _ wildcards) of the name or description' })),
  project: text(IS_PATTERN, 'Project id: IS, IS_NOT, IS_ANY_OF, IS_NONE_OF'),
  state: text(IS_PATTERN, 'active, stale or potentially-stale: IS, IS_NOT, IS_ANY_OF, IS_NONE_OF'),
  lifecycle: text(IS_PATTERN, 'Lifecycle stage (initial, pre-live, live, completed, archived): IS, IS_NOT, IS_ANY_OF, IS_NONE_OF'),
  type: text(IS_PATTERN, 'Flag type: IS, IS_NOT, IS_ANY_OF, IS_NONE_OF'),
  createdBy: text(IS_PATTERN, 'Id of the user who created the flag (admin tokens: -42)'),
  tag: text(TAG_PATTERN, 'type:value tags: INCLUDE, DO_NOT_INCLUDE, INCLUDE_ALL_OF, INCLUDE_ANY_OF, EXCLUDE_IF_ANY_OF, EXCLUDE_ALL'),
  segment: text(SEGMENT_PATTERN, 'Segment names: INCLUDE, DO_NOT_INCLUDE, INCLUDE_ALL_OF, INCLUDE_ANY_OF, EXCLUDE_IF_ANY_OF, EXCLUDE_ALL'),
  // An array: one `status` alone is refused ("must be array"), as on the reference.
  status: Type.Optional(Type.Array(Type.String(), { description: 'environment:enabled or environment:disabled, repeated' })),
  offset: Type.Optional(Type.String({ description: 'Flags to skip; anything but a positive number means 0' })),
  limit: Type.Optional(Type.String({ description: '1–100; anything else means 50' })),
  sortBy: Type.Optional(Type.String({ description: 'createdAt (default), name, type, stale, project, lastSeenAt or environment:<name>' })),
  sortOrder: Type.Optional(Type.Enum(['asc', 'desc'], { type: 'string', description: 'asc (default) or desc' })),
  favoritesFirst: Type.Optional(Type.String({ description: 'true: favourites first' })),
  archived: text('^IS:(true|false)$', 'Deprecated: IS:true for archived flags only (lifecycle=IS:archived)'),
  favorite: text('^(IS|IS_ANY_OF):(true|false)(,(true|false))*$', 'IS:true for the caller\'s favourites only'),
  createdAt: text(DATE_FILTER_PATTERN, 'IS_BEFORE:YYYY-MM-DD or IS_ON_OR_AFTER:YYYY-MM-DD (UTC)'),
  lastSeenAt: text(DATE_FILTER_PATTERN, 'IS_BEFORE:YYYY-MM-DD or IS_ON_OR_AFTER:YYYY-MM-DD (UTC), per environment'),
});

const SearchEnvironment = inOrder(Type.Object({
  name: Type.String(),
  enabled: Type.Boolean(),
  type: Type.String(),
  sortOrder: Type.Number(),
  variantCount: Type.Number(),
  lastSeenAt: NullableString({ description: 'date-time' }),
  hasStrategies: Type.Boolean(),
  hasEnabledStrategies: Type.Boolean(),
  yes: Type.Integer(),
  no: Type.Integer(),
  changeRequestIds: Type.Array(Type.Number()),
}));

const SearchFeature = inOrder(Type.Object({
  type: Type.String(),
  description: NullableString(),
  project: Type.String(),
  favorite: Type.Boolean(),
  name: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  stale: Type.Boolean(),
  archivedAt: NullableString({ description: 'date-time' }),
  impressionData: Type.Boolean(),
  dependencyType: Type.Union([Type.Literal('parent'), Type.Literal('child'), Type.Null()]),
  environments: Type.Array(SearchEnvironment),
  segments: Type.Array(Type.String()),
  createdBy: inOrder(Type.Object({ id: Type.Integer(), name: Type.String(), imageUrl: Type.String() })),
  lifecycle: inOrder(Type.Object({ stage: Type.String(), status: Type.Optional(Type.String()), enteredStageAt: Type.String({ format: 'date-time' }) })),
  tags: Type.Optional(Type.Array(inOrder(Type.Object({ value: Type.String(), type: Type.String(), color: NullableString() })))),
}));

export const FeatureSearchResponse = inOrder(Type.Object({
  features: Type.Array(SearchFeature),
  total: Type.Number(),
}));

export const LifecycleCountResponse = inOrder(Type.Object({
  initial: Type.Number(),
  preLive: Type.Number(),
  live: Type.Number(),
  completed: Type.Number(),
  archived: Type.Number(),
}));

const FlagCreator = inOrder(Type.Object({ id: Type.Integer(), name: Type.String() }));

export const FlagCreatorsQuery = Type.Object({
  q: Type.Optional(Type.String({ description: 'A substring of the name, or the start of the username or e-mail' })),
  offset: Type.Optional(Type.String({ description: 'Creators to skip' })),
  limit: Type.Optional(Type.String({ description: '1–10 000; anything else means 50' })),
});

export const FlagCreatorsResponse = inOrder(Type.Object({ flagCreators: Type.Array(FlagCreator), total: Type.Number() }));

export const ProjectFlagCreatorsResponse = Type.Array(FlagCreator);

export const ProjectParams = Type.Object({ projectId: Type.String() });
