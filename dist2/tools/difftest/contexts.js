/**
 * Differential tester, part 3: random playground requests (contexts, environments, projects).
 *
 * Contexts mix comma-separated values (split by the advanced endpoint, literal in the deprecated
 * one), numbers and booleans where the schema coerces them, non-string custom fields (dropped with
 * a warning by the advanced endpoint), dates, IPv4/IPv6 addresses and semver strings.
 *
 * Two rules keep every answer deterministic (config.ts explains the generator's side): every
 * context has a non-empty `userId` and a `tenant` property — the fields variant stickiness may use —
 * and no comma-separated value has an empty piece. Top-level non-string custom fields never carry a
 * name a constraint uses (Unleash then throws or compares non-strings; Vane treats them as missing).
 */
import { POOLS, Random } from './config.js';
function commaList(random, pool, p) {
    if (!random.chance(p))
        return random.pick(pool);
    return random.some(pool, random.int(2, 3)).join(random.chance(0.8) ? ',' : ', ');
}
export function generateContext(random) {
    const context = { appName: commaList(random, POOLS.appNames, 0.1) };
    // userId: a string, sometimes a number (coerced), sometimes comma-separated.
    context.userId = random.chance(0.15) ? random.pick([1, 2, 7, 42, 123]) : commaList(random, POOLS.userIds, 0.15);
    if (random.chance(0.6))
        context.sessionId = commaList(random, POOLS.sessionIds, 0.1);
    if (random.chance(0.6))
        context.remoteAddress = random.pick([...POOLS.ipv4, ...POOLS.ipv4, ...POOLS.ipv6, 'not-an-ip', '10.0.0.1 ']);
    if (random.chance(0.5))
        context.currentTime = random.pick([...POOLS.dates, '2024-02-29T10:00:00Z', '2030-06-01T00:00:00.000+02:00']);
    if (random.chance(0.2))
        context.environment = random.pick(['production', 'development', 'staging']);
    const properties = { tenant: commaList(random, POOLS.tenants, 0.15) };
    if (random.chance(0.6))
        properties.region = commaList(random, POOLS.regions, 0.15);
    if (random.chance(0.4))
        properties.plan = random.pick(POOLS.plans);
    if (random.chance(0.5))
        properties.age = random.chance(0.5) ? random.pick([0, 5, 18, 21, 42, 99.5, -3]) : random.pick(POOLS.numbers);
    if (random.chance(0.3))
        properties.score = random.pick([0, 10, 1000, 21.5, '42', 'abc', '1e3', ' 5 ']);
    if (random.chance(0.5))
        properties.version = random.pick([...POOLS.versions, '1.2', 'abc', '2.0.0-beta.2', '1.0.0-alpha']);
    if (random.chance(0.2))
        properties.appVersion = random.pick(POOLS.versions);
    if (random.chance(0.2))
        properties.beta = random.chance(0.5);
    context.properties = properties;
    // Custom fields at top level: strings are found by constraints (they shadow properties).
    if (random.chance(0.15))
        context.tenant = random.pick(POOLS.tenants);
    if (random.chance(0.1))
        context.region = random.pick(POOLS.regions);
    // Non-string custom fields under names no constraint uses: the advanced endpoint warns about them.
    if (random.chance(0.1))
        context.meta = { source: 'difftest', n: 1 };
    if (random.chance(0.1))
        context.count = random.int(0, 9);
    if (random.chance(0.05))
        context.flags = [1, 2];
    return context;
}
function projectsChoice(random, projects) {
    switch (random.int(0, 5)) {
        case 0:
            return undefined;
        case 1:
            return '*';
        case 2:
            return ['default'];
        case 3:
            return random.some(projects, random.int(1, projects.length));
        default:
            return projects.slice();
    }
}
/** `count` requests for both endpoints; `projects` are the configuration's project ids. */
export function generateCases(seed, count, projects) {
    const random = new Random(seed * 104729 + 3);
    const cases = [];
    for (let i = 0; i < count; i++) {
        const context = generateContext(random);
        const deprecated = { environment: random.pick(['development', 'production']), context };
        const projectsDeprecated = projectsChoice(random, projects);
        if (projectsDeprecated !== undefined)
            deprecated.projects = projectsDeprecated;
        const advanced = {
            environments: random.pick([['development'], ['production'], ['development', 'production'], ['production', 'development'], ['development', 'staging']]),
            context,
        };
        const projectsAdvanced = projectsChoice(random, projects);
        if (projectsAdvanced !== undefined)
            advanced.projects = projectsAdvanced;
        cases.push({ deprecated, advanced });
    }
    return cases;
}
/**
 * Contexts for the SDK surfaces (sdk-run.ts): `generateContext`'s, from their own random stream,
 * with a quarter missing `userId` and a tenth missing `appName`. Without a `userId` (and a
 * `sessionId`, which the frontend API then draws at random) some answers are random: the tester
 * detects those by asking twice instead of avoiding them.
 */
export function generateSdkContexts(seed, count) {
    const random = new Random(seed * 15485863 + 11);
    return Array.from({ length: count }, () => {
        const context = generateContext(random);
        if (random.chance(0.25))
            delete context.userId;
        if (random.chance(0.1))
            delete context.appName;
        return context;
    });
}
//# sourceMappingURL=contexts.js.map