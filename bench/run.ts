// npm run bench: runs every scenario in bench/scenarios (or those named on the command line),
// prints one table and writes it as JSON to bench/results/. Each scenario measures against the
// bare Fastify route in the same run. `npm run bench -- --compare A.json B.json` compares two runs.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { type BenchRow, compareRuns, currentTool, describeMachine, printRows, writeRun } from './lib/report.ts';

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

const argumentsGiven = process.argv.slice(2);
if (argumentsGiven[0] === '--compare') {
  const [fileA, fileB] = argumentsGiven.slice(1);
  if (fileA === undefined || fileB === undefined) {
    process.stderr.write('usage: npm run bench -- --compare A.json B.json\n');
    process.exit(2);
  }
  compareRuns(fileA, fileB);
  process.exit(0);
}

const directory = path.join(import.meta.dirname, 'scenarios');
const files = readdirSync(directory)
  .filter((file) => file.endsWith('.ts'))
  .sort()
  .filter((file) => argumentsGiven.length === 0 || argumentsGiven.some((name) => file.includes(name)));

const startedAt = new Date().toISOString();
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
const written = writeRun({
  startedAt,
  tool: currentTool(),
  durationSeconds,
  connections,
  machine: describeMachine(),
  commit: commitOf(),
  rows,
});
process.stdout.write(`bench: results written to ${path.relative(process.cwd(), written)}\n`);
process.exit(rows.some((row) => row.met === false) ? 1 : 0);

function commitOf(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim();
    return dirty === '' ? head : `${head}+changes`;
  } catch {
    return 'unknown';
  }
}
