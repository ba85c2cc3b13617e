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
    writeFileSync(out, JSON.stringify({ seed, compared, statusDifferences, findings }, null, 1));
    console.log(`seed ${seed}: ${compared} responses compared (${cases.length} contexts × 2 endpoints), ${findings.length} differ`);
    for (const [kind, { count, example }] of [...kinds].sort((a, b) => b[1].count - a[1].count)) {
        const first = example.differences.find((difference) => kindOf(example.endpoint, difference) === kind);
        console.log(`  ${String(count).padStart(5)}  ${kind}`);
        console.log(`         e.g. case ${example.case} ${first.path}: peer ${JSON.stringify(first.expected)?.slice(0, 200)} vane ${JSON.stringify(first.actual)?.slice(0, 200)}`);
    }
    if (findings.length > 0)
        console.log(`details: ${out}`);
    process.exitCode = findings.length > 0 || statusDifferences > 0 ? 1 : 0;
}
await main();
//# sourceMappingURL=run.js.map