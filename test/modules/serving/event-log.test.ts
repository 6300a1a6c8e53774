// The event log below the HTTP layer (docs/adr/0029, 0036): clicks and views published to a
// JetStream stream on a private nats-server, the events of concurrent requests in one message,
// settled by durable pull consumers into the database with the settlement code of the database
// path, acknowledged after the commit. A batch delivered again after its commit (its consumer's
// connection died before the acknowledgement) changes nothing; a lone event is held no longer than
// the window (the window is held open by the test, not timed).
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
import {
  type BatchWindow,
  decodeEvents,
  EventBatcher,
  type Schedule,
} from '../../../src/modules/serving/event-log/event-batcher.ts';
import { EventConsumer } from '../../../src/modules/serving/event-log/event-consumer.ts';
import { isClickEvent, isViewEvent } from '../../../src/modules/serving/event-log/event-log.ts';
import { EventPublisher, type EventPublisherOptions } from '../../../src/modules/serving/event-log/event-publisher.ts';
import { durableOf, ensureEventStream, subjectOf } from '../../../src/modules/serving/event-log/event-stream.ts';
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
const decodeClicks = (data: Uint8Array) => decodeEvents<IncomingClick>(data, isClickEvent);
const decodeViews = (data: Uint8Array) => decodeEvents<ViewClaims>(data, isViewEvent);

/** A window the test closes itself: what was asked for, and the flushes waiting to run. */
function heldWindow(): { schedule: Schedule; asked: number[]; pending: (() => void)[]; close(): void } {
  const held = {
    asked: [] as number[],
    pending: [] as (() => void)[],
    schedule: ((flush, ms) => {
      held.asked.push(ms);
      held.pending.push(flush);
      return () => {
        held.pending = held.pending.filter((waiting) => waiting !== flush);
      };
    }) as Schedule,
    close() {
      const waiting = held.pending;
      held.pending = [];
      for (const flush of waiting) flush();
    },
  };
  return held;
}

/** Whether `promise` has settled once the microtasks queued now have run. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('gathering events into batches', () => {
  const window: BatchWindow = { maxWaitMs: 2, maxEvents: 5, maxBytes: 1000 };

  function recorder() {
    const sent: { body: string; id: string }[] = [];
    const send = async (body: string, id: string) => {
      sent.push({ body, id });
    };
    return { sent, send };
  }

  it('holds a lone event only until its window closes, and asks for the window it was given', async () => {
    const held = heldWindow();
    const { sent, send } = recorder();
    const batcher = new EventBatcher('click', send, window, held.schedule);
    const stored = batcher.add(['{"n":1}']);
    assert.deepEqual(held.asked, [window.maxWaitMs], 'one window, of the configured length');
    assert.equal(await isSettled(stored), false, 'not stored before the window closes');
    assert.equal(sent.length, 0);
    held.close();
    await stored;
    assert.equal(sent.length, 1);
    assert.deepEqual(JSON.parse(sent[0]?.body ?? ''), { events: [{ n: 1 }] });
  });

  it('sends a full batch at once, without waiting for the window, and starts the next', async () => {
    const held = heldWindow();
    const { sent, send } = recorder();
    const batcher = new EventBatcher('view', send, window, held.schedule);
    const requests = Array.from({ length: 6 }, (_, index) => batcher.add([`{"n":${index}}`]));
    await Promise.all(requests.slice(0, 5));
    assert.equal(sent.length, 1, 'the fifth event filled the batch');
    assert.equal(await isSettled(requests[5] as Promise<void>), false, 'the sixth waits for its own window');
    held.close();
    await requests[5];
    assert.deepEqual(
      sent.map((batch) => (JSON.parse(batch.body) as { events: unknown[] }).events.length),
      [5, 1],
    );
    assert.notEqual(sent[0]?.id, sent[1]?.id, 'each batch has its own message id');
    assert.match(sent[0]?.id ?? '', /^views:/);
  });

  it("keeps a request's events together and a batch under its byte bound", async () => {
    const held = heldWindow();
    const { sent, send } = recorder();
    const batcher = new EventBatcher('view', send, { ...window, maxEvents: 100 }, held.schedule);
    const big = `{"pad":"${'x'.repeat(400)}"}`;
    const first = batcher.add([big]);
    const second = batcher.add([big, big]);
    held.close();
    await Promise.all([first, second]);
    assert.deepEqual(
      sent.map((batch) => (JSON.parse(batch.body) as { events: unknown[] }).events.length),
      [1, 2],
      'the second request did not fit beside the first',
    );
  });

  it('fails every request of a batch whose publish failed, with its error', async () => {
    const held = heldWindow();
    const failure = new Error('no PubAck');
    const batcher = new EventBatcher('click', async () => Promise.reject(failure), window, held.schedule);
    const requests = [batcher.add(['{"n":1}']), batcher.add(['{"n":2}'])];
    held.close();
    const outcomes = await Promise.allSettled(requests);
    assert.deepEqual(
      outcomes.map((outcome) => (outcome.status === 'rejected' ? outcome.reason : outcome.status)),
      [failure, failure],
    );
  });

  it('reads batches and the single events of older messages, and nothing else', () => {
    const text = (value: string) => new TextEncoder().encode(value);
    const single = { claims: { clickId: 'a' } };
    assert.deepEqual(decodeClicks(text(JSON.stringify(single))), [single]);
    assert.deepEqual(decodeClicks(text(JSON.stringify({ events: [single, { claims: {} }, 3, null] }))), [single]);
    assert.deepEqual(decodeClicks(text('not json')), []);
    assert.deepEqual(decodeClicks(text('[1,2]')), []);
    assert.deepEqual(decodeViews(text(JSON.stringify({ events: [{ impressionId: 'v' }] }))), [{ impressionId: 'v' }]);
  });
});

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
  async function openStream(
    name: string,
    ackWaitMs = 30_000,
    options: EventPublisherOptions = {},
  ): Promise<{ settings: NatsSettings; publisher: EventPublisher; connection: NatsConnection }> {
    const streamSettings: NatsSettings = { servers: nats.urls.split(','), stream: name, replicas: 1, ackWaitMs };
    const connection = await connectTo();
    await ensureEventStream(await jetstreamManager(connection), streamSettings);
    return { settings: streamSettings, publisher: new EventPublisher(jetstream(connection), name, options), connection };
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

  it('stores the clicks of concurrent requests as one message, each released by its PubAck', async () => {
    const held = heldWindow();
    const { publisher, connection } = await openStream('LOG_SHARED', 30_000, { schedule: held.schedule });
    const clicks = Array.from({ length: 25 }, () => click());
    const requests = clicks.map((event) => publisher.publishClick(event));
    assert.equal(await isSettled(Promise.all(requests)), false, 'no request is released before the batch is stored');
    held.close();
    await Promise.all(requests);
    const stream = await (await jetstreamManager(connection)).streams.info('LOG_SHARED');
    assert.equal(stream.state.messages, 1, 'one message in the stream');
    assert.deepEqual(publisher.counts.click, { batches: 1, events: 25 });
    const message = await (await jetstreamManager(connection)).streams.getMessage('LOG_SHARED', { seq: stream.state.first_seq });
    assert.deepEqual(
      decodeClicks(message?.data ?? new Uint8Array()).map((event) => event.claims.clickId),
      clicks.map((event) => event.claims.clickId),
    );
    assert.match(message?.header.get('Nats-Msg-Id') ?? '', /^clicks:/);
  });

  it('fails every request of a batch the log does not take (no stream), so each can fall back', async () => {
    const connection = await connectTo();
    const publisher = new EventPublisher(jetstream(connection), 'LOG_NO_SUCH_STREAM');
    const outcomes = await Promise.allSettled([publisher.publishClick(click()), publisher.publishClick(click())]);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['rejected', 'rejected'],
    );
    assert.deepEqual(publisher.counts.click, { batches: 1, events: 2 }, 'they were one batch');
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
    const { settings: streamSettings, publisher, connection } = await openStream('LOG_REDELIVERY', 1000);
    const clicks = Array.from({ length: 40 }, () => click());
    const views = Array.from({ length: 30 }, () => view());
    // Batches of concurrent requests, a click followed twice (in two batches), and single events
    // as a version before batches published them (an upgrade finds them in the stream).
    await Promise.all(clicks.slice(0, 30).map((event) => publisher.publishClick(event)));
    await Promise.all([...clicks.slice(30, 36), clicks[0] as IncomingClick].map((event) => publisher.publishClick(event)));
    const js = jetstream(connection);
    for (const event of clicks.slice(36)) {
      await js.publish(subjectOf('LOG_REDELIVERY', 'click'), JSON.stringify(event), { msgID: `click:${event.claims.clickId}` });
    }
    await Promise.all([publisher.publishViews(views.slice(0, 4)), publisher.publishViews(views.slice(4, 28))]);
    await publisher.publishViews([views[0] as ViewClaims]);
    for (const event of views.slice(28)) {
      await js.publish(subjectOf('LOG_REDELIVERY', 'view'), JSON.stringify(event), { msgID: `view:${event.impressionId}` });
    }
    assert.ok(publisher.counts.click.batches < 37, `the clicks went in batches (${publisher.counts.click.batches})`);
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
      decode: decodeClicks,
      settle: (events) => settleThenDie(() => settleLoggedClicks(db, events, settings)),
      gatherMs: 200,
    });
    await firstClicks.start();
    await waitFor('the first click batch to commit', () => committed > 0, { timeoutMs: 10_000 });
    const afterFirst = await books();
    assert.ok(Number(afterFirst?.clicks) > Number(before?.clicks), 'the first batch wrote clicks');

    // A consumer on a live connection gets every click again (none was acknowledged) and the views.
    const live = await connectTo();
    const liveJs = jetstream(live);
    const outcomes: string[] = [];
    const clickConsumer = new EventConsumer<IncomingClick>({
      js: liveJs,
      stream: streamSettings.stream,
      kind: 'click',
      onError: (error) => errors.push(error),
      decode: decodeClicks,
      settle: async (events) => {
        for (const outcome of (await settleLoggedClicks(db, events, settings)).values()) outcomes.push(outcome);
      },
    });
    let counted = 0;
    const viewConsumer = new EventConsumer<ViewClaims>({
      js: liveJs,
      stream: streamSettings.stream,
      kind: 'view',
      onError: (error) => errors.push(error),
      decode: decodeViews,
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
