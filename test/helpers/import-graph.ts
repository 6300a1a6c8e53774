import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Every relative import of a source file: static and dynamic imports and re-exports, type-only ones included. */
const IMPORT =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** The TypeScript files under `root`, each with the files under `root` it imports (paths relative to `root`). */
export function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const text = readFileSync(file, 'utf8');
    const targets = new Set<string>();
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2];
      if (specifier === undefined) continue;
      const target = path.relative(root, path.resolve(path.dirname(file), specifier));
      if (!target.startsWith('..')) targets.add(target);
    }
    graph.set(path.relative(root, file), [...targets].sort());
  }
  return graph;
}

/**
 * The import cycles of a graph, each as the files along it with the first repeated at the end.
 * Depth-first search over every file; a cycle is reported once, from its first file in sort order.
 */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const seen = new Set<string>();
  const done = new Set<string>();
  const walk = (file: string, trail: string[]) => {
    const at = trail.indexOf(file);
    if (at !== -1) {
      const cycle = trail.slice(at);
      const key = [...cycle].sort().join('|');
      if (!seen.has(key)) {
        seen.add(key);
        cycles.push([...cycle, file]);
      }
      return;
    }
    if (done.has(file)) return;
    trail.push(file);
    for (const next of graph.get(file) ?? []) walk(next, trail);
    trail.pop();
    done.add(file);
  };
  for (const file of [...graph.keys()].sort()) walk(file, []);
  return cycles;
}
