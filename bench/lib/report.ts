import type { LoadResult } from './load.ts';

export interface BenchRow {
  scenario: string;
  result: LoadResult;
  /** Throughput as a fraction of the bare route's in the same run. */
  ratio?: number;
  /** The goal, e.g. 'ratio ≥ 0.5' or 'p99 < 50 ms', and whether it was met. */
  goal?: string;
  met?: boolean;
}

export function printRows(rows: BenchRow[]): void {
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'ratio', 'goal', 'met'];
  const lines = rows.map((row) => [
    row.scenario,
    row.result.requestsPerSecond.toFixed(0),
    String(row.result.p50),
    String(row.result.p99),
    String(row.result.total - (row.result.statuses['2xx'] ?? 0) - (row.result.statuses['3xx'] ?? 0)),
    row.ratio === undefined ? '' : row.ratio.toFixed(2),
    row.goal ?? '',
    row.met === undefined ? '' : row.met ? 'yes' : 'NO',
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => (line[column] ?? '').length)));
  const format = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  process.stdout.write(`${format(header)}\n|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|\n`);
  for (const line of lines) process.stdout.write(`${format(line)}\n`);
}
