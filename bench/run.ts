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
const runStarted = performance.now();
const scenarioSeconds: Record<string, number> = {};
const secondsSince = (start: number) => Math.round((performance.now() - start) / 100) / 10;
const { measureBare } = await import('./scenarios/0-bare.ts');
const durationSeconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const bareStarted = performance.now();
const bare = await measureBare(durationSeconds, connections);
scenarioSeconds['0-bare'] = secondsSince(bareStarted);
const rows: BenchRow[] = [bare];
for (const file of files.filter((name) => name !== '0-bare.ts')) {
  const scenario = (await import(path.join(directory, file))).default as Scenario;
  process.stderr.write(`bench: ${scenario.name}\n`);
  const started = performance.now();
  rows.push(...(await scenario.run({ bare, durationSeconds, connections })));
  scenarioSeconds[file.replace(/\.ts$/, '')] = secondsSince(started);
  process.stderr.write(`bench: ${file} took ${scenarioSeconds[file.replace(/\.ts$/, '')]} s\n`);
}
printRows(rows);
const totalSeconds = secondsSince(runStarted);
process.stdout.write(
  `bench: the run took ${totalSeconds} s: ${Object.entries(scenarioSeconds)
    .map(([name, seconds]) => `${name} ${seconds} s`)
    .join(', ')}\n`,
);
const written = writeRun({
  startedAt,
  tool: currentTool(),
  durationSeconds,
  connections,
  machine: describeMachine(),
  commit: commitOf(),
  rows,
  scenarioSeconds,
  totalSeconds,
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
