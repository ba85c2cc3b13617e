/**
 * tools/difftest/coverage.ts: which of the reference's operations the differential tester sends.
 */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { coverage, generatedCalls, referenceOperations, SURFACE_CALLS } from '../../tools/difftest/coverage.js';

const root = new URL('../../../', import.meta.url);

t.test('a call counts for the template it fits, the one with the fewest parameters first', async (t) => {
  const result = coverage(
    ['GET /api/admin/features/{name}', 'POST /api/admin/features/validate', 'POST /api/admin/features/{name}/tags', 'DELETE /api/admin/features/{name}'],
    ['POST /api/admin/features/validate', 'GET /api/admin/features/a.b', 'POST /api/admin/features/{ref:x}/tags'],
  );
  t.same(result.covered, ['GET /api/admin/features/{name}', 'POST /api/admin/features/validate', 'POST /api/admin/features/{name}/tags']);
  t.same(result.uncovered, ['DELETE /api/admin/features/{name}']);
});

t.test('the surfaces\' fixed calls are still made by their sources', async (t) => {
  const sources = ['tools/difftest/run.ts', 'tools/difftest/sdk-run.ts'].map((file) => readFileSync(new URL(file, root), 'utf8')).join('\n');
  for (const call of SURFACE_CALLS) t.ok(sources.includes(call.split(' ')[1]!), call);
});

t.test('every seed generates, and the count does not fall', async (t) => {
  const result = coverage(referenceOperations(), generatedCalls(40));
  t.equal(result.total, 211);
  t.ok(result.covered.length >= 114, `the differential tester sends ${result.covered.length} of the 211 operations`);
});
