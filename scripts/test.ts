/**
 * `npm test` and `npm run test:fast`: runs the test files several at once, each in its own process
 * (its own server, database and ports), the slowest first so that a run does not end waiting on
 * one long file, and records each file's time for the next run's order.
 *
 *   node scripts/test.ts [--fast | --no-pages] [file ...]
 *
 * Two lanes run side by side: the crash and failure tests (they kill servers and time recoveries,
 * and on two cores they disturb each other more than they disturb anything else) one at a time,
 * and every other file TEST_CONCURRENCY − 1 at a time (default concurrency: the machine's cores
 * + 1, since a test file spends much of its time waiting on its server, its database or a
 * browser). --fast leaves out the browser, crash and failure tests (test/e2e, test/pages) and the
 * files that start tools of their own (the OpenAPI proxy, Prebid's build): the edit–test loop.
 * --no-pages leaves out only the web account's page tests (test/pages): they drive pages in
 * Chromium through the API, whose every route the other files test on each database, so CI runs
 * them on the embedded database only (its second pass, on PostgreSQL and Redis, passes this).
 * --no-own-postgres leaves out the failure tests that start a PostgreSQL of their own
 * (test/e2e/chaos-postgres*): they never use the pass's database, so CI runs them once, in its
 * PostgreSQL pass, and its embedded-database pass passes this.
 */
import { spawn } from 'node:child_process';
import { existsSync, globSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { globalSetup } from '../test/global-setup.ts';

const ROOT = path.join(import.meta.dirname, '..');
const RESULTS = path.join(ROOT, 'test-results');
/** Each file's time in its last run, merged from the lanes' reports (test/helpers/durations-reporter.ts). */
const DURATIONS = path.join(RESULTS, 'durations.json');
/** Files --fast leaves out besides test/e2e and test/pages: they start tools whose start-up dominates the loop. */
const SLOW_OUTSIDE_E2E = ['test/http/openapi-prism.test.ts', 'test/integrations/prebid-adapter.test.ts'];
/** The crash and failure tests: they get a lane of their own, one file at a time. */
const isCrashOrChaos = (file: string) => /^test\/e2e\/.*(crash|chaos)[^/]*\.test\.ts$/.test(file);

const args = process.argv.slice(2);
const fast = args.includes('--fast');
const noPages = args.includes('--no-pages');
const noOwnPostgres = args.includes('--no-own-postgres');
const isPageTest = (file: string) => file.startsWith('test/pages/');
/** The failure tests that run against a private PostgreSQL they start, whatever the pass's database. */
const startsOwnPostgres = (file: string) => /^test\/e2e\/chaos-postgres[^/]*\.test\.ts$/.test(file);
const isSlowTest = (file: string) => file.startsWith('test/e2e/') || isPageTest(file) || SLOW_OUTSIDE_E2E.includes(file);
const named = args.filter((arg) => !arg.startsWith('--'));
const files = (named.length > 0 ? named : globSync('test/**/*.test.ts', { cwd: ROOT }).sort()).filter(
  (file) => !(fast && isSlowTest(file)) && !(noPages && isPageTest(file)) && !(noOwnPostgres && startsOwnPostgres(file)),
);

const lastTimes: Record<string, number> = existsSync(DURATIONS) ? JSON.parse(readFileSync(DURATIONS, 'utf8')) : {};
/** Longest first by the last run; a file never timed goes first if it is in test/e2e or test/pages (those are long). */
function slowestFirst(list: string[]): string[] {
  const guess = (file: string) => lastTimes[file] ?? (isSlowTest(file) ? Number.MAX_SAFE_INTEGER : 1e9);
  return [...list].sort((a, b) => guess(b) - guess(a));
}

interface Lane {
  name: string;
  files: string[];
  concurrency: number;
}

interface LaneResult {
  output: string;
  code: number;
  counts: { pass: number; fail: number; skipped: number; todo: number; cancelled: number };
}

/** Runs one lane's files with Node's test runner; its output goes to stdout live or is kept. */
function runLane(lane: Lane, live: boolean): Promise<LaneResult> {
  const report = path.join(RESULTS, `durations-${lane.name}.json`);
  rmSync(report, { force: true });
  const child = spawn(
    process.execPath,
    [
      '--test',
      `--test-concurrency=${lane.concurrency}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=./test/helpers/durations-reporter.ts',
      `--test-reporter-destination=${report}`,
      ...slowestFirst(lane.files),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (live) process.stdout.write(chunk);
  });
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      const count = (name: string) => Number(new RegExp(`^ℹ ${name} (\\d+)$`, 'm').exec(output)?.[1] ?? 0);
      const counts = {
        pass: count('pass'),
        fail: count('fail'),
        skipped: count('skipped'),
        todo: count('todo'),
        cancelled: count('cancelled'),
      };
      resolve({ output, code: code ?? (signal ? 1 : 0), counts });
    });
  });
}

function mergeDurations(lanes: Lane[]): void {
  const merged = { ...lastTimes };
  for (const lane of lanes) {
    const report = path.join(RESULTS, `durations-${lane.name}.json`);
    if (existsSync(report)) Object.assign(merged, JSON.parse(readFileSync(report, 'utf8')));
  }
  writeFileSync(DURATIONS, `${JSON.stringify(merged, null, 1)}\n`);
}

const concurrency = Math.max(2, Number(process.env.TEST_CONCURRENCY) || os.availableParallelism() + 1);
const crashFiles = files.filter(isCrashOrChaos);
const lanes: Lane[] = [
  {
    name: 'main',
    files: files.filter((file) => !isCrashOrChaos(file)),
    concurrency: crashFiles.length > 0 ? concurrency - 1 : concurrency,
  },
  { name: 'crash', files: crashFiles, concurrency: 1 },
].filter((lane) => lane.files.length > 0);

mkdirSync(RESULTS, { recursive: true });
// Every test file is a process that compiles the same sources and packages again; Node's on-disk
// compile cache (checked against each file's contents) saves about a sixth of a server test's CPU.
process.env.NODE_COMPILE_CACHE ??= path.join(ROOT, 'node_modules', '.cache', 'nativa-tests-compile');
console.log(
  `${files.length} test files: ${lanes.map((lane) => `${lane.files.length} ${lane.concurrency} at a time (${lane.name})`).join(', ')}${fast ? '; fast tier: no browser, crash or chaos tests' : ''}${noPages ? '; no page tests (test/pages)' : ''}${noOwnPostgres ? '; no tests with a PostgreSQL of their own' : ''}`,
);
const startedAt = Date.now();
// The web app's build and the migrated PGlite snapshot, once, before files race to make them.
await globalSetup();
const results = await Promise.all(lanes.map((lane, index) => runLane(lane, index === 0)));
// The crash lane's report follows the main one's, whole, rather than interleaved with it.
for (const [index, result] of results.entries()) if (index > 0) process.stdout.write(`\n${result.output}`);
mergeDurations(lanes);

const total = (key: keyof LaneResult['counts']) => results.reduce((sum, result) => sum + result.counts[key], 0);
const failed = total('fail') + total('cancelled');
console.log(`\n${files.length} files in ${Math.round((Date.now() - startedAt) / 1000)} s`);
console.log(`tests: ${total('pass')} passed, ${failed} failed, ${total('skipped') + total('todo')} skipped`);
process.exit(results.some((result) => result.code !== 0) || failed > 0 ? 1 : 0);
