/**
 * Activation strategies (docs/rules.md §3.8): compiled per flag environment, with their static report
 * fragments, and the activation tests Vane implements.
 */
import { compileConstraints, type CompiledConstraint } from './constraints.js';
import type { ContextReader } from './context-reader.js';
import { randomIntString, rolloutBucket } from './hash.js';
import { flat, isObject, jsonPrefixBeforeKey, jsonString, setOwn } from './json.js';
import { Interner } from './intern.js';
import { parseIpRange, ipInRange, type IpRange } from './parse.js';
import type { StrategyConfig } from './types.js';
import { compileStrategyVariants, type CompiledVariantSet } from './variants.js';

export const enum StrategyKind {
  Default,
  FlexibleRollout,
  UserWithId,
  GradualRolloutUserId,
  GradualRolloutSessionId,
  GradualRolloutRandom,
  RemoteAddress,
  /** Custom strategies and `applicationHostname`: the playground reports them as incomplete. */
  Unimplemented,
}

const STRATEGY_KINDS = new Map<unknown, StrategyKind>([
  ['default', StrategyKind.Default],
  ['flexibleRollout', StrategyKind.FlexibleRollout],
  // Unleash's playground lacks userWithId; SDKs implement it (client specification 02, D2; docs/glossary.md).
  ['userWithId', StrategyKind.UserWithId],
  ['gradualRolloutUserId', StrategyKind.GradualRolloutUserId],
  ['gradualRolloutSessionId', StrategyKind.GradualRolloutSessionId],
  ['gradualRolloutRandom', StrategyKind.GradualRolloutRandom],
  ['remoteAddress', StrategyKind.RemoteAddress],
  // `applicationHostname` depends on the SDK host's name, which the server cannot know.
]);

/** Where a strategy sits; its report links to the strategy editor of that flag environment. */
export interface StrategyLocation {
  readonly project: string;
  readonly flag: string;
  readonly environment: string;
}

export class CompiledStrategy {
  readonly id: string;
  readonly name: string;
  readonly kind: StrategyKind;
  readonly disabled: boolean;
  /** Parameters with every value rendered as a string, in stored key order. */
  readonly parameters: Readonly<Record<string, string>>;
  readonly constraints: readonly CompiledConstraint[];
  readonly segmentIds: readonly number[];
  /** Null when the strategy has no variants. */
  readonly variants: CompiledVariantSet | null;

  /** flexibleRollout `rollout`, gradual rollouts' `percentage` (Number(), NaN never enables). */
  readonly percentage: number;
  /** Rollout group: the `groupId` parameter, "" when absent or empty. */
  readonly rolloutGroupId: string;
  readonly stickiness: string;
  readonly userIds: ReadonlySet<string>;
  /** remoteAddress `IPs`, shared by every strategy with the same list (null for other kinds). */
  readonly addressList: AddressList | null;

  /** Report object head `{name, id, title?, disabled, parameters}` and its JSON up to `"result":`. */
  readonly reportHead: Readonly<Record<string, unknown>>;
  readonly reportHeadJson: string;
  readonly links: Readonly<{ edit: string }>;
  /** `,"links":{...}}`: closes the strategy report object. */
  readonly reportTailJson: string;
  /** `,"segments":[]` + reportTailJson, for the common strategy without segments. */
  readonly noSegmentsTailJson: string;
  /** Serializer cache of rendered report bodies (see serialize.ts). */
  readonly reportMemo = new Map<number, string>();

  constructor(config: StrategyConfig, location: StrategyLocation) {
    const parameters = normalizeParameters(config.parameters);
    const kind = STRATEGY_KINDS.get(config.name) ?? StrategyKind.Unimplemented;
    this.id = config.id;
    this.name = String(config.name);
    this.kind = kind;
    this.disabled = config.disabled === true;
    this.parameters = parameters;
    this.constraints = compileConstraints(config.constraints, 'strategy');
    this.segmentIds = (Array.isArray(config.segments) ? config.segments : []).map(Number);
    this.variants =
      Array.isArray(config.variants) && config.variants.length > 0
        ? compileStrategyVariants(config.variants, parameters)
        : null;

    this.percentage = Number(kind === StrategyKind.FlexibleRollout ? parameters.rollout : parameters.percentage);
    this.rolloutGroupId = parameters.groupId ?? '';
    this.stickiness = parameters.stickiness || 'default';
    this.userIds = new Set(kind === StrategyKind.UserWithId ? splitList(parameters.userIds) : []);
    this.addressList = kind === StrategyKind.RemoteAddress ? addressLists.get(parameters.IPs ?? '', () => new AddressList(parameters.IPs)) : null;

    const head: Record<string, unknown> = { name: this.name, id: config.id };
    if (typeof config.title === 'string' && config.title !== '') head.title = config.title;
    head.disabled = this.disabled;
    head.parameters = parameters;
    this.reportHead = Object.freeze(head);
    this.reportHeadJson = jsonPrefixBeforeKey(head, 'result');
    this.links = Object.freeze({
      edit:
        `/projects/${location.project}/features/${location.flag}/strategies/edit` +
        `?environmentId=${location.environment}&strategyId=${config.id}`,
    });
    this.reportTailJson = flat(',"links":{"edit":' + jsonString(this.links.edit) + '}}');
    this.noSegmentsTailJson = flat(',"segments":[]' + this.reportTailJson);
  }
}

/** The strategy's own activation test, constraints and segments aside (docs/rules.md §3.8 table). */
export function activationHolds(strategy: CompiledStrategy, context: ContextReader): boolean {
  switch (strategy.kind) {
    case StrategyKind.Default:
      return true;
    case StrategyKind.FlexibleRollout:
      return flexibleRolloutHolds(strategy, context);
    case StrategyKind.UserWithId: {
      const userId = context.topLevel('userId');
      return userId !== undefined && strategy.userIds.has(userId);
    }
    case StrategyKind.GradualRolloutUserId:
      return stickyRolloutHolds(strategy, context.topLevel('userId'));
    case StrategyKind.GradualRolloutSessionId:
      return stickyRolloutHolds(strategy, context.topLevel('sessionId'));
    case StrategyKind.GradualRolloutRandom:
      return strategy.percentage >= 1 + Math.floor(Math.random() * 100);
    case StrategyKind.RemoteAddress:
      return remoteAddressHolds(strategy, context);
    default:
      return false;
  }
}

function flexibleRolloutHolds(strategy: CompiledStrategy, context: ContextReader): boolean {
  if (!(strategy.percentage > 0)) return false;
  const stickyId = flexibleStickyId(strategy.stickiness, context);
  if (stickyId === undefined) return false;
  const groupId = strategy.rolloutGroupId !== '' ? strategy.rolloutGroupId : (context.topLevel('featureToggle') ?? '');
  return rolloutBucket(stickyId, groupId) <= strategy.percentage;
}

/** `default`: userId, else sessionId, else random; `random`: random; else the field (missing → off). */
function flexibleStickyId(stickiness: string, context: ContextReader): string | undefined {
  if (stickiness === 'default') {
    return context.topLevel('userId') ?? context.topLevel('sessionId') ?? randomIntString(1, 10001);
  }
  if (stickiness === 'random') return randomIntString(1, 10001);
  return context.resolve(stickiness);
}

function stickyRolloutHolds(strategy: CompiledStrategy, stickyId: string | undefined): boolean {
  return stickyId !== undefined && strategy.percentage > 0 && rolloutBucket(stickyId, strategy.rolloutGroupId) <= strategy.percentage;
}

/**
 * A remoteAddress strategy's `IPs`: its entries, and its IPv4 entries (addresses or CIDR blocks)
 * as ranges. One per distinct list in the thread (an Interner): flags that share an office or VPN
 * list share one object, whose answer for a context is remembered like a constraint's
 * (constraints.ts `constraintHolds`).
 */
class AddressList {
  readonly addresses: ReadonlySet<string>;
  readonly ipv4Ranges: readonly IpRange[];
  memoReader = 0;
  memoResult = false;

  constructor(list: string | undefined) {
    const addresses = splitList(list);
    this.addresses = new Set(addresses);
    this.ipv4Ranges = addresses.map(parseIpRange).filter((range): range is IpRange => range !== null && !range.v6);
  }

  /** Exact entry match, or an IPv4 address inside an IPv4 entry (address or CIDR). */
  holds(context: ContextReader): boolean {
    if (this.memoReader === context.id) return this.memoResult;
    const address = context.topLevel('remoteAddress');
    let result = false;
    if (address !== undefined) {
      if (this.addresses.has(address)) result = true;
      else if (this.ipv4Ranges.length > 0) {
        const ip = context.ipOf('remoteAddress');
        result = ip !== null && this.ipv4Ranges.some((range) => ipInRange(ip, range));
      }
    }
    this.memoReader = context.id;
    this.memoResult = result;
    return result;
  }
}

const addressLists = new Interner<AddressList>();

function remoteAddressHolds(strategy: CompiledStrategy, context: ContextReader): boolean {
  return strategy.addressList !== null && strategy.addressList.holds(context);
}

/** Comma-separated list with whitespace around entries ignored. */
function splitList(list: string | undefined): string[] {
  if (list === undefined || list === '') return [];
  return list.split(',').map((entry) => entry.trim());
}

/** docs/rules.md §3.3: parameter values rendered as strings; objects JSON-encoded; null/undefined → "". */
function normalizeParameters(parameters: unknown): Record<string, string> {
  const normalized: Record<string, string> = {};
  if (!isObject(parameters)) return normalized;
  for (const key of Object.keys(parameters)) {
    const value = parameters[key];
    setOwn(
      normalized,
      key,
      value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value),
    );
  }
  return Object.freeze(normalized);
}
