import assert from 'node:assert/strict';
import type { Db } from '../../src/db/database.ts';
import type { TestClient } from './http-client.ts';
import {
  assertCampaignRollupMatchesAdRollup,
  assertClicksMatchTheirLedgerRows,
  balanceOf,
  ledgerSum,
  statsTotals,
} from './serving.ts';

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
  /** Clients with the advertiser's and the publisher's tokens, to read the statistics endpoints. */
  advertiser: TestClient;
  publisher: TestClient;
}

const amount = (micros: number) => Math.round(micros / 100) / 10_000;

/**
 * Checks that generated traffic shows up exactly in everything that reports on it: the rollup
 * (by campaign, by site and block), the ledger (debits, credits, balances), and the account APIs
 * that advertisers and publishers read (statistics, campaigns, sites, /me).
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
  await assertClicksMatchTheirLedgerRows(db);
  await assertCampaignRollupMatchesAdRollup(db);
  await assertAdvertiserApi(expected);
  await assertPublisherApi(expected);
}

async function assertAdvertiserApi(expected: ExpectedTraffic): Promise<void> {
  const ids = expected.campaignIds.join(',');
  const statistics = await expected.advertiser.get(`/api/advertiser/statistics?filter[id]=${ids}`);
  assert.equal(statistics.status, 200, statistics.text);
  const [row] = statistics.json();
  assert.equal(row.views, expected.views, 'GET /advertiser/statistics views');
  assert.equal(row.clicks, expected.clicks, 'GET /advertiser/statistics clicks');
  assert.equal(row.money, amount(expected.spendMicros), 'GET /advertiser/statistics money');
  const campaigns = await expected.advertiser.get(`/api/advertiser/campaigns?id=${ids}&per-page=100`);
  assert.equal(campaigns.status, 200, campaigns.text);
  const listed = campaigns.json<{ views: number; clicks: number; money: number }[]>();
  assert.equal(listed.length, expected.campaignIds.length);
  assert.equal(
    listed.reduce((sum, campaign) => sum + campaign.views, 0),
    expected.views,
    'GET /advertiser/campaigns views',
  );
  assert.equal(
    listed.reduce((sum, campaign) => sum + campaign.clicks, 0),
    expected.clicks,
    'GET /advertiser/campaigns clicks',
  );
  const me = await expected.advertiser.get('/api/me');
  assert.equal(me.json().balance, amount(expected.advertiserStartMicros - expected.spendMicros), 'advertiser /me balance');
}

async function assertPublisherApi(expected: ExpectedTraffic): Promise<void> {
  const daily = await expected.publisher.get(`/api/webmaster/statistic?siteIds=${expected.siteId}&blockIds=${expected.blockId}`);
  assert.equal(daily.status, 200, daily.text);
  const rows = daily.json<{ views: number; clicks: number; money: number; income: number }[]>();
  assert.equal(
    rows.reduce((sum, row) => sum + row.views, 0),
    expected.views,
    'GET /webmaster/statistic views',
  );
  assert.equal(
    rows.reduce((sum, row) => sum + row.clicks, 0),
    expected.clicks,
    'GET /webmaster/statistic clicks',
  );
  assert.equal(
    rows.reduce((sum, row) => sum + row.income, 0),
    amount(expected.incomeMicros),
    'GET /webmaster/statistic income',
  );
  const site = await expected.publisher.get(`/api/webmaster/sites/${expected.siteId}`);
  assert.equal(site.status, 200, site.text);
  assert.equal(site.json().views, expected.views, 'GET /webmaster/sites/{id} views');
  assert.equal(site.json().clicks, expected.clicks, 'GET /webmaster/sites/{id} clicks');
  assert.equal(site.json().money, Math.floor(expected.incomeMicros / 10_000), 'GET /webmaster/sites/{id} money (cents)');
  const me = await expected.publisher.get('/api/me');
  assert.equal(me.json().balance, amount(expected.incomeMicros), 'publisher /me balance');
}
