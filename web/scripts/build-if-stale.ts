import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const WEB = path.join(import.meta.dirname, '..');
const ROOT = path.join(WEB, '..');
/** What the build reads: when any of it is newer than the built index.html, the build is stale. */
const SOURCES = ['web/src', 'web/public', 'web/index.html', 'web/vite.config.ts', 'web/package.json', 'sdk/src'];

/** The newest modification time of a file, or of anything in a directory (0 when missing). */
export function newestChange(target: string): number {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(target, { recursive: true })) {
    newest = Math.max(newest, statSync(path.join(target, String(entry))).mtimeMs);
  }
  return newest;
}

/** Builds web/dist with Vite when it is missing or older than its sources; returns whether it built. */
export function buildWebIfStale(): boolean {
  const built = path.join(WEB, 'dist', 'index.html');
  const builtAt = existsSync(built) ? statSync(built).mtimeMs : 0;
  const sourcesAt = Math.max(...SOURCES.map((source) => newestChange(path.join(ROOT, source))));
  if (builtAt >= sourcesAt) return false;
  const result = spawnSync('npm', ['run', 'build', '--workspace', 'web', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`building the web app failed (exit ${result.status})`);
  return true;
}

if (import.meta.main) buildWebIfStale();
