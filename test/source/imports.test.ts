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

/** The module a file under modules/ belongs to: the folder right under modules/ (its subfolders included). */
const topModuleOf = (file: string) => /^modules\/([^/]+)\//.exec(file)?.[1];

/**
 * Imports from outside a module of an inner file of it that the rules below do not allow, each
 * with why. This list can only shrink: an entry whose import is gone fails the test below.
 */
const ALLOWED_PAST_THE_INDEX: Record<string, string> = {
  // The configuration is imported by the modules themselves, so it takes the declarations of their
  // settings from the leaf files that hold them: through index.ts it would import those modules back.
  'config.ts → modules/invalid-traffic/sivt-rules.ts': 'SIVT_* and IVT_REVIEW_* settings (leaf file)',
  'config.ts → modules/privacy/retention-kinds.ts': 'RETENTION_*_DAYS settings (leaf file)',
  'config.ts → modules/refunds/click-flood-rule.ts': 'CLICK_FLOOD_* settings (leaf file)',
  'environment-variables.ts → modules/invalid-traffic/sivt-rules.ts': 'the SIVT_* defaults (leaf file)',
  'environment-variables.ts → modules/privacy/retention-kinds.ts': 'the RETENTION_*_DAYS variables (leaf file)',
};

/**
 * Imports that reach into a module past its public surface (docs/architecture.md): from outside
 * `modules/<name>/`, only its index.ts may be imported, and its routes.ts by app.ts, which
 * registers every module's routes.
 */
function pastThePublicSurface(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const owner = topModuleOf(target);
      if (owner === undefined || topModuleOf(file) === owner) continue;
      if (target === `modules/${owner}/index.ts`) continue;
      if (file === 'app.ts' && target === `modules/${owner}/routes.ts`) continue;
      found.push(`${file} → ${target}`);
    }
  }
  return found.sort();
}

/** The modules each module imports (through any of its files), for the check that they form no cycle. */
function moduleGraph(graph: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const modules = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = topModuleOf(file);
    if (from === undefined) continue;
    const into = modules.get(from) ?? new Set<string>();
    modules.set(from, into);
    for (const target of targets) {
      const to = topModuleOf(target);
      if (to !== undefined && to !== from) into.add(to);
    }
  }
  return new Map([...modules].map(([name, into]) => [name, [...into].sort()]));
}

describe('modules', () => {
  const graph = importGraph(SRC);

  it('are reached from outside only through their index.ts (and app.ts their routes.ts)', () => {
    const found = pastThePublicSurface(graph).filter((entry) => ALLOWED_PAST_THE_INDEX[entry] === undefined);
    assert.deepEqual(found, [], `imports past a module's index.ts:\n${found.join('\n')}`);
  });

  it('keep no allowance whose import is gone', () => {
    const found = new Set(pastThePublicSurface(graph));
    const stale = Object.keys(ALLOWED_PAST_THE_INDEX).filter((entry) => !found.has(entry));
    assert.deepEqual(stale, [], 'remove these from ALLOWED_PAST_THE_INDEX');
  });

  it('are told apart from imports through their index.ts or inside them', () => {
    const fixture = new Map([
      ['modules/a/a-service.ts', ['modules/a/sub/x.ts', 'modules/b/index.ts', 'modules/b/b-service.ts']],
      ['modules/a/sub/x.ts', ['modules/a/index.ts']],
      ['app.ts', ['modules/a/routes.ts', 'modules/b/index.ts', 'modules/b/b-routes.ts']],
      ['server.ts', ['modules/a/routes.ts']],
      ['http/x.ts', ['modules/b/sub/y.ts']],
    ]);
    assert.deepEqual(pastThePublicSurface(fixture), [
      'app.ts → modules/b/b-routes.ts',
      'http/x.ts → modules/b/sub/y.ts',
      'modules/a/a-service.ts → modules/b/b-service.ts',
      'server.ts → modules/a/routes.ts',
    ]);
  });

  it('import each other in one direction only', () => {
    const cycles = importCycles(moduleGraph(graph)).map((cycle) => cycle.join(' → '));
    assert.deepEqual(cycles, [], `modules that import each other, directly or around a cycle:\n${cycles.join('\n')}`);
  });

  it('find modules that import each other', () => {
    const fixture = new Map([
      ['modules/a/x.ts', ['modules/b/index.ts']],
      ['modules/b/sub/y.ts', ['modules/a/index.ts']],
      ['modules/c/z.ts', ['modules/a/index.ts', 'config.ts']],
    ]);
    assert.deepEqual(
      moduleGraph(fixture),
      new Map([
        ['a', ['b']],
        ['b', ['a']],
        ['c', ['a']],
      ]),
    );
    assert.deepEqual(importCycles(moduleGraph(fixture)), [['a', 'b', 'a']]);
  });
});

/** A service or repository file: its name ends in `-service.ts` or `-repository.ts`. */
const isServiceOrRepository = (file: string) => /(^|\/|-)(service|repository)\.ts$/.test(file);

/** Service and repository files that import the HTTP layer (src/http): services take plain values, never a request. */
function httpInServices(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    if (!isServiceOrRepository(file)) continue;
    for (const target of targets) if (target.startsWith('http/')) found.push(`${file} → ${target}`);
  }
  return found.sort();
}

describe('services and repositories', () => {
  it('import nothing of the HTTP layer', () => {
    const found = httpInServices(importGraph(SRC));
    assert.deepEqual(found, [], `service and repository files importing src/http:\n${found.join('\n')}`);
  });

  it('are told apart from routes that do', () => {
    const fixture = new Map([
      ['modules/a/a-service.ts', ['http/errors.ts', 'shared/actor.ts']],
      ['modules/a/a-repository.ts', ['shared/list-query.ts']],
      ['modules/a/a-routes.ts', ['http/routes.ts']],
    ]);
    assert.deepEqual(httpInServices(fixture), ['modules/a/a-service.ts → http/errors.ts']);
  });
});
