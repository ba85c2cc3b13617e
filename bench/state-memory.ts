/**
 * Memory the configuration state (src/db/state.ts) costs per 1 000 flags: builds the flag
 * documents the bench configuration stores (bench/seed.ts: 1–3 strategies with constraints per
 * environment, strategy variants on every other flag, environment variants on every fifth),
 * applies them to a state as writes would, and compares the heap before and after (forced GC).
 * Run by bench/admin.ts: node --expose-gc dist/bench/state-memory.js [flags]
 */
import { CollectionMirror } from '../src/db/state.js';
import type { StoredDocument } from '../src/db/outbox/index.js';
import { commandLine, usageError } from '../tools/cli.js';

const USAGE = `
Usage: node --expose-gc dist/bench/state-memory.js [flags]

The heap the configuration state costs for [flags] flags shaped like bench/seed.ts's (default 1000),
printed as JSON ({heapBytes, jsonBytes}). Run by bench/admin.ts.
`;
const { positionals } = commandLine(USAGE, { allowPositionals: true });
const count = Number(positionals[0] ?? 1000);
if (positionals.length > 1 || !Number.isInteger(count) || count < 1) usageError(USAGE, 'expected one number of flags');
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

function constraint(i: number) {
  const kinds = [
    { contextName: 'userId', operator: 'IN', values: ['1', '2', '3', '123', '77'] },
    { contextName: 'email', operator: 'STR_CONTAINS', values: ['@example'], caseInsensitive: true },
    { contextName: 'age', operator: 'NUM_GT', value: '18', values: [] },
    { contextName: 'version', operator: 'SEMVER_GT', value: '1.2.3', values: [] },
  ];
  return { ...kinds[i % kinds.length]!, inverted: false, caseInsensitive: false };
}

function flag(i: number): StoredDocument {
  const name = `memory.flag.${i}`;
  const environments: Record<string, unknown> = {};
  const strategyIds: string[] = [];
  for (const env of ['development', 'production']) {
    const strategies = Array.from({ length: 1 + (i % 3) }, (_, k) => {
      const id = `${i}-${env}-${k}-0123456789abcdef`;
      strategyIds.push(id);
      return {
        id, name: 'flexibleRollout', title: null, disabled: false, sortOrder: k,
        parameters: { rollout: String(20 + k), stickiness: 'default', groupId: name },
        constraints: [constraint(i + k), constraint(i + k + 1)],
        variants: i % 2 === 0
          ? [{ name: 'red', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'r' } },
              { name: 'blue', weight: 500, weightType: 'variable', stickiness: 'default' }]
          : [],
        segments: i % 4 === 0 ? [1 + (i % 5)] : [],
      };
    });
    const variants = i % 5 === 0
      ? [{ name: 'a', weight: 340, weightType: 'variable', stickiness: 'default', overrides: [{ contextName: 'userId', values: ['1'] }] },
          { name: 'b', weight: 330, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: '{"x":1}' } },
          { name: 'c', weight: 330, weightType: 'fix', stickiness: 'default' }]
      : [];
    environments[env] = { enabled: true, strategies, variants };
  }
  return {
    _id: name, name, project: 'default', description: `bench flag ${i}`, type: 'release', impressionData: false, stale: false,
    archived: false, archivedAt: null, createdAt: new Date(), createdBy: { id: -42, name: 'Unleash Admin Token User' }, tags: [],
    lifecycle: { stage: 'live', enteredStageAt: new Date() }, dependencies: i % 10 === 9 ? [{ feature: `memory.flag.${i - 1}`, enabled: true }] : [],
    environments, strategyIds, _rev: 8,
  };
}

// The mirror a state creates for a collection: nothing here reads or writes the database.
const mirror = new CollectionMirror<StoredDocument>('flags', () => undefined);
gc();
const before = process.memoryUsage().heapUsed;
for (let i = 0; i < count; i++) mirror.written(`memory.flag.${i}`, flag(i));
gc();
const after = process.memoryUsage().heapUsed;
const bytes = JSON.stringify([...mirror.values()]).length;
process.stdout.write(JSON.stringify({ flags: count, heapBytes: after - before, jsonBytes: bytes }));
