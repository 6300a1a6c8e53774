import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CpuPerResponse } from './cpu.ts';
import { failedResponses, LOAD_TOOL, type LoadResult } from './load.ts';

export interface BenchRow {
  scenario: string;
  result: LoadResult;
  /** Throughput as a fraction of the bare route's in the same run. */
  ratio?: number;
  /** The goal, e.g. 'ratio ≥ 0.5' or 'p99 < 50 ms', and whether it was met. */
  goal?: string;
  met?: boolean;
  /** Further exact counts of the scenario (e.g. clicks accepted by the server and billed). */
  counts?: Record<string, number>;
  /** CPU per response of the server, the database and the load generator (bench/lib/cpu.ts). */
  cpu?: CpuPerResponse;
}

/** One run of `npm run bench`, as written to bench/results/. */
export interface BenchRun {
  startedAt: string;
  tool: string;
  durationSeconds: number;
  connections: number;
  machine: { cpus: number; model: string; loadAverage: number[] };
  commit: string;
  rows: BenchRow[];
  /** Seconds each scenario took, seeding included, in the order run (the whole run's length is their sum plus the bare route). */
  scenarioSeconds?: Record<string, number>;
  /** Seconds the whole run took. */
  totalSeconds?: number;
}

/**
 * A row judged against the run's bare route (measured once, at its start): its throughput ratio
 * (shown, not judged: it moves with the machine's load and the load tool's own CPU), its
 * server-CPU ratio (the bare route's server CPU per response divided by the row's: the goal, which
 * a busy machine moves far less) and its p99 against the bare route's. `met` keeps the row's own
 * checks (every click billed, every view counted) and adds these.
 */
export function judgedAgainstBare(
  row: BenchRow,
  bare: BenchRow,
  goal: { serverCpuRatio: number; p99TimesBare?: number },
): BenchRow {
  const ratio = row.result.requestsPerSecond / bare.result.requestsPerSecond;
  const serverCpuRatio =
    row.cpu !== undefined && bare.cpu !== undefined && row.cpu.serverMicros > 0
      ? bare.cpu.serverMicros / row.cpu.serverMicros
      : undefined;
  const p99Limit = goal.p99TimesBare === undefined ? undefined : goal.p99TimesBare * Math.max(bare.result.p99, 1);
  const parts = [`server-CPU ratio ≥ ${goal.serverCpuRatio}`];
  if (p99Limit !== undefined) parts.push(`p99 ≤ ${goal.p99TimesBare} × bare (${p99Limit.toFixed(1)} ms)`);
  if (row.goal !== undefined) parts.push(row.goal);
  const met =
    row.met !== false &&
    serverCpuRatio !== undefined &&
    serverCpuRatio >= goal.serverCpuRatio &&
    (p99Limit === undefined || row.result.p99 <= p99Limit);
  return { ...row, ratio, goal: parts.join(', '), met };
}

export function printRows(rows: BenchRow[]): void {
  process.stdout.write(`load generator: ${rows[0]?.result.tool ?? LOAD_TOOL}\n`);
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'ratio', 'goal', 'met'];
  const lines = rows.map((row) => [
    row.scenario,
    row.result.requestsPerSecond.toFixed(0),
    String(Math.round(row.result.p50 * 10) / 10),
    String(Math.round(row.result.p99 * 10) / 10),
    String(failedResponses(row.result)),
    row.ratio === undefined ? '' : row.ratio.toFixed(2),
    row.goal ?? '',
    row.met === undefined ? '' : row.met ? 'yes' : 'NO',
  ]);
  printTable(header, lines);
  printCpu(rows);
  for (const row of rows) {
    if (row.counts === undefined) continue;
    const counts = Object.entries(row.counts).map(([name, value]) => `${name} ${value}`);
    process.stdout.write(`${row.scenario}: ${counts.join(', ')}\n`);
  }
}

/**
 * CPU per response by party, and the ratio of the bare route's server CPU per response to the
 * endpoint's: the throughput ratio the server would show with a core of its own and the database
 * and load generator on other machines.
 */
function printCpu(rows: BenchRow[]): void {
  const yardstick = rows.find((row) => row.ratio === 1 && row.cpu !== undefined)?.cpu;
  const measured = rows.filter((row) => row.cpu !== undefined);
  if (measured.length === 0) return;
  process.stdout.write('\nCPU per response (µs): server, database backends, load generator\n');
  printTable(
    ['scenario', 'server', 'database', 'load tool', 'server-CPU ratio'],
    measured.map((row) => {
      const cpu = row.cpu as CpuPerResponse;
      return [
        row.scenario,
        cpu.serverMicros.toFixed(1),
        cpu.databaseMicros.toFixed(1),
        cpu.loadToolMicros.toFixed(1),
        yardstick === undefined ? '' : (yardstick.serverMicros / cpu.serverMicros).toFixed(2),
      ];
    }),
  );
}

function printTable(header: string[], lines: string[][]): void {
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => (line[column] ?? '').length)));
  const format = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  process.stdout.write(`${format(header)}\n|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|\n`);
  for (const line of lines) process.stdout.write(`${format(line)}\n`);
}

/**
 * Writes the run to bench/results/<time>.json and bench/results/latest.json (both ignored by
 * git; the runs docs/performance.md quotes are committed as bench/results/readme*.json).
 */
export function writeRun(run: BenchRun, directory = path.join(import.meta.dirname, '..', 'results')): string {
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, `${run.startedAt.replaceAll(':', '-')}.json`);
  const text = `${JSON.stringify(run, null, 2)}\n`;
  writeFileSync(file, text);
  writeFileSync(path.join(directory, 'latest.json'), text);
  return file;
}

export function describeMachine(): BenchRun['machine'] {
  return { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? '', loadAverage: os.loadavg() };
}

export function currentTool(): string {
  return LOAD_TOOL;
}

/**
 * `npm run bench -- --compare A.json B.json`: each scenario of either run with its req/s, p99 and
 * ratio in both, and the ratio's difference (B − A), so two runs (two commits, two load tools) are
 * read side by side.
 */
export function compareRuns(fileA: string, fileB: string): void {
  const a = JSON.parse(readFileSync(fileA, 'utf8')) as BenchRun;
  const b = JSON.parse(readFileSync(fileB, 'utf8')) as BenchRun;
  process.stdout.write(
    `A: ${fileA} (${a.startedAt}, ${a.tool}, commit ${a.commit})\nB: ${fileB} (${b.startedAt}, ${b.tool}, commit ${b.commit})\n`,
  );
  const scenarios = [...new Set([...a.rows, ...b.rows].map((row) => row.scenario))];
  const find = (run: BenchRun, scenario: string) => run.rows.find((row) => row.scenario === scenario);
  const number = (value: number | undefined, digits: number) => (value === undefined ? '' : value.toFixed(digits));
  const lines = scenarios.map((scenario) => {
    const left = find(a, scenario);
    const right = find(b, scenario);
    const difference = left?.ratio !== undefined && right?.ratio !== undefined ? right.ratio - left.ratio : undefined;
    return [
      scenario,
      number(left?.result.requestsPerSecond, 0),
      number(right?.result.requestsPerSecond, 0),
      number(left?.result.p99, 1),
      number(right?.result.p99, 1),
      number(left?.ratio, 2),
      number(right?.ratio, 2),
      difference === undefined ? '' : `${difference >= 0 ? '+' : ''}${difference.toFixed(2)}`,
    ];
  });
  printTable(['scenario', 'req/s A', 'req/s B', 'p99 A', 'p99 B', 'ratio A', 'ratio B', 'B − A'], lines);
}
