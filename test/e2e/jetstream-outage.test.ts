import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { durableOf, EVENT_KINDS } from '../../src/modules/serving/event-log/event-stream.ts';
import { percentile } from '../helpers/chaos.ts';
import { createCrashDatabase, freePort, request, startChildServer, stopChild } from '../helpers/child-server.ts';
import { insertAccount, insertBlock, insertCampaign, insertOffer, insertSite } from '../helpers/fixtures.ts';
import { type NatsCluster, natsSkipReason, startNatsCluster } from '../helpers/private-nats.ts';
import { assertClicksMatchTheirLedgerRows, DESKTOP_UA } from '../helpers/serving.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * The whole JetStream cluster down under click and beacon load: once the server knows the log is
 * away (the connection lost, a failed publish), clicks and beacons go straight to the database
 * instead of each waiting for a PubAck's timeout; when the cluster is back the log is used again.
 * Every click that got its 302 is billed once, every view whose beacon got its 204 is counted.
 * Skips without nats-server (fails in CI).
 */

/** The impression id of a view token: its 16 bytes after the format byte (teaser-token.ts). */
const impressionIdOf = (token: string) => Buffer.from(token, 'base64url').subarray(1, 17).toString('base64url');

interface Answer {
  kind: 'click' | 'view';
  sentAt: number;
  answeredAt: number;
  ok: boolean;
}

describe('the whole JetStream cluster down under traffic', { skip: natsSkipReason() }, () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-outage-'));
  let database: Awaited<ReturnType<typeof createCrashDatabase>>;
  let nats: NatsCluster | undefined;
  const children: ChildProcess[] = [];
  /** What a failed wait leaves open: the load's workers and the test's own NATS connection (which reconnects forever). */
  const leftOpen: { stopWorkers?: () => Promise<void>; watcher?: NatsConnection } = {};

  /** The servers' warnings and errors (NATS statuses among them), printed when the test fails. */
  const serverLog: string[] = [];
  let passed = false;
  const keepWarnings = (text: string) => {
    for (const line of text.split('\n')) {
      if (/"level":(4|5|6)\d/.test(line) && serverLog.length < 300) serverLog.push(line.slice(0, 400));
    }
  };

  after(async () => {
    if (!passed)
      process.stdout.write(`# jetstream outage, the servers' warnings:\n${serverLog.map((line) => `#   ${line}`).join('\n')}\n`);
    await leftOpen.watcher?.close();
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await leftOpen.stopWorkers?.();
    await nats?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  it('answers clicks and beacons without waiting for the log, loses none, bills none twice', { timeout: 120_000 }, async () => {
    const startedAt = Date.now();
    [nats, database] = await Promise.all([startNatsCluster(3), createCrashDatabase('nativa_outage')]);
    const cluster = nats;
    const seed = await openDatabase({ databaseUrl: database?.url, dataDir });
    let blockId = 0;
    try {
      await migrate(seed);
      const advertiser = await insertAccount(seed.db, { kind: 'advertiser', username: 'outage-advertiser', depositMicros: 1e9 });
      const publisher = await insertAccount(seed.db, { kind: 'publisher', username: 'outage-publisher' });
      for (let index = 0; index < 3; index += 1) {
        const campaign = await insertCampaign(seed.db, { advertiserId: advertiser.id });
        await insertOffer(seed.db, { campaignId: campaign.id, bidMicros: 50_000 + index * 10_000 });
      }
      const site = await insertSite(seed.db, { publisherId: publisher.id });
      blockId = (await insertBlock(seed.db, { siteId: site.id, teaserCount: 3 })).id;
    } finally {
      await seed.close();
    }
    const port = await freePort();
    // Acknowledgements sent while the cluster is down are lost, and their events come again only
    // after the ack wait: 5 s rather than 30 keeps the settlement at the end within its wait.
    const env = {
      NATS_URL: cluster.urls,
      NATS_STREAM: 'OUTAGE_EVENTS',
      NATS_REPLICAS: '3',
      NATS_ACK_WAIT_MS: '5000',
      LOG_LEVEL: 'info',
    };
    const server = await startChildServer({ dataDir, port, databaseUrl: database?.url, env, onOutput: keepWarnings });
    children.push(server);
    const base = `https://127.0.0.1:${port}`;
    const agent = new https.Agent({ rejectUnauthorized: false, keepAlive: true });
    const get = (url: string) => request(agent, 'GET', url, { headers: { 'User-Agent': DESKTOP_UA } });

    const answers: Answer[] = [];
    const redirected: string[] = [];
    const acknowledgedViews: string[] = [];
    /** When each worker sent the click or beacon it waits for now, if it waits for one. */
    const waitingSince: (number | undefined)[] = [];
    let stop = false;
    const worker = async (index: number) => {
      // Bounded in count and time (inside the test's own bound), whatever happens.
      for (let round = 0; round < 1500 && !stop && Date.now() - startedAt < 115_000; round += 1) {
        try {
          const teasers = await get(`${base}/api/serve/blocks/${blockId}/teasers`);
          const list = (JSON.parse(teasers.body) as { teasers: { url: string; view: string }[] }).teasers;
          let sentAt = Date.now();
          waitingSince[index] = sentAt;
          const beacon = await request(agent, 'POST', `${base}/api/serve/views`, {
            headers: { 'User-Agent': DESKTOP_UA },
            body: { tokens: list.map((teaser) => teaser.view) },
          });
          answers.push({ kind: 'view', sentAt, answeredAt: Date.now(), ok: beacon.status === 204 });
          if (beacon.status === 204) acknowledgedViews.push(...list.map((teaser) => impressionIdOf(teaser.view)));
          const link = list[round % list.length];
          if (link === undefined) continue;
          sentAt = Date.now();
          waitingSince[index] = sentAt;
          const click = await get(link.url);
          const clickId = click.status === 302 && click.location ? new URL(click.location).searchParams.get('id') : null;
          answers.push({ kind: 'click', sentAt, answeredAt: Date.now(), ok: clickId !== null });
          if (clickId) redirected.push(clickId);
        } catch {
          // A connection that died: not expected here, the server stays up.
        } finally {
          waitingSince[index] = undefined;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const workers = Array.from({ length: 4 }, (_, index) => worker(index));
    leftOpen.stopWorkers = async () => {
      stop = true;
      await Promise.all(workers);
      agent.destroy();
    };
    const clicksSince = (at: number) => answers.filter((answer) => answer.kind === 'click' && answer.sentAt >= at).length;

    // Each phase is written as it ends, so a wait that fails shows where the time went.
    const phase = (name: string) => process.stdout.write(`# jetstream outage phase: ${name} at ${Date.now() - startedAt} ms\n`);
    phase('server started');
    await waitFor('clicks through the log', () => clicksSince(0) >= 30, { timeoutMs: 30_000, intervalMs: 50 });
    const downAt = Date.now();
    await Promise.all(cluster.nodes.map((node) => cluster.kill(node)));
    phase('cluster killed');
    // Counted from the second the judgement below starts at: a quick machine makes 40 clicks in
    // little more than that second, which left too few in the window judged.
    await waitFor('clicks while the whole cluster is down', () => clicksSince(downAt + 1000) >= 40, {
      timeoutMs: 40_000,
      intervalMs: 50,
    });
    // The outage judged ends here. Before any node starts again, every click and beacon sent in it
    // must have its answer: one still waiting then could only be waiting for the log. (Judging
    // them against the cluster's return raced with it: a slow answer from the database path to a
    // request sent just before the restart came after a quick election.)
    const judgedUntil = Date.now();
    await waitFor(
      'every click and beacon sent during the outage to be answered while the cluster is still down',
      () => waitingSince.every((sentAt) => sentAt === undefined || sentAt >= judgedUntil),
      { timeoutMs: 15_000, intervalMs: 20 },
    );
    const upAt = Date.now();
    phase('outage judged');
    for (const node of cluster.nodes) cluster.restart(node);
    await cluster.ready();
    phase('cluster ready');
    // The log is used again when the stream stores an event after its return: its last sequence
    // moves on. (Not its count of messages: the stream is a work queue, whose settled events go,
    // and the events whose acknowledgements the outage lost go when they are settled again.)
    const watcher = await connect({ servers: cluster.urls.split(','), maxReconnectAttempts: -1 });
    leftOpen.watcher = watcher;
    const manager = await jetstreamManager(watcher);
    const lastSequence = async () => (await manager.streams.info('OUTAGE_EVENTS')).state.last_seq;
    // waitFor returns only a truthy value: the sequence, never false.
    const atReturn = (await waitFor(
      'the stream to answer',
      async () => {
        const sequence = await lastSequence().catch(() => undefined);
        return sequence === undefined ? false : { sequence };
      },
      { timeoutMs: 30_000 },
    )) as { sequence: number };
    phase(`the stream answered at sequence ${atReturn.sequence}`);
    // A loaded machine (CI runs two files at once) takes a while to elect the stream's leader and
    // reconnect the server: these waits share the test's 120 s bound rather than each guessing a limit.
    await waitFor('the log to be used again', async () => (await lastSequence()) > atReturn.sequence, {
      timeoutMs: 45_000,
      intervalMs: 200,
    });
    const backAt = Date.now();
    phase('log used again');
    await waitFor('clicks through the log again', () => clicksSince(backAt) >= 20, { timeoutMs: 30_000, intervalMs: 50 });
    phase('clicks through the log again');
    stop = true;
    await Promise.all(workers);
    agent.destroy();
    await stopChild(server, 'SIGTERM');

    // The restart settles what the log still holds; then the books are read.
    const settler = await startChildServer({ dataDir, port, databaseUrl: database?.url, env, onOutput: keepWarnings });
    children.push(settler);
    phase('restarted to settle');
    await waitFor(
      'the log to be settled and acknowledged',
      async () => {
        for (const kind of EVENT_KINDS) {
          const info = await manager.consumers.info('OUTAGE_EVENTS', durableOf(kind));
          if (info.num_pending > 0 || info.num_ack_pending > 0) return false;
        }
        return true;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    await watcher.close();
    leftOpen.watcher = undefined;
    await stopChild(settler, 'SIGTERM');

    phase('log settled');
    const sentIn = (from: number, to: number) => (kind: Answer['kind']) =>
      answers.filter((answer) => answer.kind === kind && answer.sentAt >= from && answer.sentAt < to);
    const before = sentIn(0, downAt);
    // The first requests after the kill may still wait for a PubAck already on its way: the
    // outage is judged from a second after it began.
    const during = sentIn(downAt + 1000, judgedUntil);
    const afterwards = sentIn(backAt, Number.POSITIVE_INFINITY);
    const p = (list: Answer[], q: number) =>
      percentile(
        list.map((answer) => answer.answeredAt - answer.sentAt),
        q,
      );
    const summary = (['click', 'view'] as const)
      .map(
        (kind) =>
          `${kind}s p50/p99 before ${p(before(kind), 50)}/${p(before(kind), 99)} ms, during ${p(during(kind), 50)}/${p(during(kind), 99)} ms (${during(kind).length}), after ${p(afterwards(kind), 50)}/${p(afterwards(kind), 99)} ms`,
      )
      .join('; ');
    process.stdout.write(
      `# jetstream outage: ${summary}; ${redirected.length} clicks redirected, ${acknowledgedViews.length} views acknowledged\n`,
    );

    assert.ok(
      answers.every((answer) => answer.ok),
      'every click redirected with its id, every beacon answered 204',
    );
    // Order, not time: a request made during the outage did not wait for the log, so it was
    // answered while no node of the cluster ran.
    for (const kind of ['click', 'view'] as const) {
      assert.ok(during(kind).length >= 10, `${kind}s were made during the outage`);
      assert.deepEqual(
        during(kind).filter((answer) => answer.answeredAt > upAt),
        [],
        `every ${kind} made during the outage was answered before the cluster started again`,
      );
    }

    const check = await openDatabase({ databaseUrl: database?.url, dataDir });
    try {
      const rows = await check.db.selectFrom('clicks').select(['click_id', 'status']).execute();
      const byId = new Map(rows.map((row) => [row.click_id, row.status]));
      assert.equal(new Set(redirected).size, redirected.length, 'every 302 was for a different click');
      for (const clickId of redirected)
        assert.equal(byId.get(clickId), 'billed', `click ${clickId} got its 302, so it is billed`);
      assert.deepEqual(await check.db.selectFrom('accepted_clicks').select('click_id').execute(), [], 'every click settled');
      await assertClicksMatchTheirLedgerRows(check.db);
      const seen = new Set(
        (await check.db.selectFrom('viewed_impressions').select('token_id').execute()).map((row) => row.token_id),
      );
      assert.deepEqual(
        acknowledgedViews.filter((id) => !seen.has(id)),
        [],
        'every view whose beacon got its 204 is counted',
      );
    } finally {
      await check.close();
    }
    passed = true;
  });
});
