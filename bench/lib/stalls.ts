import { readFileSync } from 'node:fs';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import pg from 'pg';

/**
 * What else happened while one load ran, for telling a slow p99 of the endpoint from a stall
 * beside it: the server's event loop (its longest delay and p99, ms), its garbage collections
 * (count, total and longest pause, ms; major ones apart), the machine's busy CPU in cores, and, in
 * the benchmark's database, autovacuum and autoanalyze runs and checkpoints.
 */
export interface Stalls {
  eventLoopMaxMs: number;
  eventLoopP99Ms: number;
  gcCount: number;
  gcTotalMs: number;
  gcMaxMs: number;
  majorGcCount: number;
  /** CPU cores the whole machine kept busy on average (every process, this one included). */
  machineBusyCores: number;
  autovacuumRuns: number;
  checkpoints: number;
}

/** Busy and total jiffies of all CPUs together, from the first line of /proc/stat. */
function machineJiffies(): { busy: number; total: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

async function databaseCounters(url: string | undefined): Promise<{ autovacuum: number; checkpoints: number }> {
  if (url === undefined) return { autovacuum: 0, checkpoints: 0 };
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ runs: string }>(
      'SELECT coalesce(sum(autovacuum_count + autoanalyze_count), 0) AS runs FROM pg_stat_all_tables',
    );
    const checkpoints = await client.query<{ count: string }>(
      'SELECT checkpoints_timed + checkpoints_req AS count FROM pg_stat_bgwriter',
    );
    return { autovacuum: Number(tables.rows[0]?.runs ?? 0), checkpoints: Number(checkpoints.rows[0]?.count ?? 0) };
  } finally {
    await client.end();
  }
}

/** Runs `work` and returns its result with the stalls seen meanwhile. */
export async function withStalls<Result>(
  work: () => Promise<Result>,
  databaseUrl?: string,
): Promise<{ result: Result; stalls: Stalls }> {
  const cpusCount = Math.max(1, (await import('node:os')).cpus().length);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const pauses: { duration: number; major: boolean }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      pauses.push({ duration: entry.duration, major: kind === constants.NODE_PERFORMANCE_GC_MAJOR });
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const countersBefore = await databaseCounters(databaseUrl);
  const machineBefore = machineJiffies();
  delay.enable();
  let result: Result;
  try {
    result = await work();
  } finally {
    delay.disable();
    observer.disconnect();
  }
  const machineAfter = machineJiffies();
  const countersAfter = await databaseCounters(databaseUrl);
  const totalJiffies = Math.max(1, machineAfter.total - machineBefore.total);
  return {
    result,
    stalls: {
      eventLoopMaxMs: delay.max / 1e6,
      eventLoopP99Ms: delay.percentile(99) / 1e6,
      gcCount: pauses.length,
      gcTotalMs: pauses.reduce((sum, pause) => sum + pause.duration, 0),
      gcMaxMs: pauses.reduce((longest, pause) => Math.max(longest, pause.duration), 0),
      majorGcCount: pauses.filter((pause) => pause.major).length,
      machineBusyCores: ((machineAfter.busy - machineBefore.busy) / totalJiffies) * cpusCount,
      autovacuumRuns: countersAfter.autovacuum - countersBefore.autovacuum,
      checkpoints: countersAfter.checkpoints - countersBefore.checkpoints,
    },
  };
}

/** The figures of Stalls as a row's counts. */
export function stallCounts(stalls: Stalls): Record<string, number> {
  const round = (value: number) => Math.round(value * 10) / 10;
  return {
    'event loop max ms': round(stalls.eventLoopMaxMs),
    'event loop p99 ms': round(stalls.eventLoopP99Ms),
    'GC pauses': stalls.gcCount,
    'GC ms': round(stalls.gcTotalMs),
    'longest GC ms': round(stalls.gcMaxMs),
    'major GCs': stalls.majorGcCount,
    'machine busy cores': Math.round(stalls.machineBusyCores * 100) / 100,
    'autovacuum/analyze runs': stalls.autovacuumRuns,
    checkpoints: stalls.checkpoints,
  };
}
