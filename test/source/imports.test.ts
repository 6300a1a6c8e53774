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
