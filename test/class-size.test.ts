/**
 * No class in src/ or workers/ is longer than 300 lines: a newcomer reads a class whole, and the
 * change writer's 988-line class with 106 members was where a write could not be followed.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import ts from 'typescript';

const MAX_LINES = 300;
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Every class declaration or expression of `path` with its length in lines. */
export function classLengths(path: string, text: string): Array<{ name: string; lines: number }> {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ name: string; lines: number }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ name: node.name?.text ?? '(anonymous)', lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

t.test('the measure counts a class from its first line to its last', async (t) => {
  const body = Array.from({ length: 5 }, (_, i) => `  m${i}(): void {}`).join('\n');
  t.same(classLengths('x.ts', `export class A {\n${body}\n}\nclass B {}\n`), [{ name: 'A', lines: 7 }, { name: 'B', lines: 1 }]);
});

t.test(`every class in src/ and workers/ is at most ${MAX_LINES} lines`, async (t) => {
  const files = [...sources(join(root, 'src')), ...sources(join(root, 'workers'))];
  t.ok(files.length > 100, `${files.length} files read`);
  const long = files.flatMap((path) => classLengths(path, readFileSync(path, 'utf8'))
    .filter((c) => c.lines > MAX_LINES)
    .map((c) => `${relative(root, path)} ${c.name}: ${c.lines} lines`));
  t.same(long, [], 'classes over the limit');
});
