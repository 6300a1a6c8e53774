import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface LoadSpec {
  url: string;
  connections: number;
  durationSeconds: number;
  headers?: Record<string, string>;
  /** Tokens to rotate through, one per request, so a per-token rate limit admits the load. */
  tokens?: string[];
  /** Paths (with query) to rotate through on the same host. */
  paths?: string[];
}

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  total: number;
  errors: number;
  timeouts: number;
  statuses: Record<string, number>;
}

/** Loads a URL from a separate process (autocannon) and returns its figures. */
export async function load(spec: LoadSpec): Promise<LoadResult> {
  const worker = path.join(import.meta.dirname, 'load-worker.ts');
  // A spec with thousands of tokens is too long for a command line: hand it over in a file.
  const text = JSON.stringify(spec);
  let argument = text;
  let directory: string | undefined;
  if (text.length > 64 * 1024) {
    directory = mkdtempSync(path.join(os.tmpdir(), 'nativa-load-'));
    argument = `@${path.join(directory, 'spec.json')}`;
    writeFileSync(argument.slice(1), text);
  }
  const { stdout } = await run(process.execPath, [worker, argument], { maxBuffer: 64 * 1024 * 1024 }).finally(() => {
    if (directory) rmSync(directory, { recursive: true, force: true });
  });
  const line = stdout.trim().split('\n').at(-1) ?? '{}';
  return JSON.parse(line) as LoadResult;
}
