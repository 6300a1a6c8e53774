// Money is conserved through a seeded random mix of clicks, refunds (by ids and by range, dry runs,
// repeated requests), payouts that empty publisher balances, and the flood detector: every balance
// equals its ledger, the ledger's kinds balance, and the rollups' refunded counters are the refunds.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../../src/db/database.ts';
import { findOrCreatePlatformAccount } from '../../../src/modules/ledger/ledger.ts';
import { insertBlock, insertCampaign, insertOffer, insertSite } from '../../helpers/fixtures.ts';
import { seededRandom } from '../../helpers/random.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import {
  assertCampaignRollupMatchesAdRollup,
  assertClicksMatchTheirLedgerRows,
  assertEveryBalanceIsItsLedger,
  BOT_UA,
  balanceOf,
  DESKTOP_UA,
  engineOf,
  MOBILE_UA,
  pathOf,
} from '../../helpers/serving.ts';

const REASONS = ['bot', 'duplicate', 'datacenter', 'click_flood', 'publisher_fraud', 'manual'];

async function sumOf(db: Db, kinds: string[]): Promise<number> {
  const row = await db
    .selectFrom('ledger_entries')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_micros'), eb.lit(0)).as('sum'))
    .where('kind', 'in', kinds)
    .executeTakeFirstOrThrow();
  return Number(row.sum);
}

describe('refunds: money is conserved in a randomized run', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ config: { clickFlood: { maxClicks: 6, windowMs: 60_000, sweepMs: 3_600_000 } } });
  });
  after(() => server.close());

  it('keeps every balance equal to its ledger and every sum matched through clicks, refunds and payouts', async () => {
    const db = server.server.context.db;
    const random = seededRandom(20_261_123);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const platformId = await findOrCreatePlatformAccount(db);
    const funded = await server.operator.post(`/api/admin/users/${platformId}/balance`, { amount: 5, comment: 'refund reserve' });
    assert.equal(funded.status, 200, funded.text);
    for (const balance of [0.4, 3, 40]) {
      const advertiser = await server.createAccount('advertiser');
      await server.operator.post(`/api/admin/users/${advertiser.id}/balance`, { amount: balance, comment: 'test' });
      const campaign = await insertCampaign(db, { advertiserId: advertiser.id });
      for (let ad = 0; ad < 2; ad += 1) {
        await insertOffer(db, { campaignId: campaign.id, bidMicros: 10_000 + Math.floor(random() * 490_000) });
      }
    }
    const publishers: number[] = [];
    const blocks: { id: number; siteId: number }[] = [];
    for (let index = 0; index < 2; index += 1) {
      const publisher = await server.createAccount('publisher');
      publishers.push(publisher.id);
      const site = await insertSite(db, { publisherId: publisher.id });
      for (const teaserCount of [2, 4])
        blocks.push({ id: (await insertBlock(db, { siteId: site.id, teaserCount })).id, siteId: site.id });
    }
    await engineOf(server).refresh();

    const links: string[] = [];
    const counts = { refunds: 0, refused: 0, payouts: 0, floods: 0 };
    for (let round = 0; round < 60; round += 1) {
      const action = random();
      if (action < 0.5) {
        const agent = pick([DESKTOP_UA, DESKTOP_UA, MOBILE_UA, BOT_UA]);
        const block = pick(blocks);
        const response = await server.anonymous.get(`/api/serve/blocks/${block.id}/teasers`, {
          headers: { 'User-Agent': agent },
        });
        for (const teaser of response.json<{ teasers: { url: string }[] }>().teasers) {
          if (random() < 0.7) links.push(teaser.url);
          const url = random() < 0.2 && links.length > 0 ? pick(links) : teaser.url;
          const click = await server.anonymous.get(pathOf(url), { headers: { 'User-Agent': agent } });
          assert.equal(click.status, 302);
        }
        await engineOf(server).settled();
      } else if (action < 0.66) {
        const billed = await db.selectFrom('clicks').select('click_id').where('status', '=', 'billed').execute();
        const chosen = billed.filter(() => random() < 0.15).map((row) => row.click_id);
        if (random() < 0.3 && billed.length > 0) chosen.push(pick(billed).click_id);
        if (chosen.length === 0) continue;
        const body = { clickIds: [...new Set(chosen)], reason: pick(REASONS) };
        const dry = await server.operator.post('/api/admin/refunds', { ...body, dryRun: true });
        assert.equal(dry.status, 200, dry.text);
        const run = await server.operator.post('/api/admin/refunds', body);
        if (run.status === 201) {
          counts.refunds += 1;
          const { id, dryRun, date, ...figures } = run.json();
          const { id: _id, dryRun: _dry, date: _date, ...preview } = dry.json();
          assert.deepEqual(figures, preview, 'the dry run predicted the run');
        } else {
          assert.equal(run.status, 422, run.text);
          counts.refused += 1;
        }
        // The same request again (a client retrying): nothing is left to refund, nothing moves.
        const retried = await server.operator.post('/api/admin/refunds', body);
        assert.equal(retried.status, 422, retried.text);
      } else if (action < 0.74) {
        const block = pick(blocks);
        const now = server.clock.now();
        const response = await server.operator.post('/api/admin/refunds', {
          blockId: block.id,
          network: '127.0.0.0/8',
          from: new Date(now - Math.floor(random() * 600_000)).toISOString(),
          to: new Date(now + 1).toISOString(),
          reason: 'datacenter',
        });
        assert.ok([201, 422].includes(response.status), response.text);
        if (response.status === 201) counts.refunds += 1;
      } else if (action < 0.94) {
        const publisherId = pick(publishers);
        const balance = await balanceOf(db, publisherId);
        if (balance < 100) continue;
        // Amounts have at most 4 fraction digits: the whole balance is paid out but for under 100 micro-units.
        const amount = Math.max(100, Math.floor((random() < 0.5 ? balance : balance * random()) / 100) * 100);
        const payout = await server.operator.post('/api/admin/payouts', {
          userId: publisherId,
          amount: amount / 1_000_000,
          wallet: 'bank',
          status: pick(['pending', 'paid']),
        });
        assert.equal(payout.status, 201, payout.text);
        counts.payouts += 1;
      } else {
        if (await server.server.context.clickFloods?.sweep()) counts.floods += 1;
      }
      if (random() < 0.15) server.clock.advance(30_000);
    }
    assert.ok(counts.refunds > 3 && counts.payouts > 1, `the run refunded and paid out: ${JSON.stringify(counts)}`);

    await assertEveryBalanceIsItsLedger(db);
    await assertClicksMatchTheirLedgerRows(db);
    await assertCampaignRollupMatchesAdRollup(db);
    // Billing and refunds each sum to zero across the parties.
    const charges = await sumOf(db, ['click_charge']);
    assert.equal(charges + (await sumOf(db, ['click_revenue', 'click_margin'])), 0);
    const refunded = await sumOf(db, ['refund_charge']);
    assert.ok(refunded > 0);
    assert.equal(refunded + (await sumOf(db, ['refund_revenue', 'refund_margin', 'refund_unrecovered'])), 0);
    // All the money there is: what was deposited, less what was paid out.
    const total = await db
      .selectFrom('accounts')
      .select((eb) => eb.fn.sum<number>('balance_micros').as('sum'))
      .executeTakeFirstOrThrow();
    assert.equal(
      Number(total.sum),
      (await sumOf(db, ['deposit'])) + (await sumOf(db, ['payout', 'payout_cancel', 'withdrawal'])),
    );

    // Each refunded click was billed, is refunded once, and gives back exactly its money.
    const perClick = await db
      .selectFrom('refunded_clicks as r')
      .innerJoin('clicks as c', 'c.click_id', 'r.click_id')
      .select([
        'c.status',
        'c.charge_micros as billed',
        'c.publisher_micros as share',
        'c.margin_micros as margin',
        'r.charge_micros',
        'r.publisher_reversed_micros',
        'r.publisher_unrecovered_micros',
        'r.margin_micros',
      ])
      .execute();
    for (const row of perClick) {
      assert.equal(row.status, 'billed');
      assert.equal(row.charge_micros, row.billed);
      assert.equal(row.publisher_reversed_micros + row.publisher_unrecovered_micros, row.share);
      assert.equal(row.margin_micros, row.margin);
    }
    // Each refund's totals are its clicks', and its ledger rows move exactly those.
    const refunds = await db.selectFrom('refunds').selectAll().execute();
    for (const refund of refunds) {
      const clicks = await db.selectFrom('refunded_clicks').selectAll().where('refund_id', '=', refund.id).execute();
      const sum = (key: 'charge_micros' | 'publisher_reversed_micros' | 'publisher_unrecovered_micros' | 'margin_micros') =>
        clicks.reduce((total, click) => total + click[key], 0);
      assert.equal(refund.clicks, clicks.length);
      assert.equal(refund.refunded_micros, sum('charge_micros'));
      assert.equal(refund.publisher_reversed_micros, sum('publisher_reversed_micros'));
      assert.equal(refund.publisher_unrecovered_micros, sum('publisher_unrecovered_micros'));
      assert.equal(refund.margin_reversed_micros, sum('margin_micros'));
      const ledger = await db
        .selectFrom('ledger_entries')
        .select(['kind', 'amount_micros'])
        .where('reference', '=', String(refund.id))
        .where('kind', 'like', 'refund_%')
        .execute();
      const byKind = (kind: string) =>
        ledger.filter((row) => row.kind === kind).reduce((total, row) => total + row.amount_micros, 0);
      assert.equal(byKind('refund_charge'), refund.refunded_micros);
      assert.equal(byKind('refund_revenue') + refund.publisher_reversed_micros, 0);
      assert.equal(byKind('refund_margin') + refund.margin_reversed_micros, 0);
      assert.equal(byKind('refund_unrecovered') + refund.publisher_unrecovered_micros, 0);
    }
    // The rollups' refunded counters are the refunds, click for click.
    const rollup = await db
      .selectFrom('stats_daily')
      .select((eb) => [
        eb.fn.sum<number>('refunded_clicks').as('clicks'),
        eb.fn.sum<number>('refunded_spend_micros').as('spend'),
        eb.fn.sum<number>('refunded_publisher_income_micros').as('income'),
      ])
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      [Number(rollup.clicks), Number(rollup.spend), Number(rollup.income)],
      [perClick.length, refunded, -(await sumOf(db, ['refund_revenue']))],
    );
    for (const publisherId of publishers) assert.ok((await balanceOf(db, publisherId)) >= 0);
  });
});
