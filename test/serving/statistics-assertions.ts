import assert from 'node:assert/strict';
import type { Db } from '../../src/db/database.ts';
import { balanceOf, ledgerSum, statsTotals } from './serving-helpers.ts';

export interface ExpectedTraffic {
  advertiserId: number;
  publisherId: number;
  campaignIds: number[];
  siteId: number;
  blockId: number;
  views: number;
  clicks: number;
  /** What the advertiser was charged in total, micros. */
  spendMicros: number;
  /** What the publisher earned, micros. */
  incomeMicros: number;
  /** The advertiser's balance before the traffic, micros. */
  advertiserStartMicros: number;
}

/**
 * Checks that generated traffic shows up exactly in everything that reports on it: the rollup
 * (by campaign, by site and block) and the ledger (debits, credits, balances).
 *
 * This is the one place to add the account APIs' statistics endpoints once they are merged
 * (GET /api/advertiser/statistics, /api/advertiser/campaigns/{id}, /api/webmaster/statistic,
 * /api/webmaster/sites/{id}): they sum the same rollup, so they must show the same figures.
 */
export async function assertTrafficEverywhere(db: Db, expected: ExpectedTraffic): Promise<void> {
  const byCampaign = await statsTotals(db, { campaignIds: expected.campaignIds });
  assert.equal(byCampaign.views, expected.views, 'views by campaign');
  assert.equal(byCampaign.clicks, expected.clicks, 'clicks by campaign');
  assert.equal(byCampaign.spend, expected.spendMicros, 'spend by campaign');
  const byBlock = await statsTotals(db, { siteId: expected.siteId, blockId: expected.blockId });
  assert.equal(byBlock.views, expected.views, 'views by block');
  assert.equal(byBlock.clicks, expected.clicks, 'clicks by block');
  assert.equal(byBlock.income, expected.incomeMicros, 'publisher income by block');
  assert.equal(await ledgerSum(db, expected.advertiserId, 'click_charge'), -expected.spendMicros, 'advertiser debits');
  assert.equal(await ledgerSum(db, expected.publisherId, 'click_revenue'), expected.incomeMicros, 'publisher credits');
  assert.equal(
    await balanceOf(db, expected.advertiserId),
    expected.advertiserStartMicros - expected.spendMicros,
    'advertiser balance',
  );
  assert.equal(await balanceOf(db, expected.publisherId), expected.incomeMicros, 'publisher balance');
  const billed = await db
    .selectFrom('clicks')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('block_id', '=', expected.blockId)
    .where('status', '=', 'billed')
    .executeTakeFirstOrThrow();
  assert.equal(Number(billed.count), expected.clicks, 'billed click rows');
}
