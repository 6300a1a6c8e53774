import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { importCycles, importGraph } from '../helpers/import-graph.ts';

const SRC = path.resolve(import.meta.dirname, '../../src');

describe('the import graph of src', () => {
  const graph = importGraph(SRC);

  it('reads the imports of every file', () => {
    assert.ok(graph.size > 100, `only ${graph.size} files found under src`);
    assert.ok(graph.get('app.ts')?.includes('http/framework-errors.ts'), 'app.ts imports http/framework-errors.ts');
  });

  it('finds a cycle when there is one', () => {
    const cyclic = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    assert.deepEqual(importCycles(cyclic), [['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
    assert.deepEqual(
      importCycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
      [],
    );
  });

  it('has no import cycle', () => {
    const cycles = importCycles(graph).map((cycle) => cycle.join(' → '));
    assert.deepEqual(cycles, [], `import cycles in src:\n${cycles.join('\n')}`);
  });
});

/** The folder of a file: a module is the folder its repository sits in (with its subfolders). */
const moduleOf = (file: string) => path.dirname(file);

/**
 * Imports of a `*-repository.ts` from outside its module: other modules read a table through the
 * owning module's functions (docs/tables.md), never its SQL.
 */
function crossModuleRepositoryImports(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      if (!target.endsWith('-repository.ts')) continue;
      const owner = moduleOf(target);
      if (file !== target && !`${moduleOf(file)}/`.startsWith(`${owner}/`)) found.push(`${file} → ${target}`);
    }
  }
  return found.sort();
}

describe('repositories', () => {
  it('are imported only from inside their module', () => {
    const found = crossModuleRepositoryImports(importGraph(SRC));
    assert.deepEqual(found, [], `repositories imported from another module:\n${found.join('\n')}`);
  });

  it('are told apart from imports inside their module', () => {
    const graph = new Map([
      ['modules/a/a-service.ts', ['modules/a/a-repository.ts', 'modules/b/index.ts']],
      ['modules/a/sub/x.ts', ['modules/a/a-repository.ts']],
      ['modules/b/b-service.ts', ['modules/a/a-repository.ts']],
      ['app.ts', ['modules/b/b-repository.ts']],
    ]);
    assert.deepEqual(crossModuleRepositoryImports(graph), [
      'app.ts → modules/b/b-repository.ts',
      'modules/b/b-service.ts → modules/a/a-repository.ts',
    ]);
  });
});

/** What other modules may import of moderation: its index.ts and its service (the decision flow, which index.ts cannot re-export without a cycle). */
const MODERATION_SURFACE = ['modules/moderation/index.ts', 'modules/moderation/moderation-service.ts'];

describe('the moderation module', () => {
  it('is reached from other modules only through its index.ts and its service', () => {
    const found: string[] = [];
    for (const [file, targets] of importGraph(SRC)) {
      // app.ts registers every module's routes.
      if (file === 'app.ts' || file.startsWith('modules/moderation/')) continue;
      for (const target of targets) {
        if (target.startsWith('modules/moderation/') && !MODERATION_SURFACE.includes(target)) found.push(`${file} → ${target}`);
      }
    }
    assert.deepEqual(found, [], `inner files of modules/moderation imported from outside it:\n${found.join('\n')}`);
  });
});
