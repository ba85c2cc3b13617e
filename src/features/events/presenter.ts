/**
 * The event object of the search response (docs/rules.md §4.4) with its `label` and `summary` (§4.6).
 * Pure functions of a stored event and the public base URL.
 */
import type { StoredEvent } from '../../db/event-log/index.js';

export interface PresentedEvent {
  id: number;
  type: string;
  createdBy: string;
  createdAt: string;
  createdByUserId: number | null;
  data: unknown;
  preData: unknown;
  tags: unknown[];
  featureName: string | null;
  project: string | null;
  environment: string | null;
  groupType?: string;
  groupId?: string;
  label: string;
  summary: string;
}

/** What `presentEvent` reads: the stored event (the log's `StoredEvent`). */
export type { StoredEvent };

type Json = Record<string, unknown>;

const LABELS: Record<string, string> = {
  'feature-created': 'Flag created',
  'feature-archived': 'Flag archived',
  'feature-revived': 'Flag revived',
  'feature-environment-enabled': 'Flag enabled',
  'feature-environment-disabled': 'Flag disabled',
  'feature-environment-variants-updated': 'Flag variants updated',
  'feature-strategy-add': 'Flag strategy added',
  'feature-strategy-remove': 'Flag strategy removed',
  'feature-strategy-update': 'Flag strategy updated',
  'segment-created': 'Segment created',
  'segment-updated': 'Segment updated',
  'segment-deleted': 'Segment deleted',
  'context-field-created': 'Context field created',
  'context-field-updated': 'Context field updated',
  'context-field-deleted': 'Context field deleted',
  'api-token-created': 'API token created',
  'api-token-deleted': 'API token deleted',
  'change-request-created': 'Change request created',
  'change-added': 'Change added',
  'change-discarded': 'Change discarded',
  'change-request-applied': 'Change request applied',
  'change-request-approved': 'Change request approved',
  'change-request-cancelled': 'Change request cancelled',
  'change-request-rejected': 'Change request rejected',
  'change-request-sent-to-review': 'Change request sent to review',
  'user-created': 'User created',
};

/** The verb phrase of each change-request event, before `{cr}`. */
const CHANGE_REQUEST_ACTIONS: Record<string, string> = {
  'change-request-created': 'created change request',
  'change-added': 'added a change to change request',
  'change-discarded': 'discarded a change in change request',
  'change-request-applied': 'applied change request',
  'change-request-approved': 'approved change request',
  'change-request-cancelled': 'cancelled change request',
  'change-request-rejected': 'rejected change request',
  'change-request-sent-to-review': 'sent to review change request',
};

export const OPERATOR_TEXTS: Record<string, string> = {
  IN: 'is one of',
  NOT_IN: 'is not one of',
  STR_CONTAINS: 'is a string that contains',
  STR_STARTS_WITH: 'is a string that starts with',
  STR_ENDS_WITH: 'is a string that ends with',
  NUM_EQ: 'is a number equal to',
  NUM_GT: 'is a number greater than',
  NUM_GTE: 'is a number greater than or equal to',
  NUM_LT: 'is a number less than',
  NUM_LTE: 'is a number less than or equal to',
  DATE_BEFORE: 'is a date before',
  DATE_AFTER: 'is a date after',
  SEMVER_EQ: 'is a SemVer equal to',
  SEMVER_GT: 'is a SemVer greater than',
  SEMVER_LT: 'is a SemVer less than',
  SEMVER_GTE: 'is a SemVer greater than or equal to',
  SEMVER_LTE: 'is a SemVer less than or equal to',
  REGEX: 'matches regex',
};

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value inserted raw; missing (null/undefined) renders as "". */
function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function field(obj: unknown, key: string): unknown {
  return isObject(obj) ? obj[key] : undefined;
}

function nonEmpty(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

export function labelOf(type: string): string {
  return Object.prototype.hasOwnProperty.call(LABELS, type) ? LABELS[type]! : type;
}

function strategyTitle(event: StoredEvent): string {
  const candidates = [field(event.preData, 'title'), field(event.data, 'title'), field(event.preData, 'name'), field(event.data, 'name')];
  return text(candidates.find(nonEmpty));
}

function formatConstraint(constraint: unknown): string {
  const c = isObject(constraint) ? constraint : {};
  const operator = text(c.operator);
  const operatorText = Object.prototype.hasOwnProperty.call(OPERATOR_TEXTS, operator) ? OPERATOR_TEXTS[operator]! : operator;
  const value = Object.prototype.hasOwnProperty.call(c, 'value')
    ? text(c.value)
    : `(${(Array.isArray(c.values) ? c.values : []).map(text).join(',')})`;
  return `${text(c.contextName)} ${c.inverted === true ? 'not ' : ''}${operatorText} ${value}`;
}

function formatConstraints(list: unknown): string {
  const constraints = Array.isArray(list) ? list : [];
  return constraints.length === 0 ? 'empty set of constraints' : `[${constraints.map(formatConstraint).join(', ')}]`;
}

function formatSegments(list: unknown): string {
  const segments = Array.isArray(list) ? list : [];
  return segments.length === 0 ? 'empty set of segments' : `(${segments.map(text).join(',')})`;
}

/** ` {name} from {old} to {new}`, ` {name} to {new}` when there was none, "" when equal. */
function parameterChange(name: string, before: unknown, after: unknown, render: (v: unknown) => string = text): string {
  if (before === after) return '';
  if (before === undefined || before === null) return ` ${name} to ${render(after)}`;
  return ` ${name} from ${render(before)} to ${render(after)}`;
}

function listParameter(name: string): (v: unknown) => string {
  return (v) => (nonEmpty(v) ? `[${text(v)}]` : `empty set of ${name}`);
}

/** The `{change}` text of `feature-strategy-update` (docs/rules.md §4.6). */
export function strategyChangeText(event: StoredEvent): string {
  const before = isObject(event.preData) ? event.preData : {};
  const after = isObject(event.data) ? event.data : {};
  const oldParams = isObject(before.parameters) ? before.parameters : {};
  const newParams = isObject(after.parameters) ? after.parameters : {};
  const pieces: string[] = [];
  const constraintsPiece = () => {
    const a = formatConstraints(before.constraints);
    const b = formatConstraints(after.constraints);
    return a === b ? '' : ` constraints from ${a} to ${b}`;
  };
  const segmentsPiece = () => {
    const a = formatSegments(before.segments);
    const b = formatSegments(after.segments);
    return a === b ? '' : ` segments from ${a} to ${b}`;
  };
  const name = text(after.name ?? before.name);
  if (name === 'flexibleRollout') {
    pieces.push(
      parameterChange('stickiness', oldParams.stickiness, newParams.stickiness),
      parameterChange('rollout', oldParams.rollout, newParams.rollout, (v) => `${text(v)}%`),
      parameterChange('groupId', oldParams.groupId, newParams.groupId),
      constraintsPiece(),
      segmentsPiece(),
    );
  } else if (name === 'remoteAddress' || name === 'applicationHostname') {
    const parameter = name === 'remoteAddress' ? 'IPs' : 'hostNames';
    pieces.push(
      parameterChange(parameter, oldParams[parameter], newParams[parameter], listParameter(parameter)),
      constraintsPiece(),
      segmentsPiece(),
    );
  } else if (name === 'default') {
    pieces.push(constraintsPiece(), segmentsPiece());
  }
  return `by updating strategy **${strategyTitle(event)}** in **${text(event.environment)}**${pieces.filter(Boolean).join(';')}`;
}

export function summaryOf(event: StoredEvent, baseUrl: string): string {
  const user = `**${text(event.createdBy)}**`;
  const featureName = text(event.featureName);
  const project = text(event.project);
  const environment = text(event.environment);
  const flag = `[${featureName}](${baseUrl}/projects/${project}/features/${featureName})`;
  const proj = `[${project}](${baseUrl}/projects/${project})`;
  switch (event.type) {
    case 'feature-created':
      return `${user} created **${flag}** in project **${proj}**`;
    case 'feature-archived':
      return `${user} archived **${featureName}** in project **${proj}**`;
    case 'feature-revived':
      return `${user} revived **${flag}** in project **${proj}**`;
    case 'feature-environment-enabled':
    case 'feature-environment-disabled': {
      const action = event.type === 'feature-environment-enabled' ? 'enabled' : 'disabled';
      return `${user} ${action} **${flag}** for the **${environment}** environment in project **${proj}**`;
    }
    case 'feature-environment-variants-updated':
      return `${user} updated variants for **${flag}** for the **${environment}** environment in project **${proj}**`;
    case 'feature-strategy-add':
      return `${user} added strategy **${strategyTitle(event)}** to **${flag}** for the **${environment}** environment in project **${proj}**`;
    case 'feature-strategy-remove':
      return `${user} removed strategy **${strategyTitle(event)}** from **${flag}** for the **${environment}** environment in project **${proj}**`;
    case 'feature-strategy-update':
      return `${user} updated **${flag}** in project **${proj}** ${strategyChangeText(event)}`;
    case 'segment-created':
      return `${user} created segment **${text(field(event.data, 'name'))}**`;
    case 'segment-updated':
      return `${user} updated segment **${text(field(event.preData, 'name'))}**`;
    case 'segment-deleted':
      return `${user} deleted segment **${text(field(event.preData, 'name'))}**`;
    case 'context-field-created':
      return `${user} created context field **${text(field(event.data, 'name'))}**`;
    case 'context-field-updated':
      return `${user} updated context field **${text(field(event.preData, 'name'))}**`;
    case 'context-field-deleted':
      return `${user} deleted context field **${text(field(event.preData, 'name'))}**`;
    case 'api-token-created':
      return `${user} created API token **${text(field(event.data, 'username'))}**`;
    case 'api-token-deleted':
      return `${user} deleted API token **${text(field(event.preData, 'username'))}**`;
    case 'user-created':
      return `${user} created user **${text(field(event.data, 'name'))}**`;
    default:
      break;
  }
  const action = CHANGE_REQUEST_ACTIONS[event.type];
  if (action && Object.prototype.hasOwnProperty.call(CHANGE_REQUEST_ACTIONS, event.type)) {
    const id = text(field(event.data, 'changeRequestId'));
    let cr = `**[#${id}](${baseUrl}/projects/${project}/change-requests/${id})**`;
    if (featureName) cr += ` for feature flag **${flag}**`;
    if (environment) cr += ` in the **${environment}** environment`;
    cr += ` in project **${proj}**`;
    return `${user} ${action} ${cr}`;
  }
  return `${user} triggered **${event.type}**`;
}

/** The response object, keys in Unleash's order (docs/rules.md §4.4). */
export function presentEvent(event: StoredEvent, baseUrl: string): PresentedEvent {
  const createdAt = event.createdAt instanceof Date ? event.createdAt.toISOString() : String(event.createdAt);
  return {
    id: event.id,
    type: event.type,
    createdBy: event.createdBy,
    createdAt,
    createdByUserId: event.createdByUserId ?? null,
    data: event.data ?? null,
    preData: event.preData ?? null,
    tags: event.tags ?? [],
    featureName: event.featureName ?? null,
    project: event.project ?? null,
    environment: event.environment ?? null,
    ...(event.groupType !== undefined && event.groupType !== null ? { groupType: event.groupType, groupId: event.groupId } : {}),
    label: labelOf(event.type),
    summary: summaryOf(event, baseUrl),
  };
}
