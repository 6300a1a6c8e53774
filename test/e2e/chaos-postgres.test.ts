import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import {
  answeredOnlyAfter,
  clickIdOf,
  durationOf,
  metricValue,
  percentile,
  type Sample,
  scrapeMetrics,
  seedChaosWorld,
  skipUnlessRunnable,
  Traffic,
  type TrafficTargets,
} from '../helpers/chaos.ts';
import { freePort, startChildServer, stopChild } from '../helpers/child-server.ts';
import { type PrivatePostgres, privatePostgresMissing, startPrivatePostgres } from '../helpers/private-postgres.ts';
import {
  assertCampaignRollupMatchesAdRollup,
  assertClicksMatchTheirLedgerRows,
  assertEveryBalanceIsItsLedger,
} from '../helpers/serving.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * PostgreSQL restarts under a running Nativa (docs/operating.md, "When a dependency fails"): a
 * private PostgreSQL of the test's own is stopped with `-m immediate` (a crash: every connection
 * cut mid-query) under steady traffic, and started again. The process stays up; teasers, beacons
 * and clicks keep answering; API calls that need the database answer 503 with Retry-After in the
 * envelope within 2 s; readiness names the database; the instance uses the database again within
 * 5 s of its return; no click that got a 302 is billed twice, and money equals the ledger.
 */

const METRICS_TOKEN = 'chaos-metrics-token-0123456789';
const API_KINDS = ['me', 'statistics', 'sign-in'] as const;

/** What the log lines of the child (JSON, one per line) said. */
function messages(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => String((JSON.parse(line) as { msg?: unknown }).msg ?? ''));
}

describe('PostgreSQL stopped and started under traffic', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-chaos-pg-'));
  let postgres: PrivatePostgres | undefined;
  const children: ChildProcess[] = [];
  const missing = privatePostgresMissing();

  before(async () => {
    if (missing === undefined) postgres = await startPrivatePostgres();
  });

  after(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await postgres?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stays up, answers 503 + Retry-After during the outage, recovers, bills no click twice', async (t) => {
    if (skipUnlessRunnable(t, missing) || postgres === undefined) return;
    const server = postgres;
    const seed = await openDatabase({ databaseUrl: server.url, dataDir });
    let world: Omit<TrafficTargets, 'base'>;
    try {
      await migrate(seed);
      world = await seedChaosWorld(seed.db);
    } finally {
      await seed.close();
    }

    const port = await freePort();
    let output = '';
    // A stopped database refuses connections at once; the bound on a click's wait
    // (CLICK_ACCEPT_TIMEOUT_MS, chaos-postgres-frozen's subject) is set past this test's load, so
    // that on a busy machine a slow commit after the return is not taken for the outage.
    const env = {
      METRICS_TOKEN,
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      RATE_LIMIT_RPS: '1000',
      CLICK_ACCEPT_TIMEOUT_MS: '10000',
    };
    const child = await startChildServer({
      dataDir,
      port,
      databaseUrl: server.url,
      env,
      onOutput: (text) => {
        output += text;
      },
    });
    children.push(child);
    const base = `https://127.0.0.1:${port}`;
    const traffic = new Traffic({ base, ...world });
    traffic.start();
    await waitFor(
      'the traffic to get redirects and API answers',
      () => traffic.of('click').length >= 10 && traffic.of('me').length >= 3,
      {
        timeoutMs: 20_000,
      },
    );

    const downAt = Date.now();
    await server.stop('immediate');
    const stoppedAt = Date.now();
    // Away long enough for every kind of request to meet the outage, and readiness to report it.
    await waitFor(
      'API calls and readiness to meet the outage',
      () =>
        Date.now() - stoppedAt >= 2000 &&
        API_KINDS.every((kind) => traffic.of(kind, stoppedAt).length >= 2) &&
        traffic.of('ready', stoppedAt).some((sample) => sample.status === 503),
      { timeoutMs: 15_000 },
    );
    assert.equal(child.exitCode, null, 'the process is still running while the database is away');
    const upAt = Date.now();
    await server.start();
    const startedAt = Date.now();
    const recovered = (await waitFor(
      'an API call that needs the database to succeed again',
      () => traffic.of('statistics', startedAt).find((sample) => sample.status === 200),
      { timeoutMs: 15_000 },
    )) as Sample;
    const ready = (await waitFor('readiness to say ok again', () =>
      traffic.of('ready', startedAt).find((sample) => sample.status === 200),
    )) as Sample;
    // A little traffic after the return, then the books are checked.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const samples = await traffic.stop();
    assert.equal(child.exitCode, null, 'the process is still running after the outage');
    const metrics = await scrapeMetrics(base, METRICS_TOKEN);
    await stopChild(child, 'SIGTERM');
    assert.equal(child.exitCode, 0, 'it still shuts down cleanly');

    const during = (sample: Sample) => sample.sentAt >= downAt && sample.sentAt < startedAt;
    // Serving never needs the database to answer.
    for (const kind of ['teasers', 'view', 'click'] as const) {
      const statuses = samples.filter((sample) => sample.kind === kind).map((sample) => sample.status);
      const expected = { teasers: 200, view: 204, click: 302 }[kind];
      assert.deepEqual(
        statuses.filter((status) => status !== expected),
        [],
        `every ${kind} request answered ${expected}, also while the database was away`,
      );
      assert.ok(
        samples.some((sample) => sample.kind === kind && during(sample)),
        `${kind} requests were made during the outage`,
      );
    }
    // The API answers, and fast: 200 where the database is not needed (a cached token and account), 503 otherwise.
    const api = samples.filter((sample) => (API_KINDS as readonly string[]).includes(sample.kind));
    for (const sample of api) {
      assert.ok([200, 503].includes(sample.status), `${sample.kind} answered ${sample.status}: ${sample.body}`);
      if (sample.status === 503) {
        assert.equal(sample.headers['retry-after'], '2', 'a 503 says when to try again');
        const body = JSON.parse(sample.body) as { name: string; status: number; code: number; message: string };
        assert.deepEqual([body.name, body.status], ['Service Unavailable', 503], 'in the envelope');
      }
    }
    const unavailable = api.filter((sample) => sample.status === 503);
    assert.ok(unavailable.length > 0, 'API calls that need the database met its absence');
    const readyDown = samples.filter((sample) => sample.kind === 'ready' && sample.status === 503);
    for (const sample of readyDown) {
      assert.deepEqual(JSON.parse(sample.body), { status: 'unavailable', database: 'down', redis: 'none', nats: 'none' });
    }
    // Answered while the database was away, not when it came back (the times are printed below).
    assert.deepEqual(
      answeredOnlyAfter(samples, API_KINDS, stoppedAt, upAt).map((sample) => `${sample.kind} ${durationOf(sample)} ms`),
      [],
      'every API request made during the outage was answered before the database returned',
    );
    const recoveryMs = recovered.answeredAt - startedAt;
    t.diagnostic(`the database was used again ${recoveryMs} ms after its return`);

    // Clicks: those redirected with a click id were recorded; those without, during the outage,
    // were not (and are counted); nothing after the return is lost.
    const clicks = samples.filter((sample) => sample.kind === 'click');
    const recorded = clicks.map(clickIdOf).filter((id) => id !== '');
    const unrecorded = clicks.filter((sample) => clickIdOf(sample) === '');
    assert.ok(unrecorded.length > 0, 'clicks during the outage were redirected without being recorded');
    // A click in flight when the database stopped (sent before, answered after) met the outage too.
    const metOutage = (sample: Sample) => sample.sentAt < startedAt && sample.answeredAt >= downAt;
    assert.ok(unrecorded.every(metOutage), 'only clicks that met the outage went unrecorded');
    assert.equal(metricValue(metrics, 'nativa_clicks_unrecorded_total'), unrecorded.length, 'each one is counted');
    assert.ok(metricValue(metrics, 'nativa_dependency_connection_failures_total{dependency="database"}') > 0);
    const log = messages(output);
    assert.ok(
      log.some((line) => line.startsWith('database unavailable:')),
      'the outage is logged when it begins',
    );
    assert.ok(
      log.some((line) => line.startsWith('database available again after')),
      'and when it ends',
    );

    // A second start settles what was accepted and not yet settled when the database went away.
    const settler = await startChildServer({ dataDir, port, databaseUrl: server.url, env });
    children.push(settler);
    await stopChild(settler, 'SIGTERM');
    const check = await openDatabase({ databaseUrl: server.url, dataDir });
    try {
      const db = check.db;
      assert.deepEqual(await db.selectFrom('accepted_clicks').select('click_id').execute(), [], 'every accepted click settled');
      const rows = await db.selectFrom('clicks').select(['click_id', 'status']).execute();
      const byId = new Map(rows.map((row) => [row.click_id, row.status]));
      for (const id of recorded) assert.equal(byId.get(id), 'billed', `click ${id} got its 302 with its id, so it is billed`);
      assert.equal(new Set(recorded).size, recorded.length, 'every 302 was for a different click');
      await assertClicksMatchTheirLedgerRows(db);
      await assertEveryBalanceIsItsLedger(db);
      await assertCampaignRollupMatchesAdRollup(db);
    } finally {
      await check.close();
    }

    const teaserDurations = samples.filter((sample) => sample.kind === 'teasers' && during(sample)).map(durationOf);
    const apiDurations = unavailable.map(durationOf);
    process.stdout.write(
      `# postgres chaos: away ${((startedAt - downAt) / 1000).toFixed(1)} s; ${samples.length} requests; teasers during the outage p50 ${percentile(teaserDurations, 50)} ms p99 ${percentile(teaserDurations, 99)} ms; ${unavailable.length} API 503s p50 ${percentile(apiDurations, 50)} ms max ${Math.max(...apiDurations)} ms; ${unrecorded.length} clicks redirected unrecorded, ${recorded.length} billed; used again ${recoveryMs} ms after the return, ready ${ready.answeredAt - startedAt} ms; stop took ${stoppedAt - downAt} ms, start ${startedAt - upAt} ms\n`,
    );
  });
});
