// Clicks and viewability beacons through the NATS JetStream event log (NATS_URL, docs/adr/0029),
// judged against the run's bare route (server-CPU ratio): the 302 and the 204 wait for the PubAck,
// not for a PostgreSQL commit. Then how late the log's settlement ran under that load (p99 from a
// click's redirect to its settlement's commit), and how many events per second one consumer
// settles into PostgreSQL from a backlog. A private single-node nats-server (stream R1) unless
// BENCH_NATS_URL names servers; R3 on separate machines costs a network round trip more per PubAck.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { loadConfig, type NatsSettings } from '../../src/config.ts';
import { applyLedgerChange, findOrCreatePlatformAccount } from '../../src/modules/ledger/ledger.ts';
import type { IncomingClick } from '../../src/modules/serving/billing/acceptance.ts';
import { settleLoggedClicks } from '../../src/modules/serving/billing/logged-settlement.ts';
import { decodeEvents } from '../../src/modules/serving/event-log/event-batcher.ts';
import { EventConsumer } from '../../src/modules/serving/event-log/event-consumer.ts';
import { isClickEvent } from '../../src/modules/serving/event-log/event-log.ts';
import { EventPublisher } from '../../src/modules/serving/event-log/event-publisher.ts';
import { ensureEventStream, subjectOf } from '../../src/modules/serving/event-log/event-stream.ts';
import type { ServingEngine } from '../../src/modules/serving/serving-engine.ts';
import { newClickId } from '../../src/modules/serving/tracking/click-token.ts';
import { startServer } from '../../src/server.ts';
import { generateSelfSigned } from '../../src/tls.ts';
import { startNatsCluster } from '../../test/helpers/private-nats.ts';
import { withCpu } from '../lib/cpu.ts';
import { withBenchDatabase } from '../lib/database.ts';
import { failedResponses, load } from '../lib/load.ts';
import { type BenchRow, judgedAgainstBare } from '../lib/report.ts';
import type { BenchContext, Scenario } from '../run.ts';
import { loadInOwnProcess, seed, TOKENS_PER_BEACON } from './6-view-beacon.ts';

const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
/** Events in the backlog one consumer settles for the events-per-second row. */
const BACKLOG = 20_000;

const scenario: Scenario = {
  name: 'clicks and beacons through NATS JetStream (PostgreSQL)',
  async run(context: BenchContext): Promise<BenchRow[]> {
    const given = process.env.BENCH_NATS_URL;
    const nats = given === undefined ? await startNatsCluster(1) : undefined;
    try {
      const servers = given ?? nats?.urls ?? '';
      return await withBenchDatabase((databaseUrl) => measure(context, databaseUrl, servers));
    } finally {
      await nats?.stop();
    }
  },
};

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

async function measure(context: BenchContext, databaseUrl: string, servers: string): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-bench-log-'));
  const stream = `BENCH_${process.pid}`;
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: databaseUrl,
    NATS_URL: servers,
    NATS_STREAM: stream,
    NATS_REPLICAS: process.env.BENCH_NATS_REPLICAS ?? '1',
  });
  const tls = await generateSelfSigned();
  const server = await startServer(config, { tls, logger: false });
  // Judged against the run's bare route: server CPU per response, and p99 (bench/lib/report.ts).
  const judged = (row: BenchRow, serverCpuRatio: number): BenchRow =>
    judgedAgainstBare(row, context.bare, { serverCpuRatio, p99TimesBare: 2 });
  try {
    const engine = server.context.serving;
    if (engine === undefined) throw new Error('no serving engine');
    const ads = await seed(server.context.db);
    const { advertiser_id: advertiserId } = await server.context.db
      .selectFrom('campaigns')
      .select('advertiser_id')
      .where('id', '=', ads[0]?.campaignId ?? 0)
      .executeTakeFirstOrThrow();
    await server.context.db
      .transaction()
      .execute((trx) =>
        applyLedgerChange(trx, { accountId: advertiserId, amountMicros: 1_000_000_000_000, kind: 'deposit', comment: 'bench' }),
      );
    await engine.refresh();
    const rows = [judged(await measureClicks(context, server.url, databaseUrl, engine, ads), 0.55)];
    const lags = [...engine.eventLagMs];
    rows.push(judged(await measureExpiredLinks(context, server.url, databaseUrl, engine, ads), 0.85));
    rows.push(judged(await measureBeacons(context, server.url, databaseUrl, engine, ads), 0.55));
    const p99 = percentile(lags, 0.99);
    process.stderr.write(
      `bench: settlement lag of ${lags.length} logged clicks: p50 ${percentile(lags, 0.5)} ms, p99 ${p99} ms, max ${Math.max(0, ...lags)} ms\n`,
    );
    rows.push({
      scenario: 'settlement lag of logged clicks under that load (ms)',
      result: {
        requestsPerSecond: 0,
        p50: percentile(lags, 0.5),
        p99,
        total: lags.length,
        errors: 0,
        timeouts: 0,
        statuses: {},
        tool: 'node',
      },
      counts: { 'clicks settled': lags.length, 'p99 lag ms': p99 },
    });
    rows.push(await measureConsumer(servers, stream, server.context.db, ads));
    rows.push(...(await measurePublishCpu(servers, stream, context)));
    return rows;
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

type Ads = Awaited<ReturnType<typeof seed>>;

async function measureClicks(
  context: BenchContext,
  url: string,
  databaseUrl: string,
  engine: ServingEngine,
  ads: Ads,
): Promise<BenchRow> {
  const issuedAt = Date.now();
  const links = Math.max(50_000, Math.ceil(context.bare.result.requestsPerSecond * context.durationSeconds * 0.8));
  const paths = Array.from({ length: links }, (_, index) => {
    const ad = ads[index % ads.length];
    if (ad === undefined) throw new Error('no ads to click');
    const claims = { ...ad, chargeMicros: 10_000, clickId: newClickId(), device: 1, country: '', issuedAt };
    return `/api/serve/click/${engine.signer.sign(claims).click}`;
  });
  const acceptedBefore = engine.tally.clicksAccepted;
  const billedBefore = engine.tally.clicksBilled;
  const { result, cpu } = await withCpu(async () => {
    const loaded = await load({
      url: `${url}/`,
      connections: context.connections,
      durationSeconds: context.durationSeconds,
      headers: { 'User-Agent': USER_AGENT },
      paths,
    });
    // The consumer catches up with the load (bounded): its CPU belongs to the clicks.
    const deadline = Date.now() + 60_000;
    while (engine.tally.clicksBilled - billedBefore < engine.tally.clicksAccepted - acceptedBefore && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return loaded;
  }, databaseUrl);
  const accepted = engine.tally.clicksAccepted - acceptedBefore;
  const billed = engine.tally.clicksBilled - billedBefore;
  const redirected = result.statuses['3xx'] ?? 0;
  return {
    scenario: 'GET /api/serve/click/{token} through JetStream (billed)',
    result,
    goal: 'billed = accepted',
    met: redirected === result.total && billed === accepted && accepted >= redirected,
    counts: {
      'redirects within the run': redirected,
      'clicks accepted (PubAck)': accepted,
      'clicks billed': billed,
      'taken by the database instead': engine.tally.logFallbacks,
    },
    cpu,
  };
}

/**
 * The same route and redirect with links past their lifetime: verified, redirected without a click
 * id, nothing accepted, published or settled. Its CPU per response is what a logged click costs
 * before its acceptance: the subtraction in docs/operating.md starts from it.
 */
async function measureExpiredLinks(
  context: BenchContext,
  url: string,
  databaseUrl: string,
  engine: ServingEngine,
  ads: Ads,
): Promise<BenchRow> {
  const issuedAt = Date.now() - 2 * 3_600_000;
  const paths = Array.from({ length: 20_000 }, (_, index) => {
    const ad = ads[index % ads.length];
    if (ad === undefined) throw new Error('no ads to click');
    const claims = { ...ad, chargeMicros: 10_000, clickId: newClickId(), device: 1, country: '', issuedAt };
    return `/api/serve/click/${engine.signer.sign(claims).click}`;
  });
  const acceptedBefore = engine.tally.clicksAccepted;
  const { result, cpu } = await withCpu(
    () =>
      load({
        url: `${url}/`,
        connections: context.connections,
        durationSeconds: context.durationSeconds,
        headers: { 'User-Agent': USER_AGENT },
        paths,
      }),
    databaseUrl,
  );
  return {
    scenario: 'GET /api/serve/click/{token}, expired links (redirect, nothing accepted)',
    result,
    met: (result.statuses['3xx'] ?? 0) === result.total && engine.tally.clicksAccepted === acceptedBefore,
    counts: { 'redirects within the run': result.statuses['3xx'] ?? 0 },
    cpu,
  };
}

async function measureBeacons(
  context: BenchContext,
  url: string,
  databaseUrl: string,
  engine: ServingEngine,
  ads: Ads,
): Promise<BenchRow> {
  const beacons = Math.max(50_000, Math.ceil(context.bare.result.requestsPerSecond * context.durationSeconds * 0.8));
  const viewsBefore = engine.tally.views;
  const { result, cpu } = await withCpu(async () => {
    const loaded = await loadInOwnProcess({
      url: `${url}/api/serve/views`,
      connections: context.connections,
      durationSeconds: context.durationSeconds,
      secret: (engine as unknown as { options: { signingSecret: string } }).options.signingSecret,
      issuedAt: Date.now(),
      ads,
      beacons,
    });
    const answered = (loaded.statuses['2xx'] ?? 0) * TOKENS_PER_BEACON;
    const deadline = Date.now() + 60_000;
    while (engine.tally.views - viewsBefore < answered && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    return { ...loaded, tool: 'node' as const };
  }, databaseUrl);
  const answered = result.statuses['2xx'] ?? 0;
  const counted = engine.tally.views - viewsBefore;
  return {
    scenario: `POST /api/serve/views (${TOKENS_PER_BEACON} tokens) through JetStream`,
    result,
    goal: 'every view counted',
    met: answered === result.total && failedResponses(result) === 0 && counted >= answered * TOKENS_PER_BEACON,
    counts: { 'beacons answered 204': answered, 'views counted': counted },
    cpu,
  };
}

/** One consumer settling a backlog of click events into PostgreSQL: events per second. */
async function measureConsumer(
  servers: string,
  name: string,
  db: import('../../src/db/database.ts').Db,
  ads: Ads,
): Promise<BenchRow> {
  const settings: NatsSettings = { servers: servers.split(','), stream: `${name}_BACKLOG`, replicas: 1, ackWaitMs: 60_000 };
  const connection = await connect({ servers: settings.servers });
  try {
    await ensureEventStream(await jetstreamManager(connection), settings);
    const js = jetstream(connection);
    const publisher = new EventPublisher(js, settings.stream);
    const publisherAccount = await db
      .selectFrom('sites')
      .select('publisher_id')
      .where('id', '=', ads[0]?.siteId ?? 0)
      .executeTakeFirstOrThrow();
    const advertiser = await db
      .selectFrom('campaigns')
      .select('advertiser_id')
      .where('id', '=', ads[0]?.campaignId ?? 0)
      .executeTakeFirstOrThrow();
    const now = Date.now();
    for (let start = 0; start < BACKLOG; start += 1000) {
      await Promise.all(
        Array.from({ length: 1000 }, (_, offset) => {
          const ad = ads[(start + offset) % ads.length];
          if (ad === undefined) throw new Error('no ads');
          const click: IncomingClick = {
            claims: { ...ad, clickId: newClickId(), device: 1, country: '', chargeMicros: 10_000, issuedAt: now },
            advertiserId: advertiser.advertiser_id,
            publisherId: publisherAccount.publisher_id,
            nowMs: now,
            address: null,
            refusal: null,
          };
          return publisher.publishClick(click);
        }),
      );
    }
    const settlement = { revenueSharePercent: 70, timeZone: 'UTC', platformAccountId: await findOrCreatePlatformAccount(db) };
    const consumer = new EventConsumer<IncomingClick>({
      js,
      stream: settings.stream,
      kind: 'click',
      decode: (data) => decodeEvents<IncomingClick>(data, isClickEvent),
      settle: async (events) => {
        await settleLoggedClicks(db, events, settlement);
      },
      onError: (error) => process.stderr.write(`bench: settling the backlog failed: ${(error as Error).message}\n`),
    });
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    await consumer.start();
    const deadline = Date.now() + 120_000;
    while (consumer.counts.events < BACKLOG && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    await consumer.close();
    const perSecond = consumer.counts.events / seconds;
    const cpuPerEvent = (cpu.user + cpu.system) / Math.max(1, consumer.counts.events);
    process.stderr.write(
      `bench: one consumer settled ${consumer.counts.events} click events in ${seconds.toFixed(1)} s (${consumer.counts.settlements} settlements)\n`,
    );
    return {
      scenario: 'click events one consumer settles from a backlog (events/s)',
      result: {
        requestsPerSecond: perSecond,
        p50: 0,
        p99: 0,
        total: consumer.counts.events,
        errors: 0,
        timeouts: 0,
        statuses: {},
        tool: 'node',
      },
      counts: {
        events: consumer.counts.events,
        settlements: consumer.counts.settlements,
        'process CPU µs per event': Math.round(cpuPerEvent * 10) / 10,
      },
    };
  } finally {
    await connection.close();
  }
}

/**
 * The process's CPU per logged click on the publish path alone, without HTTP or settlement:
 * `connections` requests in a loop, each awaiting its click's PubAck, first one JetStream message
 * per click (Nats-Msg-Id = the click, as before docs/adr/0036), then the batched publisher. CPU
 * time, not throughput, so a loaded machine moves it less than the ratios above.
 */
async function measurePublishCpu(servers: string, name: string, context: BenchContext): Promise<BenchRow[]> {
  const settings: NatsSettings = { servers: servers.split(','), stream: `${name}_PUBLISH`, replicas: 1, ackWaitMs: 60_000 };
  const connection = await connect({ servers: settings.servers });
  try {
    await ensureEventStream(await jetstreamManager(connection), settings);
    const js = jetstream(connection);
    const subject = subjectOf(settings.stream, 'click');
    const publisher = new EventPublisher(js, settings.stream);
    const click = (): IncomingClick => ({
      claims: {
        clickId: newClickId(),
        offerId: 1,
        campaignId: 1,
        siteId: 1,
        blockId: 1,
        device: 1,
        country: '',
        chargeMicros: 10_000,
        issuedAt: Date.now(),
      },
      advertiserId: 1,
      publisherId: 1,
      nowMs: Date.now(),
      address: null,
      refusal: null,
    });
    const variants: [string, (event: IncomingClick) => Promise<unknown>][] = [
      [
        'one message per click',
        (event) => js.publish(subject, JSON.stringify(event), { msgID: `click:${event.claims.clickId}`, timeout: 3000 }),
      ],
      ['batched (2 ms window)', (event) => publisher.publishClick(event)],
    ];
    const rows: BenchRow[] = [];
    for (const [label, publish] of variants) {
      const seconds = Math.max(2, context.durationSeconds / 2);
      const deadline = performance.now() + seconds * 1000;
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      let published = 0;
      await Promise.all(
        Array.from({ length: context.connections }, async () => {
          while (performance.now() < deadline) {
            await publish(click());
            published += 1;
          }
        }),
      );
      const elapsed = (performance.now() - started) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      const cpuPerClick = (cpu.user + cpu.system) / published;
      process.stderr.write(`bench: publish path, ${label}: ${published} clicks, ${cpuPerClick.toFixed(1)} µs CPU each\n`);
      rows.push({
        scenario: `publish path alone, ${context.connections} in flight: ${label} (clicks/s)`,
        result: {
          requestsPerSecond: published / elapsed,
          p50: 0,
          p99: 0,
          total: published,
          errors: 0,
          timeouts: 0,
          statuses: {},
          tool: 'node',
        },
        counts: { clicks: published, 'process CPU µs per click': Math.round(cpuPerClick * 10) / 10 },
      });
    }
    await jetstreamManager(connection).then((manager) => manager.streams.delete(settings.stream));
    return rows;
  } finally {
    await connection.close();
  }
}

export default scenario;
