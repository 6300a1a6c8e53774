import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertBlock, insertCampaign, insertOffer, insertSite } from '../../../helpers/fixtures.ts';
import { seededRandom } from '../../../helpers/random.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';
import {
  assertCampaignRollupMatchesAdRollup,
  assertClicksMatchTheirLedgerRows,
  assertEveryBalanceIsItsLedger,
  BOT_UA,
  DESKTOP_UA,
  engineOf,
  MOBILE_UA,
  pathOf,
  servedAndViews,
  statsTotals,
} from '../../../helpers/serving.ts';

describe('serving: money is conserved in a randomized run', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('advertiser debits equal publisher credits plus margin, and every balance equals its ledger', async () => {
    const db = server.server.context.db;
    const random = seededRandom(20_260_310);
    const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)] as T;
    const advertisers = [];
    const campaignIds: number[] = [];
    for (const balance of [0.35, 2, 50]) {
      const advertiser = await server.createAccount('advertiser');
      await server.operator.post(`/api/admin/users/${advertiser.id}/balance`, { amount: balance, comment: 'test' });
      advertisers.push(advertiser.id);
      for (let campaignIndex = 0; campaignIndex < 2; campaignIndex += 1) {
        const campaign = await insertCampaign(db, { advertiserId: advertiser.id });
        campaignIds.push(campaign.id);
        for (let offerIndex = 0; offerIndex < 3; offerIndex += 1) {
          await insertOffer(db, { campaignId: campaign.id, bidMicros: 10_000 + Math.floor(random() * 990_000) });
        }
      }
    }
    const blocks: number[] = [];
    const publishers: number[] = [];
    for (let index = 0; index < 2; index += 1) {
      const publisher = await server.createAccount('publisher');
      publishers.push(publisher.id);
      const site = await insertSite(db, { publisherId: publisher.id });
      for (const teaserCount of [2, 5]) blocks.push((await insertBlock(db, { siteId: site.id, teaserCount })).id);
    }
    await engineOf(server).refresh();

    const agents = [DESKTOP_UA, DESKTOP_UA, MOBILE_UA, BOT_UA];
    const links: { url: string; agent: string }[] = [];
    let served = 0;
    // Viewability: some teasers are seen (their token beaconed, sometimes twice), the rest only served.
    const viewed = new Set<string>();
    for (let round = 0; round < 120; round += 1) {
      const agent = pick(agents);
      const response = await server.anonymous.get(`/api/serve/blocks/${pick(blocks)}/teasers`, {
        headers: { 'User-Agent': agent },
      });
      const { teasers } = response.json<{ teasers: { url: string; view: string }[] }>();
      served += teasers.length;
      const seen = teasers.filter(() => random() < 0.6).map((teaser) => teaser.view);
      if (seen.length > 0) {
        if (random() < 0.2) seen.push(pick([...seen]));
        const beacon = await server.anonymous.request('POST', '/api/serve/views', {
          raw: seen.join('\n'),
          contentType: 'text/plain',
          headers: { 'User-Agent': agent },
        });
        assert.equal(beacon.status, 204, beacon.text);
        for (const token of seen) viewed.add(token);
      }
      for (const teaser of teasers) if (random() < 0.4) links.push({ url: teaser.url, agent });
      if (random() < 0.2 && links.length > 0) links.push(pick(links));
      if (random() < 0.1) server.clock.advance(60_000);
    }
    for (const link of links) {
      const click = await server.anonymous.get(pathOf(link.url), { headers: { 'User-Agent': link.agent } });
      assert.equal(click.status, 302);
    }
    await engineOf(server).impressions.flush();
    await engineOf(server).settled();
    const unsettled = await db.selectFrom('accepted_clicks').select('click_id').execute();
    assert.deepEqual(unsettled, [], 'every accepted click is settled');

    const sumOf = async (kind: string) => {
      const row = await db
        .selectFrom('ledger_entries')
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_micros'), eb.lit(0)).as('sum'))
        .where('kind', '=', kind)
        .executeTakeFirstOrThrow();
      return Number(row.sum);
    };
    const charges = -(await sumOf('click_charge'));
    const revenue = await sumOf('click_revenue');
    const margin = await sumOf('click_margin');
    assert.ok(charges > 0, 'the run billed clicks');
    assert.equal(charges, revenue + margin);

    await assertEveryBalanceIsItsLedger(db);
    await assertClicksMatchTheirLedgerRows(db);
    await assertCampaignRollupMatchesAdRollup(db);
    const accounts = await db.selectFrom('accounts').select('id').execute();

    const billed = await db
      .selectFrom('clicks')
      .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.sum<number>('charge_micros').as('charge')])
      .where('status', '=', 'billed')
      .executeTakeFirstOrThrow();
    const totals = await statsTotals(db, { campaignIds });
    assert.equal(totals.views, viewed.size);
    assert.deepEqual(await servedAndViews(db, campaignIds), { served, views: viewed.size });
    assert.equal(totals.clicks, Number(billed.count));
    assert.equal(totals.spend, charges);
    assert.equal(totals.income, revenue);
    const distinctLinks = new Set(links.map((link) => link.url)).size;
    const recorded = await db
      .selectFrom('clicks')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(recorded.count), distinctLinks, 'one click row per link, duplicates ignored');
    for (const id of [...advertisers, ...publishers]) {
      const account = accounts.find((candidate) => candidate.id === id);
      assert.ok(account, `account ${id} exists`);
    }
  });

  it('bills concurrent clicks (batched) exactly once, and only as far as the money goes', async () => {
    const db = server.server.context.db;
    await db.updateTable('campaigns').set({ active: false }).execute();
    const advertiser = await server.createAccount('advertiser');
    // 0.05 buys five clicks at the reserve price of 0.01.
    await server.operator.post(`/api/admin/users/${advertiser.id}/balance`, { amount: 0.05, comment: 'test' });
    const campaign = await insertCampaign(db, { advertiserId: advertiser.id });
    await insertOffer(db, { campaignId: campaign.id, bidMicros: 500_000 });
    const publisher = await server.createAccount('publisher');
    const site = await insertSite(db, { publisherId: publisher.id });
    const block = await insertBlock(db, { siteId: site.id, teaserCount: 1 });
    await engineOf(server).refresh();
    const links: string[] = [];
    for (let index = 0; index < 8; index += 1) {
      const response = await server.anonymous.get(`/api/serve/blocks/${block.id}/teasers`, {
        headers: { 'User-Agent': DESKTOP_UA },
      });
      links.push(response.json<{ teasers: { url: string }[] }>().teasers[0]?.url ?? '');
    }
    // Every link twice, all at once: the duplicates land in the same batches as their originals.
    const responses = await Promise.all(
      [...links, ...links].map((link) => server.anonymous.get(pathOf(link), { headers: { 'User-Agent': DESKTOP_UA } })),
    );
    assert.ok(responses.every((response) => response.status === 302));
    await engineOf(server).settled();
    const billed = await db
      .selectFrom('clicks')
      .selectAll()
      .where('campaign_id', '=', campaign.id)
      .where('status', '=', 'billed')
      .execute();
    assert.equal(billed.length, 5);
    const unpaid = await db
      .selectFrom('clicks')
      .selectAll()
      .where('campaign_id', '=', campaign.id)
      .where('status', '!=', 'billed')
      .execute();
    assert.equal(unpaid.length, 3);
    const balance = await db
      .selectFrom('accounts')
      .select('balance_micros')
      .where('id', '=', advertiser.id)
      .executeTakeFirstOrThrow();
    assert.equal(balance.balance_micros, 0);
    const totals = await statsTotals(db, { campaignIds: [campaign.id] });
    assert.equal(totals.clicks, 5);
    assert.equal(totals.spend, 50_000);
    const entries = await db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('account_id', '=', advertiser.id)
      .orderBy('id')
      .execute();
    let running = 0;
    for (const entry of entries) {
      running += entry.amount_micros;
      assert.equal(entry.balance_after_micros, running, 'each ledger row carries the balance after it');
    }
  });
});
