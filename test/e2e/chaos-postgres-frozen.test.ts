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
  type SampleKind,
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
 * A PostgreSQL that stops answering without closing its connections (docs/operating.md, "A
 * database that stops answering"): the postmaster and every one of its processes get SIGSTOP
 * under steady traffic, and SIGCONT some seconds later. Every click is redirected while the
 * database is frozen (its acceptance bounded by CLICK_ACCEPT_TIMEOUT_MS), API calls that need it
 * answer 503 before it comes back (the pool's bounds: DATABASE_CONNECT_TIMEOUT_MS, and
 * DATABASE_STATEMENT_TIMEOUT_MS plus a second for a server that cannot cancel), no click is
 * billed twice or billed while it went unrecorded without being counted, money equals the ledger
 * afterwards, and the instance recovers.
 */

const METRICS_TOKEN = 'chaos-metrics-token-0123456789';
const API_KINDS = ['me', 'statistics', 'sign-in', 'ready'] as const;
/** Short bounds, so that the database stays frozen for a few seconds only (the defaults are in docs/configuration.md). */
const BOUNDS = { DATABASE_STATEMENT_TIMEOUT_MS: '1500', DATABASE_CONNECT_TIMEOUT_MS: '1000', CLICK_ACCEPT_TIMEOUT_MS: '500' };

describe('PostgreSQL frozen (SIGSTOP) under traffic', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-chaos-frozen-pg-'));
  let postgres: PrivatePostgres | undefined;
  const children: ChildProcess[] = [];
  const missing = privatePostgresMissing();

  before(async () => {
    if (missing === undefined) postgres = await startPrivatePostgres();
  });

  after(async () => {
    postgres?.thaw();
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await postgres?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('redirects every click and answers the API 503 while frozen, bills nothing twice, recovers', {
    timeout: 90_000, // about 25 s on a quiet machine; a busy CI machine takes longer
  }, async (t) => {
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
    const env = { METRICS_TOKEN, LOG_LEVEL: 'warn', LOG_FORMAT: 'json', RATE_LIMIT_RPS: '1000', ...BOUNDS };
    const child = await startChildServer({ dataDir, port, databaseUrl: server.url, env });
    children.push(child);
    const base = `https://127.0.0.1:${port}`;
    const traffic = new Traffic({ base, ...world }, { maxMs: 30_000 });
    traffic.start();
    await waitFor(
      'the traffic to get redirects and API answers',
      () => traffic.of('click').length >= 10 && traffic.of('statistics').length >= 3,
      {
        timeoutMs: 15_000,
      },
    );

    const frozenAt = Date.now();
    const pids = server.freeze();
    // Frozen long enough for every kind of request to meet it, past every bound.
    await waitFor(
      'clicks and API calls to be answered while the database is frozen',
      () =>
        Date.now() - frozenAt >= 5000 &&
        traffic.samples.filter((sample) => sample.kind === 'click' && sample.sentAt >= frozenAt).length >= 4 &&
        API_KINDS.every((kind) => traffic.samples.some((sample) => sample.kind === kind && sample.sentAt >= frozenAt)),
      { timeoutMs: 12_000 },
    );
    const thawedAt = Date.now();
    server.thaw();
    const recovered = (await waitFor(
      'an API call that needs the database to succeed again',
      () => traffic.of('statistics', thawedAt).find((sample) => sample.status === 200),
      { timeoutMs: 15_000 },
    )) as Sample;
    await waitFor('clicks to be recorded again', () => traffic.of('click', thawedAt).some((sample) => clickIdOf(sample) !== ''), {
      timeoutMs: 10_000,
    });
    const samples = await traffic.stop();
    const metrics = await scrapeMetrics(base, METRICS_TOKEN);
    // Shutdown settles what was accepted and withdraws what went unrecorded.
    await stopChild(child, 'SIGTERM');
    assert.equal(child.exitCode, 0, 'it shuts down cleanly');

    const frozen = (sample: Sample) => sample.sentAt >= frozenAt && sample.sentAt < thawedAt;
    // Serving answers as ever: teasers and beacons need no database, clicks wait for it only so long.
    for (const kind of ['teasers', 'view', 'click'] as const) {
      const expected = { teasers: 200, view: 204, click: 302 }[kind];
      const statuses = samples.filter((sample) => sample.kind === kind).map((sample) => sample.status);
      assert.deepEqual(
        statuses.filter((status) => status !== expected),
        [],
        `every ${kind} request answered ${expected}`,
      );
    }
    const clicksWhileFrozen = samples.filter((sample) => sample.kind === 'click' && frozen(sample));
    const redirectedWhileFrozen = clicksWhileFrozen.filter((sample) => sample.answeredAt < thawedAt);
    assert.ok(
      redirectedWhileFrozen.length >= 3,
      `clicks were redirected while the database was frozen (${redirectedWhileFrozen.length})`,
    );
    // The API answers 200 (a cached token and account) or 503, never 500, and does not wait for the thaw.
    const api = samples.filter((sample) => (API_KINDS as readonly string[]).includes(sample.kind));
    for (const sample of api) {
      assert.ok([200, 503].includes(sample.status), `${sample.kind} answered ${sample.status}: ${sample.body}`);
    }
    const unavailable = api.filter((sample) => sample.status === 503 && frozen(sample));
    assert.ok(
      unavailable.some((sample) => sample.kind === 'statistics'),
      'API calls that need the database answered 503',
    );
    const kinds: SampleKind[] = ['click', ...API_KINDS];
    assert.deepEqual(
      answeredOnlyAfter(samples, kinds, frozenAt, thawedAt).map(
        (sample) => `${sample.kind} ${sample.status} ${durationOf(sample)} ms`,
      ),
      [],
      'every click and API request made while the database was frozen was answered before it came back',
    );

    // Clicks: those redirected with a click id are billed once; those without are counted, and
    // none of them is billed unless counted as billed late.
    const clicks = samples.filter((sample) => sample.kind === 'click');
    const recorded = clicks.map(clickIdOf).filter((id) => id !== '');
    const unrecorded = clicks.filter((sample) => clickIdOf(sample) === '');
    assert.ok(unrecorded.length > 0, 'clicks went unrecorded while the database was frozen');
    assert.equal(metricValue(metrics, 'nativa_clicks_unrecorded_total'), unrecorded.length, 'each one is counted');
    const billedLate = metricValue(metrics, 'nativa_clicks_billed_late_total');
    assert.equal(new Set(recorded).size, recorded.length, 'every 302 with an id was for a different click');
    // A second start settles what was accepted and whose settlement failed while frozen (the
    // sweep would, after leftovers' age).
    const settler = await startChildServer({ dataDir, port, databaseUrl: server.url, env });
    children.push(settler);
    await stopChild(settler, 'SIGTERM');
    const check = await openDatabase({ databaseUrl: server.url, dataDir });
    let withdrawn: number;
    try {
      const db = check.db;
      assert.deepEqual(
        await db.selectFrom('accepted_clicks').select('click_id').execute(),
        [],
        'every accepted click settled or withdrawn',
      );
      const rows = await db.selectFrom('clicks').select(['click_id', 'status']).execute();
      const byId = new Map(rows.map((row) => [row.click_id, row.status]));
      for (const id of recorded) assert.equal(byId.get(id), 'billed', `click ${id} got its 302 with its id, so it is billed`);
      const recordedIds = new Set(recorded);
      const billedUnrecorded = rows.filter((row) => !recordedIds.has(row.click_id) && row.status === 'billed');
      assert.equal(
        billedUnrecorded.length,
        billedLate,
        'a click billed without its id in the redirect is counted as billed late',
      );
      withdrawn = unrecorded.length - billedUnrecorded.length;
      await assertClicksMatchTheirLedgerRows(db);
      await assertEveryBalanceIsItsLedger(db);
      await assertCampaignRollupMatchesAdRollup(db);
    } finally {
      await check.close();
    }

    const phase = (from: number, to: number) => (sample: Sample) => sample.sentAt >= from && sample.sentAt < to;
    const figures = (kind: SampleKind, inPhase: (sample: Sample) => boolean) => {
      const durations = samples.filter((sample) => sample.kind === kind && inPhase(sample)).map(durationOf);
      return `p50 ${percentile(durations, 50)} p99 ${percentile(durations, 99)} ms`;
    };
    const phases = {
      before: phase(0, frozenAt),
      frozen: phase(frozenAt, thawedAt),
      after: phase(thawedAt, Number.POSITIVE_INFINITY),
    };
    const byStatus = (kind: SampleKind) => {
      const counts = new Map<number, number>();
      for (const sample of samples.filter((one) => one.kind === kind && frozen(one))) {
        counts.set(sample.status, (counts.get(sample.status) ?? 0) + 1);
      }
      return [...counts].map(([status, count]) => `${count}×${status}`).join(' ');
    };
    for (const kind of ['click', 'teasers', 'view', 'me', 'statistics', 'sign-in', 'ready'] as const) {
      t.diagnostic(
        `${kind}: while frozen ${byStatus(kind)}; before ${figures(kind, phases.before)}, frozen ${figures(kind, phases.frozen)}, after ${figures(kind, phases.after)}`,
      );
    }
    process.stdout.write(
      `# postgres frozen: ${pids.length} processes stopped for ${((thawedAt - frozenAt) / 1000).toFixed(1)} s; ${samples.length} requests; ${redirectedWhileFrozen.length} of ${clicksWhileFrozen.length} clicks sent while frozen redirected before the thaw (p99 ${percentile(clicksWhileFrozen.map(durationOf), 99)} ms); ${unrecorded.length} unrecorded (${withdrawn} not billed, ${billedLate} billed late; ${metricValue(metrics, 'nativa_clicks_withdrawn_total')} late commits withdrawn before the scrape), ${recorded.length} billed; ${unavailable.length} API 503s while frozen, max ${Math.max(0, ...unavailable.map(durationOf))} ms; the database used again ${recovered.answeredAt - thawedAt} ms after the thaw\n`,
    );
  });
});
