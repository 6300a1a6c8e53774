// npm run bench: runs every scenario in bench/scenarios (or those named on the command line) and
// prints one table. Each scenario measures against the bare Fastify route in the same run.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { type BenchRow, printRows } from './lib/report.ts';

export interface BenchContext {
  /** The bare route's result, measured once at the start of the run. */
  bare: BenchRow;
  durationSeconds: number;
  connections: number;
}

export interface Scenario {
  name: string;
  run(context: BenchContext): Promise<BenchRow[]>;
}

const directory = path.join(import.meta.dirname, 'scenarios');
const wanted = process.argv.slice(2);
const files = readdirSync(directory)
  .filter((file) => file.endsWith('.ts'))
  .sort()
  .filter((file) => wanted.length === 0 || wanted.some((name) => file.includes(name)));

const { measureBare } = await import('./scenarios/0-bare.ts');
const durationSeconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const bare = await measureBare(durationSeconds, connections);
const rows: BenchRow[] = [bare];
for (const file of files.filter((name) => name !== '0-bare.ts')) {
  const scenario = (await import(path.join(directory, file))).default as Scenario;
  process.stderr.write(`bench: ${scenario.name}\n`);
  rows.push(...(await scenario.run({ bare, durationSeconds, connections })));
}
printRows(rows);
process.exit(rows.some((row) => row.met === false) ? 1 : 0);
