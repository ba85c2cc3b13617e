/**
 * Which of Unleash 8.2's operations (test/fixtures/openapi/unleash-operations.json) the
 * differential tester sends to both servers: the configurations' writes (config.ts), the admin
 * sequences (admin-run.ts) over many seeds, and the fixed calls of the surfaces compared with the
 * reference (run.ts's playgrounds, sdk-run.ts's SDK reads; test/tools/difftest-coverage.test.ts
 * checks each still appears in their source). `node dist/tools/difftest/coverage.js [--seeds N]`
 * prints the count and the operations never sent.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { commandLine } from '../cli.js';
import { generateAdminSequence } from './admin-run.js';
import { generateConfiguration } from './config.js';

/** The calls of the surfaces compared with the reference outside the admin sequence, as `METHOD path`. */
export const SURFACE_CALLS = [
  'POST /api/admin/playground', 'POST /api/admin/playground/advanced',
  'GET /api/client/features', 'GET /api/frontend', 'POST /api/frontend',
] as const;

export interface Coverage {
  total: number;
  covered: string[];
  uncovered: string[];
}

/** An operation's path template as a pattern over concrete paths (a parameter is one segment). */
function patternOf(key: string): { method: string; path: RegExp } {
  const [method, template] = key.split(' ') as [string, string];
  const escaped = template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
  return { method, path: new RegExp(`^${escaped.join('[^/]+')}$`) };
}

/** The calls the tester sends for `seeds` seeds, as `METHOD path` (no query). */
export function generatedCalls(seeds: number): string[] {
  const calls = new Set<string>(SURFACE_CALLS);
  for (let seed = 1; seed <= seeds; seed++) {
    for (const request of generateConfiguration(seed, { flags: 30 })) calls.add(`${request.method} ${request.path}`);
    for (const call of generateAdminSequence(seed)) calls.add(`${call.method} ${call.path}`);
  }
  return [...calls].map((call) => call.split('?')[0]!);
}

export function coverage(operationKeys: readonly string[], calls: readonly string[]): Coverage {
  const patterns = operationKeys.map((key) => ({ key, ...patternOf(key) }));
  // A concrete path may fit several templates (`/features/{name}` and `/features/validate`): the
  // one with the fewest parameters is the route a server picks.
  const covered = new Set<string>();
  for (const call of calls) {
    const [method, path] = call.split(' ') as [string, string];
    const fits = patterns.filter((p) => p.method === method && p.path.test(path));
    fits.sort((a, b) => a.key.split('{').length - b.key.split('{').length);
    if (fits[0]) covered.add(fits[0].key);
  }
  return {
    total: operationKeys.length,
    covered: operationKeys.filter((key) => covered.has(key)),
    uncovered: operationKeys.filter((key) => !covered.has(key)),
  };
}

export function referenceOperations(): string[] {
  const file = new URL('../../../test/fixtures/openapi/unleash-operations.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { operations: Array<{ key: string }> }).operations.map((op) => op.key);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = commandLine(`
Usage: node dist/tools/difftest/coverage.js [--seeds N]

The operations of Unleash 8.2's OpenAPI document the differential tester sends to both servers
(its configurations and admin sequences for seeds 1..N, and its fixed surface calls).
`, { options: { seeds: { type: 'string', default: '40' } } });
  const result = coverage(referenceOperations(), generatedCalls(Number(values.seeds)));
  console.log(`the differential tester sends ${result.covered.length} of the ${result.total} operations; never:`);
  for (const key of result.uncovered) console.log(`  ${key}`);
}
