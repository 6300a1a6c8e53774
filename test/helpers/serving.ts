import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.ts';
import type { ServingEngine } from '../../src/modules/serving/serving-engine.ts';
import { ROLLUP_COUNTERS } from '../../src/modules/statistics/vocabulary.ts';
import { insertBlock, insertCampaign, insertOffer, insertSite } from './fixtures.ts';
import type { TestClient } from './http-client.ts';
import type { TestServer } from './server.ts';

/** A desktop browser's User-Agent: the serving endpoints treat requests without a browser-like one carefully. */
export const DESKTOP_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
export const MOBILE_UA =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
export const BOT_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

export function engineOf(server: TestServer): ServingEngine {
  const engine = server.server.context.serving;
  assert.ok(engine, 'the server has a serving engine');
  return engine;
}

export interface World {
  advertiserId: number;
  publisherId: number;
  campaignIds: number[];
  offerIds: number[];
  siteId: number;
  blockId: number;
  /** API clients with the advertiser's and the publisher's tokens. */
  advertiser: TestClient;
  publisher: TestClient;
}

/**
 * An advertiser with money and approved ads, a publisher with an active site and a block, created
 * through the operator API (accounts, balances) and the fixtures (objects of other modules).
 * Campaigns of earlier worlds are paused.
 */
export async function createWorld(
  server: TestServer,
  options: {
    balance?: number;
    ads?: { bidMicros: number; geo?: string[]; url?: string; urlMobile?: string }[];
    teaserCount?: number;
  } = {},
): Promise<World> {
  const db = server.server.context.db;
  // Every active ad competes for every block: a new world pauses the campaigns of earlier ones so
  // that tests sharing a server do not see each other's ads.
  await db.updateTable('campaigns').set({ active: false }).where('active', '=', true).execute();
  const advertiser = await server.createAccount('advertiser');
  const publisher = await server.createAccount('publisher');
  if ((options.balance ?? 100) > 0) {
    const topUp = await server.operator.post(`/api/admin/users/${advertiser.id}/balance`, {
      amount: options.balance ?? 100,
      comment: 'test money',
    });
    assert.equal(topUp.status, 200, topUp.text);
  }
  const ads = options.ads ?? [{ bidMicros: 500_000 }, { bidMicros: 300_000 }];
  const campaignIds: number[] = [];
  const offerIds: number[] = [];
  for (const ad of ads) {
    const campaign = await insertCampaign(db, { advertiserId: advertiser.id, geo: ad.geo });
    const offer = await insertOffer(db, {
      campaignId: campaign.id,
      title: `Ad ${campaign.id}`,
      bidMicros: ad.bidMicros,
      url: ad.url,
      urlMobile: ad.urlMobile,
    });
    campaignIds.push(campaign.id);
    offerIds.push(offer.id);
  }
  const site = await insertSite(db, { publisherId: publisher.id });
  const block = await insertBlock(db, { siteId: site.id, teaserCount: options.teaserCount ?? 4 });
  await engineOf(server).refresh();
  return {
    advertiserId: advertiser.id,
    publisherId: publisher.id,
    campaignIds,
    offerIds,
    siteId: site.id,
    blockId: block.id,
    advertiser: advertiser.client,
    publisher: publisher.client,
  };
}

export async function balanceOf(db: Db, accountId: number): Promise<number> {
  const row = await db.selectFrom('accounts').select('balance_micros').where('id', '=', accountId).executeTakeFirstOrThrow();
  return row.balance_micros;
}

export async function ledgerSum(db: Db, accountId: number, kind?: string): Promise<number> {
  let query = db
    .selectFrom('ledger_entries')
    .select((eb) => eb.fn.sum<number>('amount_micros').as('sum'))
    .where('account_id', '=', accountId);
  if (kind) query = query.where('kind', '=', kind);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.sum ?? 0);
}

/** Every account's balance equals the sum of its ledger and is not negative. */
export async function assertEveryBalanceIsItsLedger(db: Db): Promise<void> {
  const accounts = await db.selectFrom('accounts').select(['id', 'balance_micros']).execute();
  for (const account of accounts) {
    assert.equal(account.balance_micros, await ledgerSum(db, account.id), `account ${account.id}: balance = ledger`);
    assert.ok(account.balance_micros >= 0, `account ${account.id}: balance not negative`);
  }
}

/**
 * The ledger rows of click billing are exactly the sums of the billed clicks of their batch: per
 * batch, each advertiser's debit (by publisher), each publisher's share and the platform's margin.
 * With the click id unique, this is each billed click charged exactly once, and no click money
 * without a click. Returns how many batches there are.
 */
export async function assertClicksMatchTheirLedgerRows(db: Db): Promise<number> {
  const clicks = await db
    .selectFrom('clicks')
    .select(['billing_batch', 'advertiser_id', 'publisher_id', 'charge_micros', 'publisher_micros', 'margin_micros'])
    .where('status', '=', 'billed')
    .execute();
  const expected = new Map<string, number>();
  const add = (key: string, micros: number) => {
    if (micros !== 0) expected.set(key, (expected.get(key) ?? 0) + micros);
  };
  for (const click of clicks) {
    assert.ok(click.billing_batch, 'a billed click names its billing batch');
    add(`${click.billing_batch}|click_charge|${click.advertiser_id}|${click.publisher_id}`, -click.charge_micros);
    add(`${click.billing_batch}|click_revenue|${click.publisher_id}`, click.publisher_micros);
    add(`${click.billing_batch}|click_margin`, click.margin_micros);
  }
  const rows = await db
    .selectFrom('ledger_entries')
    .select(['reference', 'kind', 'account_id', 'counterparty_id', 'amount_micros'])
    .where('kind', 'in', ['click_charge', 'click_revenue', 'click_margin'])
    .execute();
  const actual = new Map<string, number>();
  for (const row of rows) {
    const key =
      row.kind === 'click_charge'
        ? `${row.reference}|${row.kind}|${row.account_id}|${row.counterparty_id}`
        : row.kind === 'click_revenue'
          ? `${row.reference}|${row.kind}|${row.account_id}`
          : `${row.reference}|${row.kind}`;
    assert.equal(actual.has(key), false, `one ledger row for ${key}`);
    actual.set(key, row.amount_micros);
  }
  assert.deepEqual(
    [...actual.entries()].sort(([a], [b]) => (a < b ? -1 : 1)),
    [...expected.entries()].sort(([a], [b]) => (a < b ? -1 : 1)),
    'click ledger rows = sums of their batch clicks',
  );
  return new Set(clicks.map((click) => click.billing_batch)).size;
}

/**
 * The campaign totals per day are the per-ad rollup rows summed by campaign and day. Both sides are
 * read by one statement, so from one snapshot: the impression buffer flushes on its own timer, and
 * a flush committing between two reads would make them differ by its served teasers.
 */
export async function assertCampaignRollupMatchesAdRollup(db: Db): Promise<void> {
  const columns = sql.join(ROLLUP_COUNTERS.map((column) => sql.ref(column)));
  const sums = sql.join(ROLLUP_COUNTERS.map((column) => sql`sum(${sql.ref(column)}) AS ${sql.ref(column)}`));
  const { rows } = await sql<{ per_ad: Record<string, unknown>[]; campaigns: Record<string, unknown>[] }>`
    SELECT
      (SELECT coalesce(json_agg(t ORDER BY t.campaign_id, t.day), '[]')
         FROM (SELECT campaign_id, day::text AS day, ${sums} FROM stats_daily GROUP BY campaign_id, day) t) AS per_ad,
      (SELECT coalesce(json_agg(t ORDER BY t.campaign_id, t.day), '[]')
         FROM (SELECT campaign_id, day::text AS day, ${columns} FROM stats_campaign_daily) t) AS campaigns`.execute(db);
  const [{ per_ad: perAd, campaigns }] = rows as [(typeof rows)[number]];
  const normalize = (rows: Record<string, unknown>[]) =>
    rows.map((row) =>
      Object.fromEntries(Object.entries(row).map(([key, value]) => [key, key === 'day' ? value : Number(value)])),
    );
  assert.deepEqual(normalize(campaigns), normalize(perAd), 'stats_campaign_daily = stats_daily by campaign and day');
}

/** Totals of the rollup for the given filter: what every statistics endpoint sums. */
export async function statsTotals(db: Db, filter: { campaignIds?: number[]; blockId?: number; siteId?: number }) {
  let query = db
    .selectFrom('stats_daily')
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<number>('views'), eb.lit(0)).as('views'),
      eb.fn.coalesce(eb.fn.sum<number>('clicks'), eb.lit(0)).as('clicks'),
      eb.fn.coalesce(eb.fn.sum<number>('spend_micros'), eb.lit(0)).as('spend'),
      eb.fn.coalesce(eb.fn.sum<number>('publisher_income_micros'), eb.lit(0)).as('income'),
      eb.fn.coalesce(eb.fn.sum<number>('conversions_purchase'), eb.lit(0)).as('purchases'),
      eb.fn.coalesce(eb.fn.sum<number>('conversions_registration'), eb.lit(0)).as('registrations'),
      eb.fn.coalesce(eb.fn.sum<number>('conversions_intermediate'), eb.lit(0)).as('intermediate'),
    ]);
  if (filter.campaignIds) query = query.where('campaign_id', 'in', filter.campaignIds);
  if (filter.blockId !== undefined) query = query.where('block_id', '=', filter.blockId);
  if (filter.siteId !== undefined) query = query.where('site_id', '=', filter.siteId);
  const row = await query.executeTakeFirstOrThrow();
  return {
    views: Number(row.views),
    clicks: Number(row.clicks),
    spend: Number(row.spend),
    income: Number(row.income),
    purchases: Number(row.purchases),
    registrations: Number(row.registrations),
    intermediate: Number(row.intermediate),
  };
}

/** The path (with query) of an absolute URL on the test server. */
export function pathOf(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

/** Teasers served and viewable views counted in the rollup (per-ad rows, and the campaigns' days agree). */
export async function servedAndViews(db: Db, campaignIds: number[]): Promise<{ served: number; views: number }> {
  const sums = async (table: 'stats_daily' | 'stats_campaign_daily') => {
    const row = await db
      .selectFrom(table)
      .select((eb) => [
        eb.fn.coalesce(eb.fn.sum<number>('served'), eb.lit(0)).as('served'),
        eb.fn.coalesce(eb.fn.sum<number>('views'), eb.lit(0)).as('views'),
      ])
      .where('campaign_id', 'in', campaignIds)
      .executeTakeFirstOrThrow();
    return { served: Number(row.served), views: Number(row.views) };
  };
  const perAd = await sums('stats_daily');
  assert.deepEqual(await sums('stats_campaign_daily'), perAd, 'the campaign rollup agrees with the per-ad rollup');
  return perAd;
}
