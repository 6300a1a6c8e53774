import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Config } from '../config.ts';

/**
 * Whether this start creates the embedded database: PGlite (no DATABASE_URL) on a DATA_DIR that
 * has none yet. Creating it (PGlite's initdb, run in a second WebAssembly instance) and applying
 * every migration make the process's largest peak of the whole life of an installation.
 */
export function createsEmbeddedDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): boolean {
  return !config.databaseUrl && !existsSync(path.join(config.dataDir, 'pglite', 'PG_VERSION'));
}

/**
 * Runs `nativa migrate` in a child process: the same node, node options, environment and entry
 * script as this process. A first start of the embedded installation creates its database and
 * applies the migrations there, so that what that work leaves behind goes with the child:
 * WebAssembly memory cannot shrink once grown, malloc keeps its arenas, and the JavaScript heap
 * grows for the migrations' garbage (docs/adr/0057). The server then opens a migrated database.
 * Returns the migrations applied; throws with the child's message when it fails.
 */
export function migrateInChildProcess(entry: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    // A debugger's port belongs to the server.
    const nodeOptions = process.execArgv.filter((option) => !option.startsWith('--inspect'));
    const child = spawn(process.execPath, [...nodeOptions, entry, 'migrate', '--json'], {
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      errors += chunk.toString();
    });
    // The server's own signals (systemd stopping a first start, Ctrl-C) stop the migration too.
    let stoppedBy: NodeJS.Signals | undefined;
    const forward = (signal: NodeJS.Signals) => {
      stoppedBy = signal;
      child.kill(signal);
    };
    const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];
    for (const signal of signals) process.on(signal, forward);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      for (const name of signals) process.off(name, forward);
      if (stoppedBy !== undefined) {
        // Stopped as asked: this process ends the way the signal would have ended it.
        process.kill(process.pid, stoppedBy);
        return;
      }
      if (signal !== null) {
        reject(new Error(`nativa migrate was stopped by ${signal}`));
        return;
      }
      if (code !== 0) {
        reject(new Error(errors.trim().replace(/^nativa( migrate)?: /, '') || `nativa migrate exited with ${code}`));
        return;
      }
      try {
        resolve((JSON.parse(output) as { applied: string[] }).applied);
      } catch {
        reject(new Error(`nativa migrate answered ${JSON.stringify(output)}`));
      }
    });
  });
}

/** How long after the server listens its start-up garbage is collected. */
const SETTLE_AFTER_MS = 10_000;

/**
 * Once, SETTLE_AFTER_MS after start: V8's memory-reducing collection (what it runs before giving up
 * on an allocation, `gc({ flavor: 'last-resort' })`), which also shrinks the young generation grown
 * during start-up and hands the freed heap pages back to the system. Nothing else runs it in an idle
 * process: ~20 MB of resident memory stay otherwise (docs/adr/0057). A plain `gc()` does neither
 * and leaves the resident total as it was. The collection pauses the process once (216 ms measured
 * on the loaded 2-core test machine). `gc` is taken from a fresh context while --expose-gc is set
 * for that moment only, so the application's own global never has it.
 */
export function settleStartMemory(): void {
  setTimeout(() => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
    v8.setFlagsFromString('--no-expose-gc');
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  }, SETTLE_AFTER_MS).unref();
}
