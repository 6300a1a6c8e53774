/**
 * `npm run structure`: the figures of an outside read of src/ — imports that reach past another
 * module's public surface (its index.ts; for app.ts also its routes.ts), modules that import each
 * other, service and repository files that import the HTTP layer, and files and functions over
 * 200 lines. A report, not a test: test/source/imports.test.ts fails on the first three (with the
 * few imports of the configuration it allows by name), docs/architecture.md says why.
 *
 *   node scripts/structure-report.ts [--list]
 */
import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.join(import.meta.dirname, '..');
const LONG = 200;
const list = process.argv.includes('--list');

const files = globSync('src/**/*.ts', { cwd: ROOT }).filter((file) => !file.endsWith('.d.ts'));
const moduleOf = (file: string) => /^src\/modules\/([^/]+)\//.exec(file)?.[1];

interface Import {
  from: string;
  to: string;
}
const imports: Import[] = [];
const longFunctions: string[] = [];
const longFiles: string[] = [];

for (const file of files) {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const lines = text.split('\n').length;
  if (lines > LONG) longFiles.push(`${file} (${lines})`);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const specifier = node.moduleSpecifier.text;
      if (specifier.startsWith('.')) imports.push({ from: file, to: path.posix.join(path.posix.dirname(file), specifier) });
    }
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isFunctionExpression(node) ||
      ts.isArrowFunction(node) ||
      ts.isMethodDeclaration(node)
    ) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 > LONG) {
        const name = (node as ts.FunctionDeclaration).name?.getText() ?? '(anonymous)';
        longFunctions.push(`${file}:${start + 1} ${name} (${end - start + 1})`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

const crossModule = imports.filter((entry) => {
  const from = moduleOf(entry.from);
  const to = moduleOf(entry.to);
  return to !== undefined && from !== to;
});
const pastIndex = crossModule.filter(
  (entry) =>
    !entry.to.endsWith(`/modules/${moduleOf(entry.to)}/index.ts`) &&
    !(entry.from === 'src/app.ts' && entry.to.endsWith(`/modules/${moduleOf(entry.to)}/routes.ts`)),
);
const pairs = new Set<string>();
const edges = new Set(
  crossModule.filter((entry) => moduleOf(entry.from)).map((entry) => `${moduleOf(entry.from)}>${moduleOf(entry.to)}`),
);
for (const edge of edges) {
  const [a, b] = edge.split('>');
  if (edges.has(`${b}>${a}`)) pairs.add([a, b].sort().join(' <-> '));
}
const httpInServices = new Set(
  imports
    .filter(
      (entry) => /-(service|repository)\.ts$|\/(service|repository)\.ts$/.test(entry.from) && entry.to.startsWith('src/http/'),
    )
    .map((entry) => entry.from),
);

console.log(`cross-module imports: ${crossModule.length}, past the module's index.ts (app.ts: routes.ts): ${pastIndex.length}`);
console.log(`modules importing each other: ${pairs.size}${pairs.size > 0 ? ` (${[...pairs].sort().join(', ')})` : ''}`);
console.log(`service and repository files importing src/http: ${httpInServices.size}`);
console.log(`files over ${LONG} lines: ${longFiles.length}; functions over ${LONG} lines: ${longFunctions.length}`);
if (list) {
  for (const entry of pastIndex) console.log(`  past index: ${entry.from} -> ${entry.to}`);
  for (const file of httpInServices) console.log(`  http in service: ${file}`);
  for (const entry of longFunctions) console.log(`  long function: ${entry}`);
}
