// Clicks below the HTTP layer: acceptance (the durable record before the redirect) and settlement
// (click rows, ledger and rollup together), duplicates, settlements racing each other for the same
// clicks (two instances, a sweep, a conversion), clicks an advertiser cannot pay for, refusals,
// and the settler that runs settlements in the background. Runs on PGlite, and on PostgreSQL with
// TEST_DATABASE_URL, where the racing settlements really run on connections of their own.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Database, Db } from '../../../../src/db/database.ts';
import { findOrCreatePlatformAccount } from '../../../../src/modules/ledger/ledger.ts';
import { acceptClicks, type IncomingClick } from '../../../../src/modules/serving/billing/acceptance.ts';
import { splitCharge } from '../../../../src/modules/serving/billing/charge-split.ts';
import { ClickSettler } from '../../../../src/modules/serving/billing/click-settler.ts';
import {
  type ClickOutcome,
  findAcceptedClicks,
  recordConversion,
  type SettlementSettings,
  settleClicks,
} from '../../../../src/modules/serving/billing/settlement.ts';
import { newClickId } from '../../../../src/modules/serving/tracking/click-token.ts';
import { recordEvents } from '../../../../src/modules/statistics/record-events.ts';
import { GOALS, type TrafficEvent } from '../../../../src/modules/statistics/vocabulary.ts';
import { openTestDatabase } from '../../../helpers/database.ts';
import { insertAccount, insertBlock, insertCampaign, insertOffer, insertSite } from '../../../helpers/fixtures.ts';
import {
  assertCampaignRollupMatchesAdRollup,
  assertClicksMatchTheirLedgerRows,
  assertEveryBalanceIsItsLedger,
} from '../../../helpers/serving.ts';
import { waitFor } from '../../../helpers/wait.ts';

const REVENUE_SHARE = 70;
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

interface World {
  advertiserIds: number[];
  publisherId: number;
  platformId: number;
  ads: { advertiserId: number; campaignId: number; offerId: number }[];
  siteId: number;
  blockId: number;
}

describe('click acceptance and settlement', () => {
  let database: Database;
  let db: Db;
  let world: World;
  let settings: SettlementSettings;
  let serial = 0;

  before(async () => {
    database = await openTestDatabase();
    db = database.db;
    const advertiserIds: number[] = [];
    const ads: World['ads'] = [];
    for (let index = 0; index < 3; index += 1) {
      const advertiser = await insertAccount(db, {
        kind: 'advertiser',
        username: `billing-advertiser-${index}`,
        depositMicros: 1_000_000_000,
      });
      advertiserIds.push(advertiser.id);
      const campaign = await insertCampaign(db, { advertiserId: advertiser.id });
      for (let ad = 0; ad < 2; ad += 1) {
        const offer = await insertOffer(db, { campaignId: campaign.id });
        ads.push({ advertiserId: advertiser.id, campaignId: campaign.id, offerId: offer.id });
      }
    }
    const publisher = await insertAccount(db, { kind: 'publisher', username: 'billing-publisher' });
    const site = await insertSite(db, { publisherId: publisher.id });
    const block = await insertBlock(db, { siteId: site.id });
    world = {
      advertiserIds,
      publisherId: publisher.id,
      platformId: await findOrCreatePlatformAccount(db),
      ads,
      siteId: site.id,
      blockId: block.id,
    };
    settings = { revenueSharePercent: REVENUE_SHARE, timeZone: 'UTC', platformAccountId: world.platformId };
  });

  after(async () => {
    await database.close();
  });

  /** A verified click on the n-th ad, as the engine hands it to acceptance; each a millisecond after the last. */
  function click(
    adIndex: number,
    chargeMicros = 10_000 + (serial % 7) * 1_000,
    refusal: IncomingClick['refusal'] = null,
  ): IncomingClick {
    serial += 1;
    const ad = world.ads[adIndex % world.ads.length] as World['ads'][number];
    return {
      claims: {
        clickId: newClickId(),
        offerId: ad.offerId,
        campaignId: ad.campaignId,
        siteId: world.siteId,
        blockId: world.blockId,
        device: 1,
        country: 'DE',
        chargeMicros,
        issuedAt: NOW,
      },
      advertiserId: ad.advertiserId,
      publisherId: world.publisherId,
      nowMs: NOW + serial,
      address: '203.0.113.7',
      refusal,
    };
  }

  const idsOf = (clicks: readonly IncomingClick[]) => clicks.map((incoming) => incoming.claims.clickId);

  /** Accepts the clicks (each must be new) and settles them; the settlement's outcomes in the clicks' order. */
  async function acceptAndSettle(clicks: readonly IncomingClick[]): Promise<(ClickOutcome | undefined)[]> {
    const verdicts = await acceptClicks(db, clicks);
    assert.deepEqual(
      verdicts,
      clicks.map((incoming) => incoming.refusal ?? 'accepted'),
    );
    const outcomes = await settleClicks(db, idsOf(clicks), settings);
    return idsOf(clicks).map((id) => outcomes.get(id));
  }

  async function statsSums() {
    const row = await db
      .selectFrom('stats_campaign_daily')
      .select((eb) => [
        eb.fn.coalesce(eb.fn.sum<number>('clicks'), eb.lit(0)).as('clicks'),
        eb.fn.coalesce(eb.fn.sum<number>('views'), eb.lit(0)).as('views'),
      ])
      .executeTakeFirstOrThrow();
    return { clicks: Number(row.clicks), views: Number(row.views) };
  }

  /**
   * The books of the whole database: every balance equals its ledger, and clicks, ledger and
   * rollups agree. Returns how many clicks are billed.
   */
  async function assertBooksBalance() {
    await assertEveryBalanceIsItsLedger(db);
    await assertClicksMatchTheirLedgerRows(db);
    await assertCampaignRollupMatchesAdRollup(db);
    const billed = await db
      .selectFrom('clicks')
      .select((eb) => [
        eb.fn.countAll<number>().as('count'),
        eb.fn.coalesce(eb.fn.sum<number>('charge_micros'), eb.lit(0)).as('charge'),
        eb.fn.coalesce(eb.fn.sum<number>('publisher_micros'), eb.lit(0)).as('publisher'),
      ])
      .where('status', '=', 'billed')
      .executeTakeFirstOrThrow();
    const byKind = async (kind: string) =>
      Number(
        (
          await db
            .selectFrom('ledger_entries')
            .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_micros'), eb.lit(0)).as('sum'))
            .where('kind', '=', kind)
            .executeTakeFirstOrThrow()
        ).sum,
      );
    assert.equal(-(await byKind('click_charge')), Number(billed.charge));
    assert.equal(await byKind('click_revenue'), Number(billed.publisher));
    assert.equal(-(await byKind('click_charge')), (await byKind('click_revenue')) + (await byKind('click_margin')));
    const rollup = await db
      .selectFrom('stats_daily')
      .select((eb) => [
        eb.fn.coalesce(eb.fn.sum<number>('clicks'), eb.lit(0)).as('clicks'),
        eb.fn.coalesce(eb.fn.sum<number>('spend_micros'), eb.lit(0)).as('spend'),
        eb.fn.coalesce(eb.fn.sum<number>('publisher_income_micros'), eb.lit(0)).as('income'),
      ])
      .executeTakeFirstOrThrow();
    assert.equal(Number(rollup.clicks), Number(billed.count));
    assert.equal(Number(rollup.spend), Number(billed.charge));
    assert.equal(Number(rollup.income), Number(billed.publisher));
    return Number(billed.count);
  }

  it('accepts a batch in one statement and settles it in one go: a ledger row per account and kind naming the settlement', async () => {
    const batch = Array.from({ length: 12 }, (_, index) => click(index));
    const before = await db
      .selectFrom('ledger_entries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.deepEqual(await acceptClicks(db, batch), Array(12).fill('accepted'));
    const accepted = await db.selectFrom('accepted_clicks').select('click_id').where('click_id', 'in', idsOf(batch)).execute();
    assert.equal(accepted.length, 12, 'accepted: durable, not yet in clicks');
    assert.equal((await db.selectFrom('clicks').select('click_id').where('click_id', 'in', idsOf(batch)).execute()).length, 0);

    const outcomes = await settleClicks(db, idsOf(batch), settings);
    assert.deepEqual(
      idsOf(batch).map((id) => outcomes.get(id)),
      Array(12).fill('billed'),
    );
    assert.equal(
      (await db.selectFrom('accepted_clicks').select('click_id').where('click_id', 'in', idsOf(batch)).execute()).length,
      0,
    );
    const clickRows = await db.selectFrom('clicks').select(['billing_batch']).where('click_id', 'in', idsOf(batch)).execute();
    const batchIds = new Set(clickRows.map((row) => row.billing_batch));
    assert.equal(clickRows.length, 12);
    assert.equal(batchIds.size, 1, 'one billing batch');
    const rows = await db
      .selectFrom('ledger_entries')
      .select(['account_id', 'kind', 'amount_micros', 'counterparty_id', 'comment'])
      .where('reference', '=', [...batchIds][0] ?? '')
      .orderBy('id')
      .execute();
    const splits = batch.map((incoming) => splitCharge(incoming.claims.chargeMicros, REVENUE_SHARE));
    const chargeOf = (advertiserId: number) =>
      batch.reduce((sum, incoming) => sum + (incoming.advertiserId === advertiserId ? incoming.claims.chargeMicros : 0), 0);
    assert.deepEqual(rows, [
      ...world.advertiserIds.map((advertiserId) => ({
        account_id: advertiserId,
        kind: 'click_charge',
        amount_micros: -chargeOf(advertiserId),
        counterparty_id: world.publisherId,
        comment: '4 clicks',
      })),
      {
        account_id: world.publisherId,
        kind: 'click_revenue',
        amount_micros: splits.reduce((sum, split) => sum + split.publisherMicros, 0),
        counterparty_id: null,
        comment: '12 clicks',
      },
      {
        account_id: world.platformId,
        kind: 'click_margin',
        amount_micros: splits.reduce((sum, split) => sum + split.marginMicros, 0),
        counterparty_id: null,
        comment: '12 clicks',
      },
    ]);
    const after = await db
      .selectFrom('ledger_entries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(after.n) - Number(before.n), 5, 'five rows for twelve clicks');
    await assertBooksBalance();
  });

  it('takes each click link once: repeats in a batch, while accepted, and after settlement', async () => {
    const countBefore = await assertBooksBalance();
    const first = click(0);
    const other = click(1);
    assert.deepEqual(await acceptClicks(db, [first, other, first]), ['accepted', 'accepted', 'duplicate']);
    assert.deepEqual(await acceptClicks(db, [other]), ['duplicate'], 'accepted and not yet settled');
    assert.deepEqual([...(await settleClicks(db, idsOf([first, other]), settings)).values()], ['billed', 'billed']);
    // Acceptance does not look into `clicks` (that would cost every click an index probe); the
    // settlement does, so a link used again after its settlement moves no money.
    assert.deepEqual(await acceptClicks(db, [first]), ['accepted']);
    assert.deepEqual([...(await settleClicks(db, idsOf([first]), settings)).entries()], [[first.claims.clickId, 'duplicate']]);
    assert.deepEqual([...(await settleClicks(db, idsOf([first]), settings)).entries()], [], 'nothing left to take');
    const rows = await db
      .selectFrom('clicks')
      .select('click_id')
      .where('click_id', 'in', idsOf([first, other]))
      .execute();
    assert.equal(rows.length, 2);
    assert.equal((await assertBooksBalance()) - countBefore, 2);
  });

  it('bills each click exactly once when settlements race for the same clicks', async () => {
    const clicks = Array.from({ length: 30 }, (_, index) => click(index));
    assert.deepEqual(await acceptClicks(db, clicks), Array(30).fill('accepted'));
    const countBefore = await assertBooksBalance();
    const ids = idsOf(clicks);
    const subsets = [0, 1, 2].map((offset) => ids.filter((_, index) => index % 3 !== offset));
    const results = await Promise.all([
      ...subsets.map((subset) => settleClicks(db, subset, settings)),
      settleClicks(db, [...ids].reverse(), settings),
    ]);
    for (const id of ids) {
      const wins = results.filter((outcomes) => outcomes.has(id));
      assert.equal(wins.length, 1, 'taken by exactly one settlement');
      assert.equal(wins[0]?.get(id), 'billed');
    }
    assert.equal((await assertBooksBalance()) - countBefore, 30);
  });

  it('keeps settling right when the statements are reused many times with varying batch sizes', async () => {
    // PostgreSQL switches a prepared statement to a generic plan after five executions.
    const countBefore = await assertBooksBalance();
    let expected = 0;
    for (const size of [1, 7, 2, 30, 1, 13, 4, 9, 1, 25]) {
      const outcomes = await acceptAndSettle(Array.from({ length: size }, (_, index) => click(index + size)));
      assert.deepEqual(outcomes, Array(size).fill('billed'));
      expected += size;
    }
    assert.equal((await assertBooksBalance()) - countBefore, expected);
  });

  it('keeps every count when views are flushed to the rollup rows that clicks are being settled to', async () => {
    // Both writers add to the same stats_daily and stats_campaign_daily rows; on PostgreSQL they run
    // on separate connections at once. (They also take those rows in one order, which is what keeps
    // them from deadlocking; a race this short would catch a wrong order only by chance.)
    const before = await statsSums();
    let clicks = 0;
    let views = 0;
    for (let round = 0; round < 15; round += 1) {
      const batch = Array.from({ length: 8 }, (_, index) => click(index + round));
      await acceptClicks(db, batch);
      const viewEvents: TrafficEvent[] = world.ads
        .map((ad) => ({
          at: NOW,
          campaignId: ad.campaignId,
          offerId: ad.offerId,
          siteId: world.siteId,
          blockId: world.blockId,
          device: 1 as const,
          country: 'DE',
          views: 3,
        }))
        .reverse();
      const [outcomes] = await Promise.all([
        settleClicks(db, idsOf(batch), settings),
        db.transaction().execute((trx) => recordEvents(trx, viewEvents, settings.timeZone)),
        db.transaction().execute((trx) => recordEvents(trx, viewEvents.slice(0, 3), settings.timeZone)),
      ]);
      assert.deepEqual([...outcomes.values()], Array(batch.length).fill('billed'));
      clicks += batch.length;
      views += 3 * (world.ads.length + 3);
    }
    const after = await statsSums();
    assert.deepEqual({ clicks: after.clicks - before.clicks, views: after.views - before.views }, { clicks, views });
    await assertBooksBalance();
  });

  it('records robots and clicks over a limit without money, and bills the rest of their settlement', async () => {
    const countBefore = await assertBooksBalance();
    const statsBefore = await statsSums();
    const batch = [click(0, 20_000, 'bot'), click(1), click(2, 20_000, 'limit')];
    assert.deepEqual(await acceptAndSettle(batch), ['bot', 'billed', 'limit']);
    const rows = await db
      .selectFrom('clicks')
      .select(['click_id', 'status', 'charge_micros', 'publisher_micros', 'margin_micros', 'billing_batch'])
      .where('click_id', 'in', idsOf(batch))
      .execute();
    const byId = new Map(rows.map((row) => [row.click_id, row]));
    for (const refused of [batch[0], batch[2]] as IncomingClick[]) {
      const { click_id: _, ...row } = byId.get(refused.claims.clickId) ?? {};
      assert.deepEqual(row, {
        status: refused.refusal,
        charge_micros: 0,
        publisher_micros: 0,
        margin_micros: 0,
        billing_batch: null,
      });
    }
    assert.equal((await statsSums()).clicks - statsBefore.clicks, 1, 'only the billed click is in the rollup');
    assert.equal((await assertBooksBalance()) - countBefore, 1);
    // A settlement of refusals only moves no money at all.
    assert.deepEqual(await acceptAndSettle([click(3, 10_000, 'bot')]), ['bot']);
    assert.equal((await assertBooksBalance()) - countBefore, 1);
  });

  it('bills exactly the clicks an advertiser can pay for, in the order they came in', async () => {
    const poor = await insertAccount(db, { kind: 'advertiser', username: 'billing-poor', depositMicros: 25_000 });
    const campaign = await insertCampaign(db, { advertiserId: poor.id });
    const offer = await insertOffer(db, { campaignId: campaign.id });
    world.ads.push({ advertiserId: poor.id, campaignId: campaign.id, offerId: offer.id });
    const poorAd = world.ads.length - 1;
    const batch = [click(0), click(poorAd, 10_000), click(poorAd, 10_000), click(1), click(poorAd, 10_000), click(poorAd, 5_000)];
    assert.deepEqual(await acceptAndSettle(batch), ['billed', 'billed', 'billed', 'billed', 'funds', 'billed']);
    const account = await db.selectFrom('accounts').select('balance_micros').where('id', '=', poor.id).executeTakeFirstOrThrow();
    assert.equal(account.balance_micros, 0);
    const unpaid = await db
      .selectFrom('clicks')
      .select(['status', 'charge_micros', 'billing_batch'])
      .where('click_id', '=', (batch[4] as IncomingClick).claims.clickId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(unpaid, { status: 'funds', charge_micros: 0, billing_batch: null });
    await assertBooksBalance();
  });

  it('settles an accepted click before counting its conversion; none for an unpaid one', async () => {
    const converting = click(0);
    await acceptClicks(db, [converting]);
    const id = converting.claims.clickId;
    assert.equal(
      await recordConversion(db, { clickId: id, goal: GOALS.purchase, source: 'pixel' }, NOW + 60_000, settings),
      'recorded',
    );
    const row = await db.selectFrom('clicks').select('status').where('click_id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.status, 'billed');
    assert.equal(
      await recordConversion(db, { clickId: id, goal: GOALS.purchase, source: 'pixel' }, NOW + 60_000, settings),
      'duplicate',
    );
    assert.equal(
      await recordConversion(db, { clickId: newClickId(), goal: GOALS.purchase, source: 'pixel' }, NOW, settings),
      'unknown',
    );
    const broke = await insertAccount(db, { kind: 'advertiser', username: 'billing-broke' });
    const campaign = await insertCampaign(db, { advertiserId: broke.id });
    const offer = await insertOffer(db, { campaignId: campaign.id });
    world.ads.push({ advertiserId: broke.id, campaignId: campaign.id, offerId: offer.id });
    const unpaid = click(world.ads.length - 1);
    await acceptClicks(db, [unpaid]);
    assert.equal(
      await recordConversion(db, { clickId: unpaid.claims.clickId, goal: GOALS.registration, source: 'pixel' }, NOW, settings),
      'unknown',
    );
    await assertBooksBalance();
  });

  it('finds the accepted clicks older than a moment, oldest first', async () => {
    const older = click(0);
    const newer = click(1);
    await acceptClicks(
      db,
      [newer, older].map((incoming, index) => ({ ...incoming, nowMs: NOW - 60_000 + index * 1000 })),
    );
    const stale = await findAcceptedClicks(db, NOW - 59_500, 100);
    assert.deepEqual(stale, [newer.claims.clickId]);
    assert.deepEqual((await findAcceptedClicks(db, undefined, 100)).slice(0, 2), [newer.claims.clickId, older.claims.clickId]);
    await settleClicks(db, idsOf([older, newer]), settings);
    assert.deepEqual(await findAcceptedClicks(db, undefined, 100), []);
  });

  it('the settler settles leftovers when it starts, then what it is given, in settlements that wait for each other', async () => {
    const settler = (options: { intervalMs: number; maxBatch: number }) =>
      new ClickSettler({
        settle: async (clickIds) => (await settleClicks(db, clickIds, settings)).size,
        findLeftovers: (beforeMs, limit) => findAcceptedClicks(db, beforeMs, limit),
        clock: { now: () => NOW },
        onError: (error) => assert.fail(error as Error),
        ...options,
      });
    const countBefore = await assertBooksBalance();
    // Left by an instance that stopped: more than one settlement's worth.
    // (The first six ads are those of advertisers with money.)
    const leftovers = Array.from({ length: 7 }, (_, index) => click(index % 6));
    await acceptClicks(db, leftovers);
    const waiting = settler({ intervalMs: 60_000, maxBatch: 3 });
    await waiting.start(60_000);
    assert.deepEqual(await findAcceptedClicks(db, undefined, 100), [], 'start settled every leftover');
    assert.deepEqual(waiting.counts, { settlements: 3, clicks: 7 });

    // Given fewer than a full settlement, it waits for the interval (a minute here) ...
    const fresh = Array.from({ length: 2 }, (_, index) => click(index));
    await acceptClicks(db, fresh);
    waiting.add(idsOf(fresh));
    assert.ok(waiting.pausing, 'waits for the interval');
    assert.equal((await findAcceptedClicks(db, undefined, 100)).length, 2, 'still waiting for more');
    assert.ok(waiting.pausing, 'still waits for the interval');
    // ... unless someone needs them settled now.
    await waiting.settled();
    assert.deepEqual(await findAcceptedClicks(db, undefined, 100), []);
    assert.deepEqual(waiting.counts, { settlements: 4, clicks: 9 });
    // A full settlement does not wait.
    const full = Array.from({ length: 3 }, (_, index) => click(index));
    await acceptClicks(db, full);
    waiting.add(idsOf(full));
    assert.ok(!waiting.pausing, 'a full settlement does not wait for the interval');
    await waitFor('the full settlement', () => waiting.counts.clicks >= 12);
    assert.deepEqual(waiting.counts, { settlements: 5, clicks: 12 });
    await waiting.close();
    assert.equal((await assertBooksBalance()) - countBefore, 12);
  });
});
