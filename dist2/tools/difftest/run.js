/**
 * Differential tester: `npm run difftest -- --seed N --contexts 300 --vane URL --peer URL`.
 *
 * 1. Builds configuration N (config.ts) on both servers with the identical request sequence and
 *    compares every status.
 * 2. Asks both playground endpoints (`POST /api/admin/playground` and `/advanced`) the same random
 *    requests (contexts.ts) and compares the bodies after normalising server-generated ids.
 * 3. Prints the differing responses grouped by kind (the generalised first differing paths) and
 *    writes every difference with its request to `--out` (default /tmp/difftest-seed-N.json).
 *
 * Both servers should be fresh: strategy types are created once per server, and segment ids must
 * start equal. The open-source reference cannot create projects through its API; with `--peer-db`
 * the tester inserts them into its database (the rows `POST /api/admin/projects` would make).
 * Exit code 1 when anything differs.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { applyConfiguration, generateConfiguration } from './config.js';
import { generateCases } from './contexts.js';
import { differences, kindOf, normaliseBody } from './compare.js';
import { compareSdkSurfaces, parseSurfaces, SURFACES } from './sdk-run.js';
const { values: args } = parseArgs({
    options: {
        seed: { type: 'string', default: '1' },
        flags: { type: 'string', default: '100' },
        contexts: { type: 'string', default: '300' },
        vane: { type: 'string', default: 'http://127.0.0.1:4242' },
        peer: { type: 'string', default: 'http://127.0.0.1:4301' },
        'vane-token': { type: 'string', default: '*:*.peer-admin-token' },
        'peer-token': { type: 'string', default: '*:*.peer-admin-token' },
        'peer-db': { type: 'string' },
        'skip-apply': { type: 'boolean', default: false },
        /** Comma-separated: playground and the SDK surfaces of sdk-run.ts (default: all). */
        surfaces: { type: 'string', default: ['playground', ...SURFACES].join(',') },
        out: { type: 'string' },
    },
});
const seed = Number(args.seed);
const out = args.out ?? `/tmp/difftest-seed-${seed}.json`;
/** Inserts a project into the reference's PostgreSQL (as root through `runuser -u postgres`). */
function peerProjectCreator(database) {
    const port = execFileSync('sh', ['-c', `pg_lsclusters -h | awk '$2=="main"{print $3; exit}'`]).toString().trim();
    return async (id, name) => {
        const quote = (text) => `'${text.replace(/'/g, "''")}'`;
        const sql = `INSERT INTO projects(id, name) VALUES (${quote(id)}, ${quote(name)});` +
            `INSERT INTO project_environments(project_id, environment_name) VALUES (${quote(id)}, 'development'), (${quote(id)}, 'production');` +
            `INSERT INTO project_settings(project) VALUES (${quote(id)});`;
        try {
            execFileSync('runuser', ['-u', 'postgres', '--', 'psql', '-p', port, '-d', database, '-v', 'ON_ERROR_STOP=1', '-qtA', '-c', sql], { stdio: 'pipe' });
            return 201;
        }
        catch {
            return 409;
        }
    };
}
async function post(base, token, path, body) {
    const res = await fetch(base + path, {
        method: 'POST',
        headers: { authorization: token, 'content-type': 'application/json' },
        body: JSON.stringify(body),
    });
    const text = await res.text();
    let json = text;
    try {
        json = JSON.parse(text);
    }
    catch {
        // compared as text
    }
    return { status: res.status, json, text };
}
async function main() {
    const requests = generateConfiguration(seed, { flags: Number(args.flags) });
    const projects = [
        'default',
        ...requests.filter((r) => r.path === '/api/admin/projects').map((r) => r.body.id),
    ];
    let statusDifferences = 0;
    if (!args['skip-apply']) {
        const started = Date.now();
        const bodies = { vane: [], peer: [] };
        const vane = await applyConfiguration(args.vane, args['vane-token'], requests, {
            onResponse: (i, _r, _s, body) => (bodies.vane[i] = body),
        });
        const peer = await applyConfiguration(args.peer, args['peer-token'], requests, {
            onResponse: (i, _r, _s, body) => (bodies.peer[i] = body),
            ...(args['peer-db'] ? { createProject: peerProjectCreator(args['peer-db']) } : {}),
        });
        requests.forEach((request, i) => {
            if (vane[i] === peer[i])
                return;
            statusDifferences++;
            console.log(`status differs at request ${i}: ${request.method} ${request.path} ${JSON.stringify(request.body ?? null).slice(0, 300)}`);
            console.log(`  vane ${vane[i]} ${bodies.vane[i].slice(0, 300)}`);
            console.log(`  peer ${peer[i]} ${bodies.peer[i].slice(0, 300)}`);
        });
        console.log(`seed ${seed}: ${requests.length} admin requests, ${statusDifferences} status differences (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    }
    const wanted = args.surfaces.split(',').map((s) => s.trim());
    const playground = wanted.includes('playground') ? await comparePlayground(requests, projects) : { compared: 0, findings: [] };
    const sdkSurfaces = parseSurfaces(wanted.filter((s) => s !== 'playground').join(','));
    const flags = requests.filter((r) => r.method === 'POST' && /^\/api\/admin\/projects\/[^/]+\/features$/.test(r.path)).map((r) => r.body.name);
    let sdkFindings = [];
    if (sdkSurfaces.length > 0) {
        const started = Date.now();
        const { summary, findings, skipped } = await compareSdkSurfaces({
            seed, contexts: Number(args.contexts), flags, surfaces: sdkSurfaces,
            base: { vane: args.vane, peer: args.peer }, adminToken: { vane: args['vane-token'], peer: args['peer-token'] },
        });
        sdkFindings = findings;
        for (const line of skipped)
            console.log(`  skipped: ${line}`);
        console.log(`seed ${seed}: SDK surfaces, ${args.contexts} contexts × 2 environments, ${flags.length} flags (${((Date.now() - started) / 1000).toFixed(0)} s)`);
        for (const [surface, s] of summary) {
            console.log(`  ${surface.padEnd(17)} ${String(s.questions).padStart(4)} questions, ${String(s.compared).padStart(6)} flag answers compared, ${String(s.random).padStart(5)} random, ${String(s.differing).padStart(4)} differ (in ${s.differingQuestions} questions)`);
        }
        const byKind = new Map();
        for (const finding of findings) {
            for (const difference of finding.differences) {
                const kind = `${finding.surface} ${difference.flag}`;
                const entry = byKind.get(kind);
                if (entry)
                    entry.count++;
                else
                    byKind.set(kind, { count: 1, example: finding });
            }
        }
        for (const [kind, { count, example }] of [...byKind].sort((a, b) => b[1].count - a[1].count).slice(0, 30)) {
            const difference = example.differences.find((d) => `${example.surface} ${d.flag}` === kind);
            console.log(`  ${String(count).padStart(5)}  ${kind}: e.g. case ${example.case} ${example.environment} peer ${difference.peer?.slice(0, 160)} vane ${difference.vane?.slice(0, 160)}`);
        }
    }
    writeFileSync(out, JSON.stringify({ seed, compared: playground.compared, statusDifferences, findings: playground.findings, sdkFindings }, null, 1));
    if (playground.findings.length > 0 || sdkFindings.length > 0)
        console.log(`details: ${out}`);
    process.exitCode = playground.findings.length > 0 || sdkFindings.length > 0 || statusDifferences > 0 ? 1 : 0;
}
/** Both playground endpoints asked the same random requests (contexts.ts `generateCases`). */
async function comparePlayground(requests, projects) {
    const cases = generateCases(seed, Number(args.contexts), projects);
    const findings = [];
    const kinds = new Map();
    let compared = 0;
    for (const [index, playgroundCase] of cases.entries()) {
        for (const [endpoint, path, body] of [
            ['deprecated', '/api/admin/playground', playgroundCase.deprecated],
            ['advanced', '/api/admin/playground/advanced', playgroundCase.advanced],
        ]) {
            const [vane, peer] = await Promise.all([
                post(args.vane, args['vane-token'], path, body),
                post(args.peer, args['peer-token'], path, body),
            ]);
            compared++;
            const found = differences(normaliseBody(peer.json), normaliseBody(vane.json), 8);
            if (vane.status !== peer.status)
                found.unshift({ path: '<status>', what: 'value', expected: peer.status, actual: vane.status });
            if (found.length === 0)
                continue;
            const finding = { case: index, endpoint, request: body, status: [peer.status, vane.status], differences: found };
            findings.push(finding);
            // A response counts once per kind, under each kind it shows.
            for (const kind of new Set(found.map((difference) => kindOf(endpoint, difference)))) {
                const entry = kinds.get(kind);
                if (entry)
                    entry.count++;
                else
                    kinds.set(kind, { count: 1, example: finding });
            }
        }
    }
    console.log(`seed ${seed}: ${compared} playground responses compared (${cases.length} contexts × 2 endpoints), ${findings.length} differ`);
    for (const [kind, { count, example }] of [...kinds].sort((a, b) => b[1].count - a[1].count)) {
        const first = example.differences.find((difference) => kindOf(example.endpoint, difference) === kind);
        console.log(`  ${String(count).padStart(5)}  ${kind}`);
        console.log(`         e.g. case ${example.case} ${first.path}: peer ${JSON.stringify(first.expected)?.slice(0, 200)} vane ${JSON.stringify(first.actual)?.slice(0, 200)}`);
    }
    return { compared, findings };
}
await main();
//# sourceMappingURL=run.js.map