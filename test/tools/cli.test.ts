/**
 * Every program in bench/ and tools/ answers `--help` with its usage (exit 0), and an option it
 * does not know with what is wrong and the usage (exit 2), not a stack trace. They all read their
 * command line through tools/cli.ts; the scan below keeps a new program from reading it another way.
 */
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { asksForHelp } from '../../tools/cli.js';

const dist = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const root = resolve(dist, '..');

/** The programs: run by an npm script, by hand, or by another program as a process of its own. */
const PROGRAMS = [
  'bench/admin', 'bench/engine', 'bench/event-index', 'bench/events', 'bench/frontend-dispatch', 'bench/impact', 'bench/import',
  'bench/ofrep', 'bench/playground', 'bench/profile-stages', 'bench/readers', 'bench/replay', 'bench/request-overhead', 'bench/scale',
  'bench/sdk', 'bench/sequential', 'bench/state-memory', 'bench/stream-clients', 'bench/ui-pages',
  'tools/difftest/record-admin', 'tools/difftest/record-calls', 'tools/difftest/record-frontend', 'tools/difftest/record-permissions',
  'tools/difftest/record-webhooks', 'tools/difftest/run', 'tools/openapi/compare', 'tools/openapi/record', 'tools/soak/run',
  'tools/ui-actions/record',
];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

interface Run { code: number | null; stdout: string; stderr: string }

function run(program: string, args: string[]): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(dist, `${program}.js`), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', fail);
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}

t.test('asksForHelp: --help or -h before the end of options', async (t) => {
  t.ok(asksForHelp(['--help']));
  t.ok(asksForHelp(['--flags', '100', '-h']));
  t.notOk(asksForHelp(['--', '--help']), 'after -- it is an argument');
  t.notOk(asksForHelp(['--helpful']));
});

t.test('every npm script that runs a program names one of PROGRAMS', async (t) => {
  const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  for (const [name, script] of Object.entries(scripts)) {
    for (const m of script.matchAll(/node dist\/((?:bench|tools)\/\S+)\.js/g)) t.ok(PROGRAMS.includes(m[1]!), `${name}: ${m[1]}`);
  }
});

t.test('no program in bench/ or tools/ reads its arguments around tools/cli.ts', async (t) => {
  for (const file of [...sources(join(root, 'bench')), ...sources(join(root, 'tools'))]) {
    const name = relative(root, file);
    if (name === join('tools', 'cli.ts')) continue;
    // process.argv[1] is how a module tells whether it is the program being run; anything else reads arguments.
    const reads = /\bparseArgs\(|process\.argv(?!\[1\])/.exec(readFileSync(file, 'utf8'));
    t.equal(reads, null, `${name} reads its command line through tools/cli.ts`);
  }
  for (const program of PROGRAMS) {
    t.match(readFileSync(join(root, `${program}.ts`), 'utf8'), /\bcommandLine\(/, `${program} calls commandLine`);
  }
});

/**
 * Programs asked for an unknown option: one with options only, one with positional arguments, one
 * whose command line is read in its main(). The others parse the same way (the scan above), so
 * these three are enough; each run is a Node process loading its program, up to the whole app.
 */
const UNKNOWN_OPTION = ['bench/scale', 'bench/engine', 'tools/soak/run'];

t.test('--help prints the usage and exits 0; an unknown option prints it and exits 2', async (t) => {
  const checks = [
    ...PROGRAMS.map((program) => async () => {
      const { code, stdout } = await run(program, ['--help']);
      t.equal(code, 0, `${program} --help exits 0`);
      t.match(stdout, /^Usage: node /, `${program} --help prints its usage`);
    }),
    ...UNKNOWN_OPTION.map((program) => async () => {
      const { code, stdout, stderr } = await run(program, ['--no-such-option']);
      t.equal(code, 2, `${program} --no-such-option exits 2`);
      t.equal(stdout, '', `${program} prints nothing on stdout`);
      t.match(stderr, /Unknown option '--no-such-option'[\s\S]*\nUsage: node /, `${program} says what is wrong, then the usage`);
      t.notMatch(stderr, /\n\s+at /, `${program} prints no stack trace`);
    }),
  ];
  // Four at a time.
  const next = async (): Promise<void> => {
    for (let check = checks.shift(); check; check = checks.shift()) await check();
  };
  await Promise.all([next(), next(), next(), next()]);
});
