import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { LoadResult } from './load.ts';

/**
 * CPU time spent per response by each party of a run: the server (this process), the database
 * backends serving the benchmark's database, and the load generator. Unlike req/s, these hardly
 * depend on what else the machine runs at the time, and they tell what the server would reach
 * with the database and the load generator on machines of their own.
 */
export interface CpuPerResponse {
  /** Microseconds of CPU per response. */
  serverMicros: number;
  databaseMicros: number;
  loadToolMicros: number;
}

const TICKS_PER_SECOND = 100;

/** User + system CPU of a process in microseconds, from /proc (0 when it is gone). */
export function processCpuMicros(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** The PostgreSQL backends connected to the database of `url` (the server's pool). */
export async function databaseBackends(url: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rows = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return rows.rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

/** Runs a load and divides each party's CPU time by the responses it got. */
export async function withCpu<Result extends LoadResult>(
  work: () => Promise<Result>,
  databaseUrl: string | undefined,
): Promise<{ result: Result; cpu: CpuPerResponse }> {
  const backends = databaseUrl === undefined ? [] : await databaseBackends(databaseUrl);
  const before = new Map(backends.map((pid) => [pid, processCpuMicros(pid)]));
  const serverBefore = process.cpuUsage();
  const result = await work();
  const server = process.cpuUsage(serverBefore);
  // Backends the pool opened during the run count from 0; one closed during the run is lost (its
  // /proc entry is gone), so the database figure is a lower bound.
  const after = databaseUrl === undefined ? [] : await databaseBackends(databaseUrl);
  let database = 0;
  for (const pid of new Set([...backends, ...after])) {
    const now = processCpuMicros(pid);
    if (now > 0) database += now - (before.get(pid) ?? 0);
  }
  const responses = Math.max(1, result.total);
  return {
    result,
    cpu: {
      serverMicros: (server.user + server.system) / responses,
      databaseMicros: database / responses,
      loadToolMicros: (result.loadToolCpuMicros ?? 0) / responses,
    },
  };
}

/** The figures of a CpuPerResponse as a row's counts. */
export function cpuCounts(cpu: CpuPerResponse): Record<string, number> {
  const round = (value: number) => Math.round(value * 10) / 10;
  return {
    'server CPU µs per response': round(cpu.serverMicros),
    'database CPU µs per response': round(cpu.databaseMicros),
    'load tool CPU µs per response': round(cpu.loadToolMicros),
  };
}
