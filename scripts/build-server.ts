/**
 * `npm run build:server` (and `npm start`'s prestart, with --if-stale): bundles the server's
 * TypeScript (src/, from src/cli/main.ts) into one JavaScript file, dist/nativa.mjs, with rolldown.
 * Packages stay outside it (imported from node_modules as they are). `npm start` runs that file:
 * the process then neither loads the TypeScript stripper nor keeps a module record per source file,
 * which is about 20 MB less resident memory (docs/performance.md, Memory). The sources still run
 * as they are everywhere else (tests, the CLI, benches).
 *
 *   node scripts/build-server.ts [--if-stale]
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { build } from 'rolldown';
import { newestChange } from '../web/scripts/build-if-stale.ts';

const ROOT = path.join(import.meta.dirname, '..');
export const SERVER_BUILD = path.join(ROOT, 'dist', 'nativa.mjs');
/** What the build reads: when any of it is newer than the build, the build is stale. */
const SOURCES = ['src', 'package.json', 'package-lock.json'];

/** Whether dist/nativa.mjs is missing or older than a source. */
export function serverBuildIsStale(): boolean {
  const builtAt = existsSync(SERVER_BUILD) ? statSync(SERVER_BUILD).mtimeMs : 0;
  return builtAt < Math.max(...SOURCES.map((source) => newestChange(path.join(ROOT, source))));
}

/** Bundles the server into dist/nativa.mjs (or another file of dist/: the test of the build makes its own). */
export async function buildServer(file = SERVER_BUILD): Promise<void> {
  await build({
    input: path.join(ROOT, 'src', 'cli', 'main.ts'),
    platform: 'node',
    logLevel: 'warn',
    // Packages (bare specifiers and node: builtins) are imported at run time, from node_modules.
    external: (id) => !id.startsWith('.') && !path.isAbsolute(id),
    output: { file, format: 'esm', sourcemap: false },
  });
}

if (import.meta.main) {
  if (!process.argv.includes('--if-stale') || serverBuildIsStale()) {
    const startedAt = Date.now();
    await buildServer();
    console.log(`built ${path.relative(process.cwd(), SERVER_BUILD)} in ${Date.now() - startedAt} ms`);
  }
}
