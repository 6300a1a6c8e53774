/**
 * `npm test` and `npm run test:fast`: runs the test files several at once, the slowest first so
 * that a run does not end waiting on one long file, and records each file's time for the next
 * run's order.
 *
 *   node scripts/test.ts [--fast | --no-pages] [--process-per-file] [file ...]
 *
 * `npm test` runs each file in a process of its own (its own server, database and ports), in two
 * lanes side by side: the crash and failure tests (they kill servers and time recoveries, and on
 * two cores they disturb each other more than they disturb anything else) one at a time, and
 * every other file TEST_CONCURRENCY − 1 at a time (default concurrency: the machine's cores + 1,
 * since a test file spends much of its time waiting on its server, its database or a browser).
 * --no-pages leaves out only the web account's page tests (test/pages): they drive pages in
 * Chromium through the API, whose every route the other files test on each database, so CI runs
 * them on the embedded database only (its second pass, on PostgreSQL and Redis, passes this).
 * --no-own-postgres leaves out the failure tests that start a PostgreSQL of their own
 * (test/e2e/chaos-postgres*): they never use the pass's database, so CI runs them once, in its
 * PostgreSQL pass, and its embedded-database pass passes this.
 *
 * --fast leaves out the browser, crash and failure tests (test/e2e, test/pages) and the files
 * that start tools of their own (the OpenAPI proxy, Prebid's build): the edit–test loop. It also
 * runs the files in a few long-lived processes (shards, Node's --test-isolation=none: one file
 * after another in each) rather than one process per file, so that each shard starts Node and
 * loads the app once rather than once per file: about 30% of the tier's CPU. A shard's
 * files run one at a time, each closing what it started (servers, databases, clients, timers)
 * in its `after` hooks, and keep their hooks inside a `describe` (a top-level hook would be the
 * whole shard's). The files in OWN_PROCESS keep a process of their own, for the reason given
 * there; --process-per-file runs the whole tier the old way, to tell a leak between files from a
 * failure of the file itself.
 *
 * A lane silent for TEST_SILENCE_MINUTES (default 10) is stopped and fails the run (SILENCE_LIMIT_MS).
 */
import { spawn } from 'node:child_process';
import { existsSync, globSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
/**
 * Files of the fast tier that keep a process of their own rather than join a shard, and why: a
 * file whose state cannot be undone by its own hooks (a process-wide setting, an exit code) would
 * leak into the files after it in a shard.
 */
const OWN_PROCESS: Record<string, string> = {};

const args = process.argv.slice(2);
const fast = args.includes('--fast');
const noPages = args.includes('--no-pages');
const noOwnPostgres = args.includes('--no-own-postgres');
const shared = fast && !args.includes('--process-per-file');
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
  /** How many of its files run at once, each in a process of its own; 'shared': all in one process, one after another. */
  concurrency: number | 'shared';
}

interface LaneResult {
  output: string;
  code: number;
  /** Stopped for its silence (SILENCE_LIMIT_MS). */
  stopped: boolean;
  counts: { pass: number; fail: number; skipped: number; todo: number; cancelled: number };
}

/**
 * A lane in which no test has ended and nothing was printed for this long is stopped, naming the
 * files it was running: a file whose hook hangs (a server never closed, a wait without a bound)
 * would otherwise hold the run until CI's own limit, with no word of which file it was. No test
 * of ours takes a tenth of it.
 */
const SILENCE_LIMIT_MS = Number(process.env.TEST_SILENCE_MINUTES || 10) * 60_000;
/** The lanes' process groups, stopped with the runner. */
const running = new Set<number>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const group of running) stopGroup(group);
    process.exit(130);
  });
}

function stopGroup(group: number): void {
  try {
    process.kill(-group, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** The files a lane's progress report shows started and not ended. */
function unfinishedFiles(progress: string): string[] {
  const open = new Set<string>();
  const text = existsSync(progress) ? readFileSync(progress, 'utf8') : '';
  for (const line of text.split('\n')) {
    const [kind, file] = [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)];
    if (kind === 'start') open.add(file);
    else if (kind === 'end') open.delete(file);
  }
  return [...open];
}

/** Runs one lane's files with Node's test runner; its output goes to stdout live or is kept. */
function runLane(lane: Lane, live: boolean): Promise<LaneResult> {
  const report = path.join(RESULTS, `durations-${lane.name}.json`);
  const progress = path.join(RESULTS, `progress-${lane.name}.log`);
  rmSync(report, { force: true });
  rmSync(progress, { force: true });
  const child = spawn(
    process.execPath,
    [
      '--test',
      lane.concurrency === 'shared' ? '--test-isolation=none' : `--test-concurrency=${lane.concurrency}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=./test/helpers/durations-reporter.ts',
      `--test-reporter-destination=${report}`,
      ...slowestFirst(lane.files),
    ],
    // A group of its own, so that a lane stopped for its silence takes its test files' processes with it.
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], detached: true, env: { ...process.env, TEST_PROGRESS_FILE: progress } },
  );
  const group = child.pid;
  if (group !== undefined) running.add(group);
  let output = '';
  let heardAt = Date.now();
  let stopped = false;
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    heardAt = Date.now();
    if (live) process.stdout.write(chunk);
  });
  const watchdog = setInterval(() => {
    const progressAt = existsSync(progress) ? statSync(progress).mtimeMs : 0;
    if (Date.now() - Math.max(heardAt, progressAt) < SILENCE_LIMIT_MS || group === undefined) return;
    const files = unfinishedFiles(progress);
    // The runner reports files in the order they started: the first named is the one that hangs,
    // the others may have ended with their reports held behind it.
    const message = `\n✖ lane ${lane.name}: no test ended for ${SILENCE_LIMIT_MS / 60_000} min; stopped. Files started and not reported ended, in order: ${files.length > 0 ? files.join(', ') : 'none recorded'}\n`;
    output += message;
    process.stdout.write(message);
    clearInterval(watchdog);
    stopped = true;
    stopGroup(group);
  }, 5000);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearInterval(watchdog);
      if (group !== undefined) running.delete(group);
      const count = (name: string) => Number(new RegExp(`^ℹ ${name} (\\d+)$`, 'm').exec(output)?.[1] ?? 0);
      const counts = {
        pass: count('pass'),
        fail: count('fail'),
        skipped: count('skipped'),
        todo: count('todo'),
        cancelled: count('cancelled'),
      };
      resolve({ output, code: code ?? (signal ? 1 : 0), counts, stopped });
    });
  });
}

/**
 * Runs the queues side by side, each one lane after another. The first lane's report goes to
 * stdout as it comes; the others' follow it, each whole, when all have ended (rather than
 * interleaved with it).
 */
async function runQueues(queues: Lane[][]): Promise<LaneResult[]> {
  const live = queues[0]?.[0];
  const results = await Promise.all(
    queues.map(async (queue) => {
      const done: LaneResult[] = [];
      for (const lane of queue) done.push(await runLane(lane, lane === live));
      return done;
    }),
  );
  const ordered = [...results.flat()];
  for (const result of ordered.slice(1)) process.stdout.write(`\n${result.output}`);
  return ordered;
}

/**
 * The fast tier's queues, `count` of them: the files spread so that each queue's last times add
 * up to about the same (the longest file first, into the queue with the least so far). A queue's
 * files run in one shared process (a shard), then those of OWN_PROCESS it was given each in a
 * process of its own. A file never timed counts as a typical one.
 */
function shardQueues(list: string[], count: number): Lane[][] {
  const TYPICAL_MS = 5000;
  const estimate = (file: string) => lastTimes[file] ?? TYPICAL_MS;
  const bins = Array.from({ length: Math.min(count, list.length) }, () => ({
    shared: [] as string[],
    own: [] as string[],
    time: 0,
  }));
  for (const file of [...list].sort((a, b) => estimate(b) - estimate(a))) {
    const emptiest = bins.reduce((least, bin) => (bin.time < least.time ? bin : least));
    (file in OWN_PROCESS ? emptiest.own : emptiest.shared).push(file);
    emptiest.time += estimate(file);
  }
  return bins.map((bin, index) => [
    ...(bin.shared.length > 0 ? [{ name: `shard-${index + 1}`, files: bin.shared, concurrency: 'shared' as const }] : []),
    ...bin.own.map((file, own) => ({ name: `shard-${index + 1}-own-${own + 1}`, files: [file], concurrency: 1 })),
  ]);
}

function mergeDurations(lanes: Lane[]): void {
  const merged = { ...lastTimes };
  for (const lane of lanes) {
    const report = path.join(RESULTS, `durations-${lane.name}.json`);
    // A lane stopped for its silence leaves its report empty or cut short.
    if (existsSync(report)) {
      try {
        Object.assign(merged, JSON.parse(readFileSync(report, 'utf8')));
      } catch {}
    }
  }
  writeFileSync(DURATIONS, `${JSON.stringify(merged, null, 1)}\n`);
}

const concurrency = Math.max(2, Number(process.env.TEST_CONCURRENCY) || os.availableParallelism() + 1);
const crashFiles = files.filter(isCrashOrChaos);
// The queues run side by side: npm test's two lanes, or the fast tier's `concurrency` shards.
const queues: Lane[][] = shared
  ? shardQueues(files, concurrency)
  : [
      {
        name: 'main',
        files: files.filter((file) => !isCrashOrChaos(file)),
        concurrency: crashFiles.length > 0 ? concurrency - 1 : concurrency,
      },
      { name: 'crash', files: crashFiles, concurrency: 1 },
    ]
      .filter((lane) => lane.files.length > 0)
      .map((lane) => [lane]);
const lanes = queues.flat();

mkdirSync(RESULTS, { recursive: true });
// Every test file is a process that compiles the same sources and packages again; Node's on-disk
// compile cache (checked against each file's contents) saves about a sixth of a server test's CPU.
process.env.NODE_COMPILE_CACHE ??= path.join(ROOT, 'node_modules', '.cache', 'nativa-tests-compile');
const shards = lanes.filter((lane) => lane.concurrency === 'shared').length;
const alone = lanes.length - shards;
console.log(
  `${files.length} test files: ${
    shared
      ? `${shards} shards of about ${Math.round((files.length - alone) / Math.max(1, shards))} files, ${queues.length} at once, the files of each one after another in one process${alone > 0 ? `; ${alone} in a process of their own` : ''}`
      : lanes.map((lane) => `${lane.files.length} ${lane.concurrency} at a time (${lane.name})`).join(', ')
  }${fast ? '; fast tier: no browser, crash or chaos tests' : ''}${noPages ? '; no page tests (test/pages)' : ''}${noOwnPostgres ? '; no tests with a PostgreSQL of their own' : ''}`,
);
const startedAt = Date.now();
// The web app's build and the migrated PGlite snapshot, once, before files race to make them.
await globalSetup();
const results = await runQueues(queues);
mergeDurations(lanes);

const total = (key: keyof LaneResult['counts']) => results.reduce((sum, result) => sum + result.counts[key], 0);
const failed = total('fail') + total('cancelled');
console.log(`\n${files.length} files in ${Math.round((Date.now() - startedAt) / 1000)} s`);
const stoppedLanes = results.filter((result) => result.stopped).length;
console.log(
  `tests: ${total('pass')} passed, ${failed} failed, ${total('skipped') + total('todo')} skipped${stoppedLanes > 0 ? `; ${stoppedLanes} lane(s) stopped, their tests uncounted (✖ lane above)` : ''}`,
);
process.exit(results.some((result) => result.code !== 0) || failed > 0 ? 1 : 0);
