import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadWithWrk } from './wrk.ts';

const run = promisify(execFile);

/** The load generator: autocannon (a Node process) unless `BENCH_LOAD=wrk`. */
/** The load generator of a row: autocannon, wrk, or a scenario's own Node client (beacons, POSTs). */
export type LoadTool = 'autocannon' | 'wrk' | 'node';

export const LOAD_TOOL: LoadTool = process.env.BENCH_LOAD === 'wrk' ? 'wrk' : 'autocannon';

export interface LoadSpec {
  url: string;
  connections: number;
  durationSeconds: number;
  headers?: Record<string, string>;
  /** Tokens to rotate through, one per request, so a per-token rate limit admits the load. */
  tokens?: string[];
  /** Paths (with query) to rotate through on the same host; each used once before any repeats. */
  paths?: string[];
  /** Stop after this many requests instead of after the duration (autocannon only: warm-ups). */
  amount?: number;
  /** Header sets to rotate through (e.g. X-Forwarded-For of visitors in many countries). */
  headerSets?: Record<string, string>[];
  /** A POST with this body (autocannon only); GET without. */
  body?: string;
  /** At most this many requests a second over all connections (autocannon only); unset: as fast as answered. */
  overallRate?: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Responses received within the run. */
  total: number;
  errors: number;
  timeouts: number;
  statuses: Record<string, number>;
  /** Requests sent, including those still in flight when the run ended. */
  requestsSent?: number;
  /** CPU time the load generator itself used, in microseconds. */
  loadToolCpuMicros?: number;
  tool: LoadTool;
}

/** Loads a URL from a separate process (autocannon, or wrk with BENCH_LOAD=wrk or `tool`). */
export async function load(spec: LoadSpec, tool: LoadTool = LOAD_TOOL): Promise<LoadResult> {
  if (tool === 'wrk') return loadWithWrk(spec);
  const worker = path.join(import.meta.dirname, 'load-worker.ts');
  // A spec with thousands of tokens or links is too long for a command line: hand it over in a file.
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
  return { ...(JSON.parse(line) as Omit<LoadResult, 'tool'>), tool: 'autocannon' };
}

/** Responses that were not 2xx or 3xx. */
export function failedResponses(result: LoadResult): number {
  return result.total - (result.statuses['2xx'] ?? 0) - (result.statuses['3xx'] ?? 0);
}
