/**
 * Activation strategies (docs/rules.md §3.8): compiled per flag environment, with their static report
 * fragments, and the activation tests Vane implements.
 */
import { compileConstraints } from './constraints.js';
import { randomIntString, rolloutBucket } from './hash.js';
import { flat, isObject, jsonPrefixBeforeKey, jsonString, setOwn } from './json.js';
import { parseIpRange, ipInRange } from './parse.js';
import { compileStrategyVariants } from './variants.js';
const STRATEGY_KINDS = new Map([
    ['default', 0 /* StrategyKind.Default */],
    ['flexibleRollout', 1 /* StrategyKind.FlexibleRollout */],
    // Unleash's playground lacks userWithId; SDKs implement it (client specification 02, D2).
    ['userWithId', 2 /* StrategyKind.UserWithId */],
    ['gradualRolloutUserId', 3 /* StrategyKind.GradualRolloutUserId */],
    ['gradualRolloutSessionId', 4 /* StrategyKind.GradualRolloutSessionId */],
    ['gradualRolloutRandom', 5 /* StrategyKind.GradualRolloutRandom */],
    ['remoteAddress', 6 /* StrategyKind.RemoteAddress */],
    // `applicationHostname` depends on the SDK host's name, which the server cannot know.
]);
export class CompiledStrategy {
    id;
    name;
    kind;
    disabled;
    /** Parameters with every value rendered as a string, in stored key order. */
    parameters;
    constraints;
    segmentIds;
    /** Null when the strategy has no variants. */
    variants;
    /** flexibleRollout `rollout`, gradual rollouts' `percentage` (Number(), NaN never enables). */
    percentage;
    /** Rollout group: the `groupId` parameter, "" when absent or empty. */
    rolloutGroupId;
    stickiness;
    userIds;
    addresses;
    ipv4Ranges;
    /** Report object head `{name, id, title?, disabled, parameters}` and its JSON up to `"result":`. */
    reportHead;
    reportHeadJson;
    links;
    /** `,"links":{...}}`: closes the strategy report object. */
    reportTailJson;
    /** `,"segments":[]` + reportTailJson, for the common strategy without segments. */
    noSegmentsTailJson;
    /** Serializer cache of rendered report bodies (see serialize.ts). */
    reportMemo = new Map();
    constructor(config, location) {
        const parameters = normalizeParameters(config.parameters);
        const kind = STRATEGY_KINDS.get(config.name) ?? 7 /* StrategyKind.Unimplemented */;
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
        this.percentage = Number(kind === 1 /* StrategyKind.FlexibleRollout */ ? parameters.rollout : parameters.percentage);
        this.rolloutGroupId = parameters.groupId ?? '';
        this.stickiness = parameters.stickiness || 'default';
        this.userIds = new Set(kind === 2 /* StrategyKind.UserWithId */ ? splitList(parameters.userIds) : []);
        const addresses = kind === 6 /* StrategyKind.RemoteAddress */ ? splitList(parameters.IPs) : [];
        this.addresses = new Set(addresses);
        this.ipv4Ranges = addresses
            .map(parseIpRange)
            .filter((range) => range !== null && !range.v6);
        const head = { name: this.name, id: config.id };
        if (typeof config.title === 'string' && config.title !== '')
            head.title = config.title;
        head.disabled = this.disabled;
        head.parameters = parameters;
        this.reportHead = Object.freeze(head);
        this.reportHeadJson = jsonPrefixBeforeKey(head, 'result');
        this.links = Object.freeze({
            edit: `/projects/${location.project}/features/${location.flag}/strategies/edit` +
                `?environmentId=${location.environment}&strategyId=${config.id}`,
        });
        this.reportTailJson = flat(',"links":{"edit":' + jsonString(this.links.edit) + '}}');
        this.noSegmentsTailJson = flat(',"segments":[]' + this.reportTailJson);
    }
}
/** The strategy's own activation test, constraints and segments aside (docs/rules.md §3.8 table). */
export function activationHolds(strategy, context) {
    switch (strategy.kind) {
        case 0 /* StrategyKind.Default */:
            return true;
        case 1 /* StrategyKind.FlexibleRollout */:
            return flexibleRolloutHolds(strategy, context);
        case 2 /* StrategyKind.UserWithId */: {
            const userId = context.topLevel('userId');
            return userId !== undefined && strategy.userIds.has(userId);
        }
        case 3 /* StrategyKind.GradualRolloutUserId */:
            return stickyRolloutHolds(strategy, context.topLevel('userId'));
        case 4 /* StrategyKind.GradualRolloutSessionId */:
            return stickyRolloutHolds(strategy, context.topLevel('sessionId'));
        case 5 /* StrategyKind.GradualRolloutRandom */:
            return strategy.percentage >= 1 + Math.floor(Math.random() * 100);
        case 6 /* StrategyKind.RemoteAddress */:
            return remoteAddressHolds(strategy, context);
        default:
            return false;
    }
}
function flexibleRolloutHolds(strategy, context) {
    if (!(strategy.percentage > 0))
        return false;
    const stickyId = flexibleStickyId(strategy.stickiness, context);
    if (stickyId === undefined)
        return false;
    const groupId = strategy.rolloutGroupId !== '' ? strategy.rolloutGroupId : (context.topLevel('featureToggle') ?? '');
    return rolloutBucket(stickyId, groupId) <= strategy.percentage;
}
/** `default`: userId, else sessionId, else random; `random`: random; else the field (missing → off). */
function flexibleStickyId(stickiness, context) {
    if (stickiness === 'default') {
        return context.topLevel('userId') ?? context.topLevel('sessionId') ?? randomIntString(1, 10001);
    }
    if (stickiness === 'random')
        return randomIntString(1, 10001);
    return context.resolve(stickiness);
}
function stickyRolloutHolds(strategy, stickyId) {
    return stickyId !== undefined && strategy.percentage > 0 && rolloutBucket(stickyId, strategy.rolloutGroupId) <= strategy.percentage;
}
/** Exact entry match, or an IPv4 address inside an IPv4 entry (address or CIDR). */
function remoteAddressHolds(strategy, context) {
    const address = context.topLevel('remoteAddress');
    if (address === undefined)
        return false;
    if (strategy.addresses.has(address))
        return true;
    if (strategy.ipv4Ranges.length === 0)
        return false;
    const ip = context.ipOf('remoteAddress');
    if (ip === null)
        return false;
    for (const range of strategy.ipv4Ranges)
        if (ipInRange(ip, range))
            return true;
    return false;
}
/** Comma-separated list with whitespace around entries ignored. */
function splitList(list) {
    if (list === undefined || list === '')
        return [];
    return list.split(',').map((entry) => entry.trim());
}
/** docs/rules.md §3.3: parameter values rendered as strings; objects JSON-encoded; null/undefined → "". */
function normalizeParameters(parameters) {
    const normalized = {};
    if (!isObject(parameters))
        return normalized;
    for (const key of Object.keys(parameters)) {
        const value = parameters[key];
        setOwn(normalized, key, value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));
    }
    return Object.freeze(normalized);
}
//# sourceMappingURL=strategies.js.map