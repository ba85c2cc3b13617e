/**
 * Export and import of a whole configuration, Vane beside the Unleash reference in one run:
 *
 *   npm run bench:import -- [--flags 5000] [--rounds 3]
 *
 * Both servers are loaded with bench/seed.ts's configuration of `--flags` flags through the batch
 * import. Export: `POST /api/admin/features-batch/export` of project `default`, one request per
 * environment, timed on each server, rounds alternating. Import: the reference's export file, into
 * a server started on an empty database (its segments created first: an import names them), in
 * requests under both servers' 500 kB body limit (parents before their children), one environment
 * after the other; a new empty server per round.
 * Reported: the median time of each, and the ratio.
 */
import { commandLine } from '../tools/cli.js';
import { REFERENCE_ENVIRONMENT, startReference, startVane, stopReference, type StartedVane } from './servers.js';
import { fetchAgainOnStaleSocket, importSeed, SEED_PREFIX, seedSegments, withPersonalToken, type Target } from './seed.js';

const { values } = commandLine(`
Usage: node dist/bench/import.js [--flags N] [--rounds N]   (npm run bench:import -- …)

Times exporting bench/seed.ts's configuration from Vane and from the Unleash reference, and
importing the reference's export into each, started empty; rounds alternate the servers.

  --flags N    flags in the configuration (default 5000)
  --rounds N   timed rounds per server (default 3)

${REFERENCE_ENVIRONMENT}
`, {
  options: { flags: { type: 'string', default: '5000' }, rounds: { type: 'string', default: '3' } },
});
const FLAGS = Number(values.flags);
const ROUNDS = Number(values.rounds);
const ENVIRONMENTS = ['development', 'production'];
/** Under both servers' JSON body limit of 500 kB (measured on the reference: 481 kB answered, 524 kB 413). */
const MAX_REQUEST_BYTES = 450_000;
/** Vane's first admin in these runs (the reference's `admin` / `unleash4all` is too weak for Vane's rules). */
const VANE_ADMIN = { username: 'admin', password: 'Bench-Import-Admin-1' };

interface ExportFile {
  features: Array<{ name: string }>;
  featureStrategies: Array<{ featureName: string }>;
  featureEnvironments?: Array<{ featureName?: string; name: string }>;
  featureTags?: Array<{ featureName: string }>;
  dependencies?: Array<{ feature: string }>;
  links?: Array<{ feature: string }>;
  [key: string]: unknown;
}

async function post(target: Target, path: string, body: unknown): Promise<{ ms: number; text: string }> {
  const started = performance.now();
  const text = JSON.stringify(body);
  const res = await fetchAgainOnStaleSocket(target.url + path, {
    method: 'POST', headers: { authorization: target.token, 'content-type': 'application/json' }, body: text,
  }).catch((err: unknown) => {
    throw new Error(`${target.name} POST ${path} (${text.length} bytes): ${String(err)}`, { cause: err });
  });
  const answer = await res.text();
  const ms = performance.now() - started;
  if (res.status >= 300) throw new Error(`${target.name} POST ${path} → ${res.status} ${answer.slice(0, 300)}`);
  return { ms, text: answer };
}

/** Both environments' exports of project `default`, and the time they took together. */
async function exportAll(target: Target): Promise<{ ms: number; files: Map<string, ExportFile> }> {
  let ms = 0;
  const files = new Map<string, ExportFile>();
  for (const environment of ENVIRONMENTS) {
    const res = await post(target, '/api/admin/features-batch/export', { environment, project: 'default' });
    ms += res.ms;
    files.set(environment, JSON.parse(res.text) as ExportFile);
  }
  return { ms, files };
}

/**
 * The file as import requests under MAX_REQUEST_BYTES: flags without a parent first, each request
 * carrying its flags' strategies, environments, tags, dependencies and links, and everything else
 * (segments, context fields, tag types) whole.
 */
function requests(file: ExportFile): ExportFile[] {
  const ofFlag = <T>(items: T[] | undefined, name: (item: T) => string | undefined) => {
    const by = new Map<string, T[]>();
    for (const item of items ?? []) {
      const key = name(item) ?? '';
      const list = by.get(key);
      if (list) list.push(item);
      else by.set(key, [item]);
    }
    return by;
  };
  const strategies = ofFlag(file.featureStrategies, (s) => s.featureName);
  const environments = ofFlag(file.featureEnvironments, (e) => e.featureName ?? e.name);
  const tags = ofFlag(file.featureTags, (t) => t.featureName);
  const dependencies = ofFlag(file.dependencies, (d) => d.feature);
  const links = ofFlag(file.links, (l) => l.feature);
  const { features: _f, featureStrategies: _s, featureEnvironments: _e, featureTags: _t, dependencies: _d, links: _l, ...whole } = file;
  const ordered = [...file.features].sort((a, b) => Number(dependencies.has(a.name)) - Number(dependencies.has(b.name)));
  const out: ExportFile[] = [];
  let current: ExportFile = { ...whole, features: [], featureStrategies: [], featureEnvironments: [], featureTags: [], dependencies: [], links: [] };
  let size = JSON.stringify(current).length;
  for (const feature of ordered) {
    const parts = {
      strategies: strategies.get(feature.name) ?? [], environments: environments.get(feature.name) ?? [], tags: tags.get(feature.name) ?? [],
      dependencies: dependencies.get(feature.name) ?? [], links: links.get(feature.name) ?? [],
    };
    const bytes = JSON.stringify([feature, parts]).length;
    if (current.features.length > 0 && size + bytes > MAX_REQUEST_BYTES) {
      out.push(current);
      current = { ...whole, features: [], featureStrategies: [], featureEnvironments: [], featureTags: [], dependencies: [], links: [] };
      size = JSON.stringify(current).length;
    }
    current.features.push(feature);
    current.featureStrategies.push(...parts.strategies);
    current.featureEnvironments!.push(...parts.environments);
    current.featureTags!.push(...parts.tags);
    current.dependencies!.push(...parts.dependencies);
    current.links!.push(...parts.links);
    size += bytes;
  }
  out.push(current);
  return out;
}

/** Into an empty server: the segments first (an import names them; both refuse unknown ones), untimed. */
async function importAll(target: Target, files: Map<string, ExportFile>): Promise<{ ms: number; requests: number }> {
  await seedSegments(target, SEED_PREFIX);
  let ms = 0;
  let count = 0;
  for (const environment of ENVIRONMENTS) {
    for (const data of requests(files.get(environment)!)) {
      ms += (await post(target, '/api/admin/features-batch/import', { project: 'default', environment, data })).ms;
      count++;
    }
  }
  return { ms, requests: count };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const vaneEnv = { INIT_ADMIN_USER: VANE_ADMIN.username, INIT_ADMIN_PASSWORD: VANE_ADMIN.password };

stopReference();
process.stdout.write(`loading ${FLAGS} flags into both servers…\n`);
let reference = startReference({ fresh: true }).target;
await importSeed(reference, SEED_PREFIX, { flags: FLAGS });
let vane: StartedVane = await startVane({ name: 'export', env: vaneEnv });
await importSeed(vane.target, SEED_PREFIX, { flags: FLAGS, login: VANE_ADMIN });

const exports = { vane: [] as number[], reference: [] as number[] };
const referencePat = await withPersonalToken(reference);
const vanePat = await withPersonalToken(vane.target, VANE_ADMIN);
let file = new Map<string, ExportFile>();
for (let round = 0; round < ROUNDS; round++) {
  const r = await exportAll(referencePat);
  exports.reference.push(r.ms);
  file = r.files;
  exports.vane.push((await exportAll(vanePat)).ms);
  process.stdout.write(`export round ${round + 1}: Vane ${seconds(exports.vane.at(-1)!)}, reference ${seconds(exports.reference.at(-1)!)}\n`);
}
await vane.cleanup();

const imports = { vane: [] as number[], reference: [] as number[] };
let importRequests = 0;
for (let round = 0; round < ROUNDS; round++) {
  reference = startReference({ fresh: true }).target;
  const referenceImport = await importAll(await withPersonalToken(reference), file);
  imports.reference.push(referenceImport.ms);
  importRequests = referenceImport.requests;
  stopReference();
  vane = await startVane({ name: `import${round}`, env: vaneEnv });
  imports.vane.push((await importAll(await withPersonalToken(vane.target, VANE_ADMIN), file)).ms);
  await vane.cleanup();
  process.stdout.write(`import round ${round + 1}: Vane ${seconds(imports.vane.at(-1)!)}, reference ${seconds(imports.reference.at(-1)!)}\n`);
}

const flagsInFile = file.get(ENVIRONMENTS[0]!)!.features.length;
process.stdout.write(`
| ${flagsInFile} flags, 2 environments | Vane (median) | Unleash 8.2 (median) | Vane's share of the reference's time |
|---|---|---|---|
| export (2 requests) | ${seconds(median(exports.vane))} | ${seconds(median(exports.reference))} | ${(median(exports.vane) / median(exports.reference)).toFixed(2)} |
| import into an empty server (${importRequests} requests) | ${seconds(median(imports.vane))} | ${seconds(median(imports.reference))} | ${(median(imports.vane) / median(imports.reference)).toFixed(2)} |

(${ROUNDS} rounds per server, alternating; node ${process.version})
`);
