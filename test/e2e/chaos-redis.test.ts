import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
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
import { createCrashDatabase, freePort, startChildServer, stopChild } from '../helpers/child-server.ts';
import { type PrivateRedis, privateRedisMissing, startPrivateRedis } from '../helpers/private-redis.ts';
import {
  assertCampaignRollupMatchesAdRollup,
  assertClicksMatchTheirLedgerRows,
  assertEveryBalanceIsItsLedger,
} from '../helpers/serving.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * Redis dies under a running Nativa (docs/operating.md, "When a dependency fails"): a private
 * redis-server of the test's own is killed under steady traffic and started again (empty). The
 * process stays up; teasers answer without waiting on Redis (page and frequency filters from
 * in-process state); the rate limiter and the sign-in throttle count per instance, so the API
 * answers as usual, never 500; readiness names Redis; the fallbacks are counted; Redis is used
 * again within 5 s of its return; every click that got a 302 is billed once.
 */

const METRICS_TOKEN = 'chaos-metrics-token-0123456789';
const API_KINDS = ['me', 'statistics', 'sign-in'] as const;
const PREFIX = 'chaos:';

const fallbacks = (metrics: string, store: string) => metricValue(metrics, `nativa_redis_fallbacks_total{store="${store}"}`);

describe('Redis killed and started under traffic', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-chaos-redis-'));
  let redis: PrivateRedis | undefined;
  let database: Awaited<ReturnType<typeof createCrashDatabase>>;
  const children: ChildProcess[] = [];
  const missing = privateRedisMissing();

  before(async () => {
    if (missing === undefined) redis = await startPrivateRedis();
  });

  after(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await redis?.destroy();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves and answers the API without Redis, counts per instance, uses Redis again once it returns', async (t) => {
    if (skipUnlessRunnable(t, missing) || redis === undefined) return;
    const server = redis;
    database = await createCrashDatabase('nativa_chaos_redis');
    // The data is written before the server starts: an embedded database has one owner at a time.
    const seed = await openDatabase({ databaseUrl: database?.url, dataDir });
    let world: Omit<TrafficTargets, 'base'>;
    try {
      await migrate(seed);
      world = await seedChaosWorld(seed.db);
    } finally {
      await seed.close();
    }

    const port = await freePort();
    const env = {
      METRICS_TOKEN,
      RATE_LIMIT_RPS: '1000',
      REDIS_URL: server.url,
      REDIS_KEY_PREFIX: PREFIX,
      // A connected Redis is waited for a second, not production's 50 ms: on a busy test machine a
      // slow answer after the return would fall back and read as Redis not being used again. Away,
      // nothing waits whatever the bound (the client fails at once while disconnected).
      REDIS_TIMEOUT_MS: '1000',
    };
    const child = await startChildServer({ dataDir, port, databaseUrl: database?.url, env });
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
    const before = await scrapeMetrics(base, METRICS_TOKEN);

    const downAt = Date.now();
    await server.stop();
    await waitFor(
      'every kind of request to meet the outage',
      () =>
        Date.now() - downAt >= 2000 &&
        [...API_KINDS, 'teasers' as const].every((kind) => traffic.of(kind, downAt).length >= 3) &&
        traffic.of('ready', downAt).some((sample) => sample.status === 503),
      { timeoutMs: 15_000 },
    );
    assert.equal(child.exitCode, null, 'the process is still running while Redis is away');
    const during = await scrapeMetrics(base, METRICS_TOKEN);
    await server.start();
    const startedAt = Date.now();
    const ready = (await waitFor(
      'readiness to say ok again',
      () => traffic.of('ready', startedAt).find((sample) => sample.status === 200),
      { timeoutMs: 15_000 },
    )) as Sample;
    // Redis is used again: the rate limiter's counters appear in the (restarted, empty) Redis and
    // the fallbacks stop growing while the traffic goes on.
    const probe = new Redis(server.url, { maxRetriesPerRequest: 0 });
    let sharedAgainAt = 0;
    try {
      await waitFor('rate-limit counters in Redis again', async () => (await probe.keys(`${PREFIX}rl:*`)).length > 0, {
        timeoutMs: 10_000,
      });
      sharedAgainAt = Date.now();
    } finally {
      probe.disconnect();
    }
    const recovered = await scrapeMetrics(base, METRICS_TOKEN);
    const apiAfter = traffic.of('me').length;
    await waitFor('more API traffic', () => traffic.of('me').length >= apiAfter + 5, { timeoutMs: 10_000 });
    const samples = await traffic.stop();
    const final = await scrapeMetrics(base, METRICS_TOKEN);
    assert.equal(child.exitCode, null, 'the process is still running after the outage');
    await stopChild(child, 'SIGTERM');
    assert.equal(child.exitCode, 0, 'it still shuts down cleanly');

    const away = (sample: Sample) => sample.sentAt >= downAt && sample.sentAt < startedAt;
    for (const kind of ['teasers', 'view', 'click', ...API_KINDS] as const) {
      const expected = { teasers: 200, view: 204, click: 302, me: 200, statistics: 200, 'sign-in': 200 }[kind];
      const wrong = samples.filter((sample) => sample.kind === kind && sample.status !== expected);
      assert.deepEqual(
        wrong.map((sample) => `${sample.status} ${sample.body}`),
        [],
        `every ${kind} request answered ${expected}, also while Redis was away`,
      );
      assert.ok(
        samples.some((sample) => sample.kind === kind && away(sample)),
        `${kind} requests were made during the outage`,
      );
    }
    // Nothing waits on Redis: a request costs what it costs without it (the bound is tens of ms).
    const slowest = samples.filter(away).reduce((worst, sample) => Math.max(worst, durationOf(sample)), 0);
    assert.deepEqual(
      answeredOnlyAfter(samples, ['teasers', 'view', 'click', ...API_KINDS], downAt, startedAt).map(
        (sample) => `${sample.kind} ${durationOf(sample)} ms`,
      ),
      [],
      'every request made while Redis was away was answered before it returned',
    );
    t.diagnostic(`slowest request while Redis was away: ${slowest} ms`);
    for (const sample of samples.filter((one) => one.kind === 'ready' && one.status === 503)) {
      assert.deepEqual(JSON.parse(sample.body), { status: 'unavailable', database: 'ok', redis: 'down', nats: 'none' });
    }
    for (const store of ['rate_limit', 'sign_in', 'page_views']) {
      assert.ok(fallbacks(during, store) > fallbacks(before, store), `${store}: fallbacks counted during the outage`);
    }
    assert.equal(
      fallbacks(final, 'rate_limit'),
      fallbacks(recovered, 'rate_limit'),
      'once Redis is back, the rate limiter uses it again',
    );
    const recoveryMs = sharedAgainAt - startedAt;
    t.diagnostic(`Redis was used again ${recoveryMs} ms after its return`);
    assert.ok(metricValue(final, 'nativa_dependency_connection_failures_total{dependency="redis"}') > 0);

    const redirected = samples.filter((sample) => sample.kind === 'click').map(clickIdOf);
    assert.ok(
      redirected.every((id) => id !== ''),
      'every click was recorded: the database was there',
    );
    const check = await openDatabase({ databaseUrl: database?.url, dataDir });
    try {
      const db = check.db;
      assert.deepEqual(await db.selectFrom('accepted_clicks').select('click_id').execute(), [], 'every accepted click settled');
      const rows = await db.selectFrom('clicks').select(['click_id', 'status']).execute();
      const byId = new Map(rows.map((row) => [row.click_id, row.status]));
      for (const id of redirected) assert.equal(byId.get(id), 'billed', `click ${id} got its 302, so it is billed`);
      assert.equal(new Set(redirected).size, redirected.length, 'every 302 was for a different click');
      await assertClicksMatchTheirLedgerRows(db);
      await assertEveryBalanceIsItsLedger(db);
      await assertCampaignRollupMatchesAdRollup(db);
    } finally {
      await check.close();
    }

    const teasers = samples.filter((sample) => sample.kind === 'teasers' && away(sample)).map(durationOf);
    const api = samples
      .filter((sample) => (API_KINDS as readonly string[]).includes(sample.kind) && away(sample))
      .map(durationOf);
    process.stdout.write(
      `# redis chaos: away ${((startedAt - downAt) / 1000).toFixed(1)} s; ${samples.length} requests; during the outage teasers p50 ${percentile(teasers, 50)} ms p99 ${percentile(teasers, 99)} ms, API p50 ${percentile(api, 50)} ms p99 ${percentile(api, 99)} ms, slowest ${slowest} ms; fallbacks rate_limit ${fallbacks(final, 'rate_limit')}, sign_in ${fallbacks(final, 'sign_in')}, page_views ${fallbacks(final, 'page_views')}, frequency ${fallbacks(final, 'frequency')}; ready ${ready.answeredAt - startedAt} ms and shared counters ${recoveryMs} ms after the return; ${redirected.length} clicks billed\n`,
    );
  });
});
