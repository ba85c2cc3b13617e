/**
 * Feature folders must not import each other in a cycle: a cycle makes module load order matter
 * (an import is `undefined` while its module is still evaluating) and means neither folder can be
 * understood or moved alone. Wiring that needs several features lives beside the folders
 * (src/features/sdk-api.ts, src/composition.ts, src/app.ts).
 *
 * Type imports count too: the compiler erases them, but a reader still needs the other folder to
 * understand this one. And a feature's store is its write model: other features read it through
 * a read model (the provider's `read-model.ts` or the asker's `sources.ts`), never its `store.ts`.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const featuresDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../../src/features');

/** Folder → folder → one file that makes the edge (for the failure message). */
type FolderGraph = Map<string, Map<string, string>>;

/**
 * Relative specifiers a source file imports, types included. Covers `import … from`,
 * `export … from` (with or without `type`), side-effect `import '…'` and `import('…')`.
 */
function imports(source: string): string[] {
  const found: string[] = [];
  const statement = /^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?'(\.[^']*)'/gm;
  for (const m of source.matchAll(statement)) found.push(m[1]!);
  for (const m of source.matchAll(/\bimport\(\s*'(\.[^']*)'\s*\)/g)) found.push(m[1]!);
  return found;
}

function folderGraph(root: string): FolderGraph {
  const graph: FolderGraph = new Map();
  const folderOf = (file: string): string | undefined => {
    const parts = relative(root, file).split(sep);
    return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined;
  };
  const visit = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) visit(path);
      else if (name.endsWith('.ts')) {
        const from = folderOf(path);
        if (!from) continue;
        for (const spec of imports(readFileSync(path, 'utf8'))) {
          const to = folderOf(resolve(dirname(path), spec));
          if (!to || to === from) continue;
          if (!graph.has(from)) graph.set(from, new Map());
          graph.get(from)!.set(to, relative(root, path));
        }
      }
    }
  };
  visit(root);
  return graph;
}

/** A cycle as [a, b, …, a], or undefined: depth-first search with an on-stack set. */
function findCycle(graph: FolderGraph): string[] | undefined {
  const done = new Set<string>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const visit = (node: string): string[] | undefined => {
    if (onStack.has(node)) return [...stack.slice(stack.indexOf(node)), node];
    if (done.has(node)) return undefined;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    onStack.delete(node);
    done.add(node);
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

t.test('the import scanner counts type imports too', async (t) => {
  const source = [
    "import type { A } from '../a/store.js';",
    "import { type B, c } from '../b/service.js';",
    "export { d } from '../d/index.js';",
    "export type { E } from '../e/types.js';",
    "import {\n  f,\n  g,\n} from '../f/routes.js';",
    "import '../g/side-effect.js';",
    "const h = await import('../h/lazy.js');",
    "import { Type } from 'typebox';",
  ].join('\n');
  t.same(imports(source), [
    '../a/store.js', '../b/service.js', '../d/index.js', '../e/types.js', '../f/routes.js', '../g/side-effect.js', '../h/lazy.js',
  ]);
});

t.test('the cycle finder finds a cycle through three folders and none in a diamond', async (t) => {
  const graph = (edges: Array<[string, string]>): FolderGraph => {
    const g: FolderGraph = new Map();
    for (const [a, b] of edges) g.set(a, (g.get(a) ?? new Map()).set(b, `${a}/x.ts`));
    return g;
  };
  t.same(findCycle(graph([['a', 'b'], ['b', 'c'], ['c', 'a']])), ['a', 'b', 'c', 'a']);
  t.same(findCycle(graph([['x', 'a'], ['a', 'b'], ['b', 'a']])), ['a', 'b', 'a']);
  t.equal(findCycle(graph([['a', 'b'], ['a', 'c'], ['b', 'd'], ['c', 'd']])), undefined);
});

t.test('no two feature folders import each other in a cycle', async (t) => {
  const graph = folderGraph(featuresDir);
  t.ok(graph.size > 5, `scanned ${featuresDir}`);
  const cycle = findCycle(graph);
  const via = cycle?.slice(1).map((to, i) => `${cycle[i]} → ${to} (${graph.get(cycle[i]!)!.get(to)})`);
  t.equal(cycle, undefined, via ? `cycle: ${via.join(', ')}` : 'acyclic');
});

/** Files under one feature folder that import another feature folder's `store.ts`, as "file → store". */
function foreignStoreImports(root: string): string[] {
  const found: string[] = [];
  const visit = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) visit(path);
      else if (name.endsWith('.ts')) {
        const [from, ...rest] = relative(root, path).split(sep);
        if (rest.length === 0) continue; // beside the folders: wiring
        for (const spec of imports(readFileSync(path, 'utf8'))) {
          const target = relative(root, resolve(dirname(path), spec)).split(sep);
          if (target.length === 2 && target[0] !== from && target[0] !== '..' && target[1] === 'store.js') {
            found.push(`${relative(root, path)} → ${target.join('/')}`);
          }
        }
      }
    }
  };
  visit(root);
  return found;
}

t.test('no feature imports another feature\'s store', async (t) => {
  t.same(foreignStoreImports(featuresDir), []);
});
