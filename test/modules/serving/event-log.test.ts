// The event log below the HTTP layer (docs/adr/0029): clicks and views published to a JetStream
// stream on a private nats-server, settled by durable pull consumers into the database with the
// settlement code of the database path, acknowledged after the commit. A batch delivered again
// after its commit (its consumer's connection died before the acknowledgement) changes nothing.
// Runs on PGlite, and on PostgreSQL with TEST_DATABASE_URL; skips without nats-server (not in CI).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { sql } from 'kysely';
import type { NatsSettings } from '../../../src/config.ts';
import type { Database, Db } from '../../../src/db/database.ts';
import { findOrCreatePlatformAccount } from '../../../src/modules/ledger/ledger.ts';
import type { IncomingClick } from '../../../src/modules/serving/billing/acceptance.ts';
import { settleLoggedClicks } from '../../../src/modules/serving/billing/logged-settlement.ts';
import type { SettlementSettings } from '../../../src/modules/serving/billing/settlement.ts';
import { EventConsumer } from '../../../src/modules/serving/event-log/event-consumer.ts';
import { EventPublisher } from '../../../src/modules/serving/event-log/event-publisher.ts';
import { durableOf, ensureEventStream } from '../../../src/modules/serving/event-log/event-stream.ts';
import { settleLoggedViews } from '../../../src/modules/serving/event-log/settle-views.ts';
import { newClickId } from '../../../src/modules/serving/tracking/click-token.ts';
import type { ViewClaims } from '../../../src/modules/serving/tracking/view-token.ts';
import { openTestDatabase } from '../../helpers/database.ts';
import { insertAccount, insertBlock, insertCampaign, insertOffer, insertSite } from '../../helpers/fixtures.ts';
import { type NatsCluster, natsSkipReason, startNatsCluster } from '../../helpers/private-nats.ts';
import { assertClicksMatchTheirLedgerRows, assertEveryBalanceIsItsLedger } from '../../helpers/serving.ts';
import { waitFor } from '../../helpers/wait.ts';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const TTL_MS = 3_600_000;

describe('the JetStream event log', { skip: natsSkipReason() }, () => {
  let nats: NatsCluster;
  let database: Database;
  let db: Db;
  let settings: SettlementSettings;
  let world: { advertiserId: number; publisherId: number; campaignId: number; offerId: number; siteId: number; blockId: number };
  let serial = 0;
  const connections: NatsConnection[] = [];

  before(async () => {
    nats = await startNatsCluster(1);
    database = await openTestDatabase();
    db = database.db;
    const advertiser = await insertAccount(db, { kind: 'advertiser', username: 'log-advertiser', depositMicros: 1_000_000_000 });
    const campaign = await insertCampaign(db, { advertiserId: advertiser.id });
    const offer = await insertOffer(db, { campaignId: campaign.id });
    const publisher = await insertAccount(db, { kind: 'publisher', username: 'log-publisher' });
    const site = await insertSite(db, { publisherId: publisher.id });
    const block = await insertBlock(db, { siteId: site.id });
    world = {
      advertiserId: advertiser.id,
      publisherId: publisher.id,
      campaignId: campaign.id,
      offerId: offer.id,
      siteId: site.id,
      blockId: block.id,
    };
    settings = { revenueSharePercent: 70, timeZone: 'UTC', platformAccountId: await findOrCreatePlatformAccount(db) };
  });

  after(async () => {
    for (const connection of connections) await connection.close().catch(() => undefined);
    await nats?.stop();
    await database?.close();
  });

  async function connectTo(): Promise<NatsConnection> {
    const connection = await connect({ servers: nats.urls.split(',') });
    connections.push(connection);
    return connection;
  }

  /** A stream of its own per test, so one test's events are not another's. */
  async function openStream(name: string, ackWaitMs = 30_000): Promise<{ settings: NatsSettings; publisher: EventPublisher }> {
    const streamSettings: NatsSettings = { servers: nats.urls.split(','), stream: name, replicas: 1, ackWaitMs };
    const connection = await connectTo();
    await ensureEventStream(await jetstreamManager(connection), streamSettings);
    return { settings: streamSettings, publisher: new EventPublisher(jetstream(connection), name) };
  }

  function click(chargeMicros = 20_000): IncomingClick {
    serial += 1;
    return {
      claims: {
        clickId: newClickId(),
        offerId: world.offerId,
        campaignId: world.campaignId,
        siteId: world.siteId,
        blockId: world.blockId,
        device: 1,
        country: 'DE',
        chargeMicros,
        issuedAt: NOW,
      },
      advertiserId: world.advertiserId,
      publisherId: world.publisherId,
      nowMs: NOW + serial,
      address: '203.0.113.7',
      refusal: null,
    };
  }

  function view(): ViewClaims {
    return {
      impressionId: newClickId(),
      offerId: world.offerId,
      campaignId: world.campaignId,
      siteId: world.siteId,
      blockId: world.blockId,
      device: 1,
      country: 'DE',
      issuedAt: NOW,
    };
  }

  /** What settlements write: a second settlement of the same events must leave all of it as it was. */
  async function books() {
    const { rows } = await sql<{
      clicks: string;
      ledger: string;
      balance: string;
      views: string;
      seen: string;
      stats_clicks: string;
    }>`
      SELECT (SELECT count(*) FROM clicks) AS clicks,
             (SELECT count(*) FROM ledger_entries) AS ledger,
             (SELECT sum(balance_micros) FILTER (WHERE kind = 'advertiser') FROM accounts) AS balance,
             (SELECT coalesce(sum(views), 0) FROM stats_campaign_daily) AS views,
             (SELECT count(*) FROM viewed_impressions) AS seen,
             (SELECT coalesce(sum(clicks), 0) FROM stats_campaign_daily) AS stats_clicks`.execute(db);
    return rows[0];
  }

  it('stores a click once per id: the second publish within the window is a duplicate', async () => {
    const { publisher } = await openStream('LOG_DUPLICATES');
    const first = click();
    assert.equal(await publisher.publishClick(first), true);
    assert.equal(await publisher.publishClick(first), false, 'the same click id again is acknowledged as a duplicate');
    assert.deepEqual(await publisher.publishViews([view(), view()]), [true, true]);
  });

  it('counts a view once when its event is in a batch twice (delivered again before the first was settled)', async () => {
    const before = await books();
    const twice = view();
    const counted = await settleLoggedViews(db, [twice, view(), twice], { timeZone: 'UTC', tokenTtlMs: TTL_MS, nowMs: NOW });
    assert.equal(counted.length, 2);
    const after = await books();
    assert.equal(Number(after?.views) - Number(before?.views), 2, 'the rollup has both views');
    assert.equal(Number(after?.seen) - Number(before?.seen), 2, 'the seen-set has both ids');
  });

  it('settles logged clicks and views once, and a batch delivered again changes nothing', async () => {
    const { settings: streamSettings, publisher } = await openStream('LOG_REDELIVERY', 1000);
    const clicks = Array.from({ length: 40 }, () => click());
    const views = Array.from({ length: 30 }, () => view());
    for (const event of clicks) assert.equal(await publisher.publishClick(event), true);
    assert.deepEqual(
      await publisher.publishViews(views),
      views.map(() => true),
    );
    const before = await books();

    // The first consumer commits its batches and loses its connection before acknowledging them.
    const dying = await connectTo();
    let committed = 0;
    const settleThenDie = async (settle: () => Promise<unknown>) => {
      await settle();
      committed += 1;
      await dying.close();
    };
    const errors: unknown[] = [];
    const common = { js: jetstream(dying), stream: streamSettings.stream, onError: (error: unknown) => errors.push(error) };
    const firstClicks = new EventConsumer<IncomingClick>({
      ...common,
      kind: 'click',
      decode: (data) => JSON.parse(Buffer.from(data).toString()) as IncomingClick,
      settle: (events) => settleThenDie(() => settleLoggedClicks(db, events, settings)),
      gatherMs: 200,
    });
    await firstClicks.start();
    await waitFor('the first click batch to commit', () => committed > 0, { timeoutMs: 10_000 });
    const afterFirst = await books();
    assert.ok(Number(afterFirst?.clicks) > Number(before?.clicks), 'the first batch wrote clicks');

    // A consumer on a live connection gets every click again (none was acknowledged) and the views.
    const live = await connectTo();
    const js = jetstream(live);
    const outcomes: string[] = [];
    const clickConsumer = new EventConsumer<IncomingClick>({
      js,
      stream: streamSettings.stream,
      kind: 'click',
      onError: (error) => errors.push(error),
      decode: (data) => JSON.parse(Buffer.from(data).toString()) as IncomingClick,
      settle: async (events) => {
        for (const outcome of (await settleLoggedClicks(db, events, settings)).values()) outcomes.push(outcome);
      },
    });
    let counted = 0;
    const viewConsumer = new EventConsumer<ViewClaims>({
      js,
      stream: streamSettings.stream,
      kind: 'view',
      onError: (error) => errors.push(error),
      decode: (data) => JSON.parse(Buffer.from(data).toString()) as ViewClaims,
      settle: async (events) => {
        counted += (await settleLoggedViews(db, events, { timeZone: 'UTC', tokenTtlMs: TTL_MS, nowMs: NOW })).length;
      },
    });
    await clickConsumer.start();
    await viewConsumer.start();
    const manager = await jetstreamManager(live);
    await waitFor(
      'every event to be settled and acknowledged',
      async () => {
        for (const kind of ['click', 'view'] as const) {
          const info = await manager.consumers.info(streamSettings.stream, durableOf(kind));
          if (info.num_pending > 0 || info.num_ack_pending > 0) return false;
        }
        return true;
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    await clickConsumer.close();
    await viewConsumer.close();

    const billed = await db
      .selectFrom('clicks')
      .select(['click_id', 'status'])
      .where(
        'click_id',
        'in',
        clicks.map((event) => event.claims.clickId),
      )
      .execute();
    assert.equal(billed.length, clicks.length, 'every logged click has one click row');
    assert.ok(
      billed.every((row) => row.status === 'billed'),
      'and each is billed',
    );
    assert.ok(
      outcomes.filter((outcome) => outcome === 'duplicate').length >= Number(afterFirst?.clicks) - Number(before?.clicks),
      `the clicks of the committed batch came again and were duplicates (${outcomes.join(',')})`,
    );
    assert.equal(counted, views.length, 'each view counted once');
    const final = await books();
    assert.equal(Number(final?.clicks) - Number(before?.clicks), clicks.length);
    assert.equal(Number(final?.stats_clicks) - Number(before?.stats_clicks), clicks.length, 'the rollup counts each click once');
    assert.equal(Number(final?.views) - Number(before?.views), views.length, 'the rollup counts each view once');
    assert.equal(
      Number(before?.balance) - Number(final?.balance),
      clicks.reduce((sum, event) => sum + event.claims.chargeMicros, 0),
      'the advertiser paid for each click once',
    );
    await assertClicksMatchTheirLedgerRows(db);
    await assertEveryBalanceIsItsLedger(db);

    // Settling the same events yet again (a consumer far behind) still changes nothing.
    const settledAgain = await settleLoggedClicks(db, clicks, settings);
    assert.ok([...settledAgain.values()].every((outcome) => outcome === 'duplicate'));
    assert.equal((await settleLoggedViews(db, views, { timeZone: 'UTC', tokenTtlMs: TTL_MS, nowMs: NOW })).length, 0);
    assert.deepEqual(await books(), final);
  });
});
