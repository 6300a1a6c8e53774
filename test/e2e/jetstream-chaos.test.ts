import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { type Database, openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { durableOf, EVENT_KINDS } from '../../src/modules/serving/event-log/event-stream.ts';
import { createCrashDatabase, freePort, request, startChildServer, stopChild } from '../helpers/child-server.ts';
import { insertAccount, insertBlock, insertCampaign, insertOffer, insertSite } from '../helpers/fixtures.ts';
import { type NatsCluster, natsSkipReason, startNatsCluster } from '../helpers/private-nats.ts';
import { assertCampaignRollupMatchesAdRollup, assertClicksMatchTheirLedgerRows, DESKTOP_UA } from '../helpers/serving.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * The event log under faults (docs/adr/0029): a 3-node JetStream cluster started by the
 * test, an R3 stream, the real server as a child process publishing clicks and views to it and
 * settling them. Under bounded click and beacon load, one NATS node (the stream's leader) is
 * killed; then the server is killed right after a settlement committed and before its events were
 * acknowledged (NATIVA_TEST_CRASH_MID_SETTLEMENT, armed by SIGUSR2). A restart settles the rest and
 * gets the committed batch again. Every click that got its 302 is billed exactly once, every view
 * whose beacon got its 204 is counted exactly once. Skips without nats-server (fails in CI).
 */

const STREAM = 'CHAOS_EVENTS';
const METRICS_TOKEN = 'chaos-metrics-token-0123456789';

const get = (agent: https.Agent, url: string) => request(agent, 'GET', url, { headers: { 'User-Agent': DESKTOP_UA } });

/** The impression id of a view token: its 16 bytes after the format byte (teaser-token.ts), its teaser's click id. */
const impressionIdOf = (token: string) => Buffer.from(token, 'base64url').subarray(1, 17).toString('base64url');

describe('clicks and views survive a lost NATS node and a consumer killed mid-batch', { skip: natsSkipReason() }, () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-chaos-'));
  let database: Awaited<ReturnType<typeof createCrashDatabase>>;
  let nats: NatsCluster | undefined;
  const children: ChildProcess[] = [];
  const cleanup: (() => Promise<void> | void)[] = [];
  /** When each phase began (ms since the test's start): printed with the result, or with a failure. */
  const phases: string[] = [];

  after(async () => {
    for (const step of cleanup) await step();
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await nats?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  const openData = (): Promise<Database> => openDatabase({ databaseUrl: database?.url, dataDir });

  it('bills every redirected click once and counts every acknowledged view once', { timeout: 85_000 }, async () => {
    const startedAt = Date.now();
    const phase = (name: string) => phases.push(`${name} ${Date.now() - startedAt}`);
    cleanup.push(() => {
      if (phases.length > 0) process.stdout.write(`# chaos phases (ms from start): ${phases.join(', ')}\n`);
    });
    [nats, database] = await Promise.all([startNatsCluster(3), createCrashDatabase('nativa_chaos')]);
    const seed = await openData();
    let blockId = 0;
    try {
      await migrate(seed);
      const advertiser = await insertAccount(seed.db, {
        kind: 'advertiser',
        username: 'chaos-advertiser',
        depositMicros: 1_000_000_000,
      });
      const publisher = await insertAccount(seed.db, { kind: 'publisher', username: 'chaos-publisher' });
      for (let index = 0; index < 4; index += 1) {
        const campaign = await insertCampaign(seed.db, { advertiserId: advertiser.id });
        await insertOffer(seed.db, { campaignId: campaign.id, bidMicros: 50_000 + index * 10_000 });
      }
      const site = await insertSite(seed.db, { publisherId: publisher.id });
      blockId = (await insertBlock(seed.db, { siteId: site.id, teaserCount: 3 })).id;
    } finally {
      await seed.close();
    }

    const env = {
      NATS_URL: nats.urls,
      NATS_STREAM: STREAM,
      NATS_REPLICAS: '3',
      NATS_ACK_WAIT_MS: '2000',
      METRICS_TOKEN,
    };
    phase('seeded');
    const port = await freePort();
    const first = await startChildServer({
      dataDir,
      port,
      databaseUrl: database?.url,
      env: { ...env, NATIVA_TEST_CRASH_MID_SETTLEMENT: 'true' },
    });
    children.push(first);
    phase('server started');
    const base = `https://127.0.0.1:${port}`;
    const agent = new https.Agent({ rejectUnauthorized: false, keepAlive: true });
    const ready = await get(agent, `${base}/api/health/ready`);
    assert.equal(JSON.parse(ready.body).nats, 'ok', 'readiness reports the event log');
    const redirected: string[] = [];
    const acknowledgedViews: string[] = [];
    let stop = false;
    cleanup.push(() => {
      stop = true;
      agent.destroy();
    });
    let slowest = 0;
    const worker = async () => {
      // Bounded in count and in time, whatever happens to the server.
      for (let round = 0; round < 2000 && !stop && Date.now() - startedAt < 70_000; round += 1) {
        try {
          const teasers = await get(agent, `${base}/api/serve/blocks/${blockId}/teasers`);
          if (teasers.status !== 200) continue;
          const list = (JSON.parse(teasers.body) as { teasers: { url: string; view: string }[] }).teasers;
          const tokens = list.map((teaser) => teaser.view);
          const beacon = await request(agent, 'POST', `${base}/api/serve/views`, {
            headers: { 'User-Agent': DESKTOP_UA },
            body: { tokens },
          });
          if (beacon.status === 204) acknowledgedViews.push(...tokens.map(impressionIdOf));
          const link = list[round % list.length];
          if (link === undefined) continue;
          const sent = Date.now();
          const click = await get(agent, link.url);
          slowest = Math.max(slowest, Date.now() - sent);
          const clickId = click.status === 302 && click.location ? new URL(click.location).searchParams.get('id') : null;
          if (clickId) redirected.push(clickId);
        } catch {
          // Connections die with the server.
        }
        // A bounded rate: about 5 clicks per second per worker.
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const workers = Array.from({ length: 6 }, () => worker());

    await waitFor('clicks before the node is killed', () => redirected.length >= 40, { timeoutMs: 20_000, intervalMs: 50 });
    // The stream's leader goes: its replicas elect another while clicks keep coming.
    phase('clicks before the kill');
    const watcher = await connect({ servers: nats.urls.split(','), maxReconnectAttempts: -1 });
    cleanup.push(() => watcher.close().catch(() => undefined));
    const manager = await jetstreamManager(watcher);
    const leader = (await manager.streams.info(STREAM)).cluster?.leader;
    const victim = nats.nodes.find((node) => node.name === leader) ?? nats.nodes[0];
    assert.ok(victim);
    await nats.kill(victim);
    const atKill = redirected.length;
    slowest = 0;
    await waitFor('clicks after the node was killed', () => redirected.length >= atKill + 40, {
      timeoutMs: 25_000,
      intervalMs: 50,
    });
    const slowestAfterKill = slowest;
    phase('clicks after the kill');

    // The consumer dies between a settlement's commit and its acknowledgement.
    const firstExited = new Promise((resolve) => first.once('exit', resolve));
    first.kill('SIGUSR2');
    await Promise.race([firstExited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    phase('consumer killed');
    assert.equal(first.signalCode, 'SIGKILL', 'the server killed itself after a committed settlement, before acknowledging it');
    stop = true;
    await Promise.all(workers);
    agent.destroy();

    const second = await startChildServer({ dataDir, port, databaseUrl: database?.url, env });
    children.push(second);
    phase('restarted');
    await waitFor(
      'the log to be settled and acknowledged',
      async () => {
        for (const kind of EVENT_KINDS) {
          const info = await manager.consumers.info(STREAM, durableOf(kind));
          if (info.num_pending > 0 || info.num_ack_pending > 0) return false;
        }
        return true;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    phase('log settled');
    const metricsAgent = new https.Agent({ rejectUnauthorized: false });
    const metrics = await request(metricsAgent, 'GET', `${base}/api/metrics`, {
      headers: { Authorization: `Bearer ${METRICS_TOKEN}` },
    });
    metricsAgent.destroy();
    await watcher.close();
    await stopChild(second, 'SIGTERM');
    const counter = (pattern: RegExp) => Number(pattern.exec(metrics.body)?.[1] ?? 0);
    const againAfterRestart =
      counter(/nativa_click_refusals_total\{reason="duplicate"\} (\d+)/) +
      counter(/nativa_view_refusals_total\{reason="replayed"\} (\d+)/);
    assert.ok(againAfterRestart > 0, 'the restart got the committed batch again and recorded its events as duplicates');

    const check = await openData();
    try {
      const db = check.db;
      const clicks = await db.selectFrom('clicks').select(['click_id', 'status', 'charge_micros']).execute();
      const byId = new Map(clicks.map((row) => [row.click_id, row]));
      assert.equal(new Set(redirected).size, redirected.length, 'every 302 was for a different click');
      for (const clickId of redirected)
        assert.equal(byId.get(clickId)?.status, 'billed', `click ${clickId} got its 302, so it is billed`);
      await assertClicksMatchTheirLedgerRows(db);
      await assertCampaignRollupMatchesAdRollup(db);
      const billed = clicks.filter((row) => row.status === 'billed');
      const stats = await db
        .selectFrom('stats_daily')
        .select((eb) => [eb.fn.sum<number>('clicks').as('clicks'), eb.fn.sum<number>('views').as('views')])
        .where('block_id', '=', blockId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(stats.clicks), billed.length, 'the rollup counts each billed click once');
      const seen = new Set((await db.selectFrom('viewed_impressions').select('token_id').execute()).map((row) => row.token_id));
      for (const id of acknowledgedViews) assert.ok(seen.has(id), `view ${id} got its 204, so it is counted`);
      assert.equal(Number(stats.views), seen.size, 'the rollup counts each viewed impression once');
      process.stdout.write(
        `# chaos: ${redirected.length} clicks redirected (${atKill} before node ${victim.name}, the stream leader, was killed; slowest click after: ${slowestAfterKill} ms), ${billed.length} billed; ${acknowledgedViews.length} views acknowledged, ${seen.size} counted; ${againAfterRestart} events settled again after the crash, as duplicates; ${Date.now() - startedAt} ms\n`,
      );
    } finally {
      await check.close();
    }
  });
});
