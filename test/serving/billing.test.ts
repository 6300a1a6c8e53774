// Click billing below the HTTP layer: the one-statement batch (ledger, click rows and rollup together),
// duplicates found by the click's primary key, batches racing each other for the same clicks (two
// instances), and a batch an advertiser cannot pay for. Runs on PGlite, and on PostgreSQL with
// TEST_DATABASE_URL, where the racing batches really run on two connections at once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Database, Db } from '../../src/db/database.ts';
import { splitCharge } from '../../src/modules/serving/auction.ts';
import { billClicks, type PendingClick } from '../../src/modules/serving/billing.ts';
import { newClickId } from '../../src/modules/serving/click-token.ts';
import { findOrCreatePlatformAccount } from '../../src/modules/serving/serving-repository.ts';
import { recordEvents, type TrafficEvent } from '../../src/modules/statistics/record-events.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { insertAccount, insertBlock, insertCampaign, insertOffer, insertSite } from '../helpers/fixtures.ts';
import {
  assertCampaignRollupMatchesAdRollup,
  assertClicksMatchTheirLedgerRows,
  assertEveryBalanceIsItsLedger,
} from './serving-helpers.ts';

const SETTINGS = { revenueSharePercent: 70, timeZone: 'UTC' };
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

interface World {
  advertiserIds: number[];
  publisherId: number;
  platformId: number;
  ads: { advertiserId: number; campaignId: number; offerId: number }[];
  siteId: number;
  blockId: number;
}

describe('click billing', () => {
  let database: Database;
  let db: Db;
  let world: World;
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
  });

  after(async () => {
    await database.close();
  });

  /** A verified click on the n-th ad, as the engine hands it to billing. */
  function click(adIndex: number, chargeMicros = 10_000 + (serial % 7) * 1_000, clickId = newClickId()): PendingClick {
    serial += 1;
    const ad = world.ads[adIndex % world.ads.length] as World['ads'][number];
    return {
      claims: {
        clickId,
        offerId: ad.offerId,
        campaignId: ad.campaignId,
        siteId: world.siteId,
        blockId: world.blockId,
        device: 1,
        country: 'DE',
        chargeMicros,
        issuedAt: NOW,
      },
      parties: { advertiserId: ad.advertiserId, publisherId: world.publisherId, platformAccountId: world.platformId },
      nowMs: NOW,
    };
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

  /** The books of the whole database: every balance equals its ledger, and clicks, ledger and rollups agree. */
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

  it('bills a batch in one go: a ledger row per account and kind naming the batch, one rollup line per key', async () => {
    const batch = Array.from({ length: 12 }, (_, index) => click(index));
    const before = await db
      .selectFrom('ledger_entries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.deepEqual(await billClicks(db, batch, SETTINGS), Array(12).fill('billed'));
    const clickRows = await db
      .selectFrom('clicks')
      .select(['billing_batch'])
      .where(
        'click_id',
        'in',
        batch.map((pending) => pending.claims.clickId),
      )
      .execute();
    const batchIds = new Set(clickRows.map((row) => row.billing_batch));
    assert.equal(clickRows.length, 12);
    assert.equal(batchIds.size, 1, 'one billing batch');
    const rows = await db
      .selectFrom('ledger_entries')
      .select(['account_id', 'kind', 'amount_micros', 'counterparty_id', 'comment'])
      .where('reference', '=', [...batchIds][0] ?? '')
      .orderBy('id')
      .execute();
    const splits = batch.map((pending) => splitCharge(pending.claims.chargeMicros, SETTINGS.revenueSharePercent));
    const chargeOf = (advertiserId: number) =>
      batch.reduce((sum, pending) => sum + (pending.parties.advertiserId === advertiserId ? pending.claims.chargeMicros : 0), 0);
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

  it('skips clicks billed before and repeated within the batch, and bills the rest', async () => {
    const earlier = click(0);
    assert.deepEqual(await billClicks(db, [earlier], SETTINGS), ['billed']);
    const fresh = click(1);
    const other = click(2);
    const outcomes = await billClicks(db, [other, earlier, fresh, fresh, other], SETTINGS);
    assert.deepEqual(outcomes, ['billed', 'duplicate', 'billed', 'duplicate', 'duplicate']);
    const billed = await db
      .selectFrom('clicks')
      .select(['click_id', 'billing_batch'])
      .where(
        'click_id',
        'in',
        [earlier, fresh, other].map((pending) => pending.claims.clickId),
      )
      .execute();
    assert.equal(billed.length, 3);
    assert.equal(new Set(billed.map((row) => row.billing_batch)).size, 2, 'the earlier click in its own batch, the rest in one');
    // Each click row is unique, and every ledger row of a batch is the sum of its clicks: charged once.
    await assertBooksBalance();
  });

  it('bills each click exactly once when batches race for the same clicks', async () => {
    const shared = Array.from({ length: 20 }, (_, index) => click(index));
    const batches = [0, 1, 2].map((offset) => [
      ...shared.filter((_, index) => index % 3 !== offset),
      ...Array.from({ length: 5 }, (_, index) => click(index + offset)),
    ]);
    const countBefore = await assertBooksBalance();
    const outcomes = await Promise.all(batches.map((batch) => billClicks(db, batch, SETTINGS)));
    for (const pending of shared) {
      const wins = batches.flatMap((batch, index) =>
        batch.flatMap((candidate, position) =>
          candidate.claims.clickId === pending.claims.clickId ? [outcomes[index]?.[position]] : [],
        ),
      );
      assert.equal(wins.filter((outcome) => outcome === 'billed').length, 1, 'billed by exactly one batch');
      assert.ok(wins.every((outcome) => outcome === 'billed' || outcome === 'duplicate'));
    }
    assert.equal((await assertBooksBalance()) - countBefore, 20 + 15);
  });

  it('keeps billing right when the statement is reused many times with varying batch sizes', async () => {
    // PostgreSQL switches a prepared statement to a generic plan after five executions.
    const countBefore = await assertBooksBalance();
    let expected = 0;
    for (const size of [1, 7, 2, 30, 1, 13, 4, 9, 1, 25]) {
      const outcomes = await billClicks(
        db,
        Array.from({ length: size }, (_, index) => click(index + size)),
        SETTINGS,
      );
      assert.deepEqual(outcomes, Array(size).fill('billed'));
      expected += size;
    }
    assert.equal((await assertBooksBalance()) - countBefore, expected);
  });

  it('keeps every count when views are flushed to the rollup rows that clicks are being billed to', async () => {
    // Both writers add to the same stats_daily and stats_campaign_daily rows; on PostgreSQL they run
    // on separate connections at once. (They also take those rows in one order, which is what keeps
    // them from deadlocking; a race this short would catch a wrong order only by chance.)
    const before = await statsSums();
    let clicks = 0;
    let views = 0;
    for (let round = 0; round < 15; round += 1) {
      const batch = Array.from({ length: 8 }, (_, index) => click(index + round));
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
        billClicks(db, batch, SETTINGS),
        db.transaction().execute((trx) => recordEvents(trx, viewEvents, SETTINGS.timeZone)),
        db.transaction().execute((trx) => recordEvents(trx, viewEvents.slice(0, 3), SETTINGS.timeZone)),
      ]);
      assert.deepEqual(outcomes, Array(batch.length).fill('billed'));
      clicks += batch.length;
      views += 3 * (world.ads.length + 3);
    }
    const after = await statsSums();
    assert.deepEqual({ clicks: after.clicks - before.clicks, views: after.views - before.views }, { clicks, views });
    await assertBooksBalance();
  });

  it('bills clicks one by one when the batch is more than an advertiser can pay', async () => {
    const poor = await insertAccount(db, { kind: 'advertiser', username: 'billing-poor', depositMicros: 25_000 });
    const campaign = await insertCampaign(db, { advertiserId: poor.id });
    const offer = await insertOffer(db, { campaignId: campaign.id });
    world.ads.push({ advertiserId: poor.id, campaignId: campaign.id, offerId: offer.id });
    const poorAd = world.ads.length - 1;
    const batch = [click(0), click(poorAd, 10_000), click(poorAd, 10_000), click(1), click(poorAd, 10_000), click(poorAd, 5_000)];
    const outcomes = await billClicks(db, batch, SETTINGS);
    assert.deepEqual(outcomes, ['billed', 'billed', 'billed', 'billed', 'funds', 'billed']);
    const account = await db.selectFrom('accounts').select('balance_micros').where('id', '=', poor.id).executeTakeFirstOrThrow();
    assert.equal(account.balance_micros, 0);
    const unpaid = await db
      .selectFrom('clicks')
      .select(['status', 'charge_micros'])
      .where('click_id', '=', (batch[4] as PendingClick).claims.clickId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(unpaid, { status: 'funds', charge_micros: 0 });
    await assertBooksBalance();
  });
});
