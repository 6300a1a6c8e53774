import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import {
  acknowledgedCredits,
  clickIdOf,
  durationOf,
  metricValue,
  percentile,
  type SampleKind,
  scrapeMetrics,
  seedChaosWorld,
  skipUnlessRunnable,
  Traffic,
  type TrafficTargets,
} from '../helpers/chaos.ts';
import { freePort, request, startChildServer, stopChild } from '../helpers/child-server.ts';
import { type PrivatePostgres, startPrivatePostgres } from '../helpers/private-postgres.ts';
import {
  type MovingAddress,
  type ReplicatedPostgres,
  replicatedPostgresMissing,
  startMovingAddress,
  startReplicatedPostgres,
} from '../helpers/replicated-postgres.ts';
import {
  assertCampaignRollupMatchesAdRollup,
  assertClicksMatchTheirLedgerRows,
  assertEveryBalanceIsItsLedger,
  DESKTOP_UA,
} from '../helpers/serving.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * A failover under a running Nativa (docs/operating.md, "Running with a replica"): a primary with
 * a synchronous streaming standby behind one address that moves (a TCP proxy standing for HAProxy
 * or a virtual IP). Under steady traffic (teasers, beacons, clicks, API reads, sign-ins, keyed
 * balance credits) the primary is killed (SIGKILL to all its processes), the standby promoted and
 * the address moved, cutting every connection it carried. Then the old primary comes back as a
 * read-only standby of the new one and the address points at it for a moment, as a failover
 * manager that moves it too early would. Throughout: no 500, no request left unanswered, every
 * credit acknowledged is in the ledger once, every click redirected with its id is billed once
 * and no other click is billed unless counted, money equals the ledger, and readiness and writes
 * come back.
 */

const METRICS_TOKEN = 'chaos-metrics-token-0123456789';
const API_KINDS = ['me', 'statistics', 'sign-in', 'ready', 'credit'] as const;
const KINDS: SampleKind[] = ['click', 'teasers', 'view', ...API_KINDS];

describe('PostgreSQL failover to a synchronous standby under traffic', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-chaos-failover-'));
  let pair: ReplicatedPostgres | undefined;
  const children: ChildProcess[] = [];
  const missing = replicatedPostgresMissing();

  before(async () => {
    if (missing === undefined) pair = await startReplicatedPostgres();
  });

  after(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await pair?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('loses no acknowledged write, bills each redirected click once, answers no 500, also on a read-only server', {
    timeout: 120_000, // about 40 s on a quiet machine
  }, async (t) => {
    if (skipUnlessRunnable(t, missing) || pair === undefined) return;
    const postgres = pair;
    const seed = await openDatabase({ databaseUrl: postgres.url, dataDir });
    let world: Omit<TrafficTargets, 'base'>;
    let advertiserId: number;
    try {
      await migrate(seed);
      world = await seedChaosWorld(seed.db);
      advertiserId = (
        await seed.db.selectFrom('accounts').select('id').where('username', '=', world.login).executeTakeFirstOrThrow()
      ).id;
    } finally {
      await seed.close();
    }

    const port = await freePort();
    // The bound on a click's wait is set past the failover's few seconds: a click that meets the
    // lost connection goes unrecorded at once; one that waits is not taken for the failover.
    const env = {
      METRICS_TOKEN,
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      RATE_LIMIT_RPS: '1000',
      CLICK_ACCEPT_TIMEOUT_MS: '10000',
    };
    const child = await startChildServer({ dataDir, port, databaseUrl: postgres.url, env });
    children.push(child);
    const base = `https://127.0.0.1:${port}`;
    const operatorToken = readFileSync(path.join(dataDir, 'operator.token'), 'utf8').trim();
    const traffic = new Traffic({ base, ...world, credit: { operatorToken, accountId: advertiserId } }, { maxMs: 90_000 });
    traffic.start();
    await waitFor(
      'the traffic to get redirects, API answers and credits',
      () =>
        traffic.of('click').length >= 10 &&
        traffic.of('statistics').length >= 3 &&
        acknowledgedCredits(traffic.of('credit')).length >= 3,
      { timeoutMs: 20_000 },
    );

    // The failover: the primary dies, the standby is promoted, the address moves to it.
    const killedAt = Date.now();
    postgres.killPrimary();
    await postgres.promoteStandby();
    postgres.address.pointAt(postgres.standby.port);
    const movedAt = Date.now();
    const cameBack = (since: number) =>
      traffic.of('statistics', since).some((sample) => sample.status === 200) &&
      traffic.of('ready', since).some((sample) => sample.status === 200) &&
      acknowledgedCredits(traffic.of('credit', since)).length > 0 &&
      traffic.of('click', since).some((sample) => clickIdOf(sample) !== '');
    await waitFor('reads, readiness, credits and recorded clicks after the move', () => cameBack(movedAt), {
      timeoutMs: 20_000,
    });
    const recoveredAt = Date.now();

    // The old primary returns as a standby of the new one, and the address points at it for a moment.
    await postgres.rejoinOldPrimaryAsStandby();
    const readOnlyAt = Date.now();
    postgres.address.pointAt(postgres.primary.port);
    await waitFor(
      'credits and clicks to meet the read-only server',
      () =>
        traffic.of('credit', readOnlyAt).filter((sample) => sample.status !== 0).length >= 2 &&
        traffic.of('click', readOnlyAt).length >= 4,
      { timeoutMs: 20_000 },
    );
    const writableAt = Date.now();
    postgres.address.pointAt(postgres.standby.port);
    await waitFor('reads, readiness, credits and recorded clicks on the primary again', () => cameBack(writableAt), {
      timeoutMs: 20_000,
    });
    const samples = await traffic.stop();
    assert.equal(child.exitCode, null, 'the process is still running');
    const metrics = await scrapeMetrics(base, METRICS_TOKEN);
    await stopChild(child, 'SIGTERM');
    assert.equal(child.exitCode, 0, 'it shuts down cleanly');

    // Every request answered, none with a 500.
    const byStatus = (kind: SampleKind, from: number, to: number) => {
      const counts = new Map<number, number>();
      for (const sample of samples.filter((one) => one.kind === kind && one.sentAt >= from && one.sentAt < to)) {
        counts.set(sample.status, (counts.get(sample.status) ?? 0) + 1);
      }
      return [...counts].map(([status, count]) => `${count}×${status}`).join(' ');
    };
    assert.deepEqual(
      samples
        .filter((sample) => sample.status === 0 || (sample.status >= 500 && sample.status !== 503))
        .map((sample) => `${sample.kind} ${sample.status} after ${durationOf(sample)} ms: ${sample.body.slice(0, 200)}`),
      [],
      'no request went unanswered or answered 500',
    );
    for (const kind of ['teasers', 'view', 'click'] as const) {
      const expected = { teasers: 200, view: 204, click: 302 }[kind];
      assert.equal(byStatus(kind, 0, Number.POSITIVE_INFINITY), `${traffic.of(kind).length}×${expected}`, `every ${kind}`);
    }
    for (const sample of samples.filter((one) => (API_KINDS as readonly string[]).includes(one.kind))) {
      assert.ok([200, 409, 503].includes(sample.status), `${sample.kind} answered ${sample.status}: ${sample.body}`);
      if (sample.status === 503 && sample.kind !== 'ready')
        assert.equal(sample.headers['retry-after'], '2', `${sample.kind}: a 503 says when to try again`);
    }
    const refusedWhileReadOnly = traffic.of('credit', readOnlyAt, writableAt).filter((sample) => sample.status === 503);
    assert.ok(refusedWhileReadOnly.length > 0, 'credits sent to the read-only server answered 503');

    // Clicks: those redirected with their id are billed once; those without are counted, and any
    // of them billed is counted as billed late.
    const clicks = samples.filter((sample) => sample.kind === 'click');
    const recorded = clicks.map(clickIdOf).filter((id) => id !== '');
    const unrecorded = clicks.filter((sample) => clickIdOf(sample) === '');
    assert.equal(metricValue(metrics, 'nativa_clicks_unrecorded_total'), unrecorded.length, 'each unrecorded click is counted');
    assert.equal(new Set(recorded).size, recorded.length, 'every 302 with an id was for a different click');
    const billedLate = metricValue(metrics, 'nativa_clicks_billed_late_total');
    // A second start settles what was accepted and whose settlement met the failover.
    const settler = await startChildServer({ dataDir, port, databaseUrl: postgres.url, env });
    children.push(settler);
    await stopChild(settler, 'SIGTERM');
    const check = await openDatabase({ databaseUrl: postgres.url, dataDir });
    let billedUnrecorded: number;
    try {
      const db = check.db;
      assert.deepEqual(await db.selectFrom('accepted_clicks').select('click_id').execute(), [], 'every accepted click settled');
      const rows = await db.selectFrom('clicks').select(['click_id', 'status']).execute();
      const byId = new Map(rows.map((row) => [row.click_id, row.status]));
      for (const id of recorded) assert.equal(byId.get(id), 'billed', `click ${id} got its 302 with its id, so it is billed`);
      const recordedIds = new Set(recorded);
      billedUnrecorded = rows.filter((row) => !recordedIds.has(row.click_id) && row.status === 'billed').length;
      assert.equal(billedUnrecorded, billedLate, 'a click billed without its id in the redirect is counted as billed late');
      // Credits: each one acknowledged is in the ledger once; none sent is there twice.
      const credits = await db
        .selectFrom('ledger_entries')
        .select(['comment'])
        .where('account_id', '=', advertiserId)
        .where('comment', 'like', 'chaos-credit-%')
        .execute();
      const times = new Map<string, number>();
      for (const row of credits) times.set(row.comment, (times.get(row.comment) ?? 0) + 1);
      for (const key of acknowledgedCredits(samples))
        assert.equal(times.get(key), 1, `credit ${key} was acknowledged: once in the ledger`);
      assert.deepEqual(
        [...times].filter(([, count]) => count > 1),
        [],
        'no credit moved money twice',
      );
      await assertClicksMatchTheirLedgerRows(db);
      await assertEveryBalanceIsItsLedger(db);
      await assertCampaignRollupMatchesAdRollup(db);
    } finally {
      await check.close();
    }

    const phases = {
      before: [0, killedAt],
      failover: [killedAt, recoveredAt],
      'read-only': [readOnlyAt, writableAt],
      after: [writableAt, Number.POSITIVE_INFINITY],
    } as const;
    for (const kind of KINDS) {
      const line = Object.entries(phases).map(([name, [from, to]]) => {
        const durations = samples.filter((one) => one.kind === kind && one.sentAt >= from && one.sentAt < to).map(durationOf);
        return `${name} ${byStatus(kind, from, to) || '-'} p50 ${percentile(durations, 50)} p99 ${percentile(durations, 99)} ms`;
      });
      t.diagnostic(`${kind}: ${line.join('; ')}`);
    }
    const firstWrite = (since: number) =>
      Math.min(
        ...samples
          .filter((one) => one.kind === 'credit' && one.status === 200 && one.sentAt >= since)
          .map((one) => one.answeredAt),
      );
    process.stdout.write(
      `# postgres failover: promoted and moved ${movedAt - killedAt} ms after the kill; first credit acknowledged ${firstWrite(movedAt) - movedAt} ms after the move; ${samples.length} requests, none 500; ${clicks.length} clicks redirected, ${recorded.length} with their id and billed once, ${unrecorded.length} unrecorded (${billedUnrecorded} billed late, ${metricValue(metrics, 'nativa_clicks_withdrawn_total')} late commits withdrawn); ${acknowledgedCredits(samples).length} credits acknowledged, each once in the ledger; read-only for ${writableAt - readOnlyAt} ms: ${byStatus('credit', readOnlyAt, writableAt)} credits, ${byStatus('click', readOnlyAt, writableAt)} clicks\n`,
    );
  });
});

/**
 * The click of the failover whose acceptance committed and whose answer was lost (the connection
 * cut between the two, as the move of the address does): its visitor is redirected at once,
 * without a click id, and the committed acceptance is withdrawn before any settlement, so the
 * click is not billed; never billed without its redirect.
 */
describe('a click whose acceptance committed but whose answer a failover cut', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-chaos-cut-answer-'));
  let postgres: PrivatePostgres | undefined;
  let address: MovingAddress | undefined;
  const children: ChildProcess[] = [];
  const agent = new https.Agent({ rejectUnauthorized: false });
  const missing = replicatedPostgresMissing();

  before(async () => {
    if (missing !== undefined) return;
    postgres = await startPrivatePostgres();
    address = await startMovingAddress(postgres.port);
  });

  after(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    agent.destroy();
    await address?.close();
    await postgres?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('redirects its visitor without a click id and withdraws it: not billed', { timeout: 60_000 }, async (t) => {
    if (skipUnlessRunnable(t, missing) || postgres === undefined || address === undefined) return;
    const url = `postgres://postgres@127.0.0.1:${address.port}/nativa`;
    const seed = await openDatabase({ databaseUrl: url, dataDir });
    let world: Omit<TrafficTargets, 'base'>;
    try {
      await migrate(seed);
      world = await seedChaosWorld(seed.db);
    } finally {
      await seed.close();
    }
    const port = await freePort();
    const env = { METRICS_TOKEN, LOG_LEVEL: 'warn', LOG_FORMAT: 'json', CLICK_ACCEPT_TIMEOUT_MS: '10000' };
    const child = await startChildServer({ dataDir, port, databaseUrl: url, env });
    children.push(child);
    const base = `https://127.0.0.1:${port}`;
    const headers = { 'User-Agent': DESKTOP_UA };
    const teasers = await request(
      agent,
      'GET',
      `${base}/api/serve/blocks/${world.blockId}/teasers?page=chaos-page-99999999&visitor=chaos-visitor-9999`,
      {
        headers,
      },
    );
    assert.equal(teasers.status, 200, teasers.body);
    const [teaser] = (JSON.parse(teasers.body) as { teasers: { url: string }[] }).teasers;
    assert.ok(teaser !== undefined, 'a teaser to click');

    // Fresh connections, so that the click's acceptance sends its statement's text (a connection
    // that ran it once names it only); the answer to that statement is lost.
    address.pointAt(postgres.port);
    const cut = address.cutAnswerTo('INSERT INTO accepted_clicks');
    const click = await request(agent, 'GET', teaser.url, { headers });
    await cut;
    assert.equal(click.status, 302, click.body);
    const location = new URL(click.location ?? '');
    assert.equal(location.searchParams.get('id'), '', 'redirected, without a click id');
    await waitFor(
      'the committed acceptance to be withdrawn',
      async () => metricValue(await scrapeMetrics(base, METRICS_TOKEN), 'nativa_clicks_withdrawn_total') === 1,
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    const metrics = await scrapeMetrics(base, METRICS_TOKEN);
    assert.equal(metricValue(metrics, 'nativa_clicks_unrecorded_total'), 1, 'counted as unrecorded');
    assert.equal(metricValue(metrics, 'nativa_clicks_billed_late_total'), 0);
    await stopChild(child, 'SIGTERM');
    assert.equal(child.exitCode, 0);

    const check = await openDatabase({ databaseUrl: url, dataDir });
    try {
      const db = check.db;
      assert.deepEqual(await db.selectFrom('accepted_clicks').select('click_id').execute(), [], 'nothing left to settle');
      assert.deepEqual(await db.selectFrom('clicks').select(['click_id', 'status']).execute(), [], 'the click was not billed');
      await assertEveryBalanceIsItsLedger(db);
    } finally {
      await check.close();
    }
  });
});
