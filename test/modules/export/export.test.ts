import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parquetReadObjects } from 'hyparquet';
import type { Db } from '../../../src/db/database.ts';
import { statisticsExport } from '../../../src/modules/export/export-service.ts';
import { DEVICES, type DeviceId, dayOf, type TrafficEvent } from '../../../src/modules/statistics/vocabulary.ts';
import { insertBlock, insertCampaign, insertOffer, insertSite, recordTraffic } from '../../helpers/fixtures.ts';
import { seededRandom } from '../../helpers/random.ts';
import { startTestServer, TEST_EPOCH_MS, type TestServer } from '../../helpers/server.ts';

const DAY = 24 * 3600 * 1000;
const DEVICE_NAMES = Object.fromEntries(Object.entries(DEVICES).map(([name, id]) => [id, name]));

/** Our CSV never quotes (no commas in ids, days or country codes): lines of fields, header first. */
function parseCsv(text: string): Record<string, string>[] {
  const [header = '', ...lines] = text.split('\r\n').filter((line) => line !== '');
  const names = header.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((value, index) => [names[index], value])));
}

/** The expected export computed from the events themselves, grouped by the given key. */
function expectedRows(events: TrafficEvent[], key: (event: TrafficEvent) => string[], names: string[]) {
  const sums = new Map<string, Record<string, string | number>>();
  for (const event of events) {
    const values = key(event);
    const id = values.join('|');
    const row = sums.get(id) ?? {
      ...Object.fromEntries(names.map((name, index) => [name, values[index] ?? ''])),
      views: 0,
      clicks: 0,
      spend_micros: 0,
      conversions_purchase: 0,
    };
    row.views = Number(row.views) + (event.views ?? 0);
    row.clicks = Number(row.clicks) + (event.clicks ?? 0);
    row.spend_micros = Number(row.spend_micros) + (event.spendMicros ?? 0);
    row.conversions_purchase = Number(row.conversions_purchase) + (event.conversions?.[1] ?? 0);
    sums.set(id, row);
  }
  return [...sums.values()].map((row) => Object.fromEntries(Object.entries(row).map(([name, value]) => [name, String(value)])));
}

const pick = (row: Record<string, unknown>, names: string[]) =>
  Object.fromEntries(names.map((name) => [name, String(row[name])]));

describe('statistics and click log export', () => {
  let server: TestServer;
  let db: Db;
  let owner: Awaited<ReturnType<TestServer['createAccount']>>;
  let stranger: Awaited<ReturnType<TestServer['createAccount']>>;
  let publisher: Awaited<ReturnType<TestServer['createAccount']>>;
  const events: TrafficEvent[] = [];
  const sites: number[] = [];
  const campaigns: number[] = [];
  let strangerCampaign = 0;

  before(async () => {
    server = await startTestServer();
    db = server.server.context.db;
    owner = await server.createAccount('advertiser');
    stranger = await server.createAccount('advertiser');
    publisher = await server.createAccount('publisher');
    const otherPublisher = await server.createAccount('publisher');
    campaigns.push(
      (await insertCampaign(db, { advertiserId: owner.id })).id,
      (await insertCampaign(db, { advertiserId: owner.id })).id,
    );
    const offers = [
      { campaignId: campaigns[0] as number, offerId: (await insertOffer(db, { campaignId: campaigns[0] as number })).id },
      { campaignId: campaigns[1] as number, offerId: (await insertOffer(db, { campaignId: campaigns[1] as number })).id },
    ];
    for (let s = 0; s < 4; s += 1) sites.push((await insertSite(db, { publisherId: publisher.id })).id);
    const blocks = await Promise.all(sites.map((siteId) => insertBlock(db, { siteId })));
    const random = seededRandom(99);
    for (let day = 0; day < 20; day += 1) {
      for (let i = 0; i < 12; i += 1) {
        const ad = offers[Math.floor(random() * offers.length)];
        const site = Math.floor(random() * sites.length);
        if (ad === undefined) continue;
        const views = 1 + Math.floor(random() * 500);
        const clicks = Math.floor(random() * 20);
        events.push({
          at: TEST_EPOCH_MS - day * DAY,
          ...ad,
          siteId: sites[site] as number,
          blockId: blocks[site]?.id ?? 0,
          device: (1 + Math.floor(random() * 3)) as DeviceId,
          country: ['DE', 'TH', 'US', ''][Math.floor(random() * 4)] ?? '',
          views,
          clicks,
          spendMicros: clicks * 123_457,
          conversions: { 1: Math.floor(random() * 3) },
        });
      }
    }
    await recordTraffic(db, events);
    // Another advertiser's traffic on another publisher's site: in nobody else's export.
    strangerCampaign = (await insertCampaign(db, { advertiserId: stranger.id })).id;
    const strangerOffer = (await insertOffer(db, { campaignId: strangerCampaign })).id;
    const strangerSite = (await insertSite(db, { publisherId: otherPublisher.id })).id;
    await recordTraffic(db, [
      {
        at: TEST_EPOCH_MS,
        campaignId: strangerCampaign,
        offerId: strangerOffer,
        siteId: strangerSite,
        blockId: 0,
        device: 1,
        views: 7,
        clicks: 1,
        spendMicros: 1,
      },
    ]);
    const click = (
      id: string,
      at: number,
      advertiserId: number,
      status: 'billed' | 'bot' | 'limit' | 'funds',
      charge: number,
      ad = offers[0],
    ) => ({
      click_id: id,
      created_at: new Date(at),
      campaign_id: ad?.campaignId as number,
      offer_id: ad?.offerId as number,
      site_id: sites[0] as number,
      block_id: blocks[0]?.id as number,
      device: DEVICES.mobile,
      country: 'TH',
      advertiser_id: advertiserId,
      publisher_id: publisher.id,
      status,
      charge_micros: charge,
    });
    await db
      .insertInto('clicks')
      .values([
        click('c-3', TEST_EPOCH_MS - 1000, owner.id, 'billed', 250_000),
        click('c-1', TEST_EPOCH_MS - 2 * DAY, owner.id, 'bot', 0),
        click('c-2', TEST_EPOCH_MS - 2 * DAY, owner.id, 'funds', 0),
        click('c-0', TEST_EPOCH_MS - 40 * DAY, owner.id, 'limit', 0),
        click('d-1', TEST_EPOCH_MS - DAY, owner.id, 'billed', 123_457, offers[1]),
        click('s-1', TEST_EPOCH_MS - 1000, stranger.id, 'billed', 999),
      ])
      .execute();
  });
  after(() => server.close());

  it("exports an advertiser's statistics by day and site as CSV with the sums of its traffic", async () => {
    const response = await owner.client.get('/api/advertiser/statistics/export?groupBy=site,day&format=csv');
    assert.equal(response.status, 200, response.text);
    assert.equal(response.header('content-type'), 'text/csv; charset=utf-8');
    assert.equal(response.header('content-disposition'), 'attachment; filename="nativa-statistics.csv"');
    const rows = parseCsv(response.text);
    assert.deepEqual(Object.keys(rows[0] ?? {}), [
      'day',
      'site',
      'served',
      'views',
      'clicks',
      'spend_micros',
      'conversions_purchase',
      'conversions_registration',
      'conversions_intermediate',
      'refunded_clicks',
      'refunded_spend_micros',
    ]);
    const names = ['day', 'site', 'views', 'clicks', 'spend_micros', 'conversions_purchase'];
    const expected = expectedRows(events, (event) => [dayOf(event.at, 'UTC'), String(event.siteId)], ['day', 'site']).sort(
      (a, b) => (a.day ?? '').localeCompare(b.day ?? '') || Number(a.site) - Number(b.site),
    );
    assert.deepEqual(
      rows.map((row) => pick(row, names)),
      expected,
    );
  });

  it("limits an advertiser's statistics to the campaigns asked for, and only its own", async () => {
    const [first] = campaigns as [number];
    const response = await owner.client.get(`/api/advertiser/statistics/export?groupBy=day,campaign&campaignIds=${first}`);
    assert.equal(response.status, 200, response.text);
    const rows = parseCsv(response.text);
    const ofFirst = events.filter((event) => event.campaignId === first);
    assert.ok(ofFirst.length > 0 && ofFirst.length < events.length, 'both campaigns have traffic');
    const expected = expectedRows(ofFirst, (event) => [dayOf(event.at, 'UTC'), String(event.campaignId)], [
      'day',
      'campaign',
    ]).sort((a, b) => (a.day ?? '').localeCompare(b.day ?? ''));
    assert.deepEqual(
      rows.map((row) => pick(row, ['day', 'campaign', 'views', 'clicks', 'spend_micros', 'conversions_purchase'])),
      expected,
    );
    const both = parseCsv(
      (await owner.client.get(`/api/advertiser/statistics/export?groupBy=campaign&campaignIds=${campaigns.join(',')}`)).text,
    );
    assert.deepEqual(
      both.map((row) => row.campaign),
      campaigns.map(String),
    );
    const foreign = await owner.client.get(`/api/advertiser/statistics/export?campaignIds=${first},${strangerCampaign}`);
    assert.equal(foreign.status, 404, foreign.text);
    const malformed = await owner.client.get('/api/advertiser/statistics/export?campaignIds=one');
    assert.equal(malformed.status, 422);
    assert.equal(malformed.json().errors[0].field, 'campaignIds');
  });

  it('writes the same rows as Parquet, and reads back with a Parquet reader', async () => {
    const groupBy = 'campaign,device,country';
    const csv = parseCsv((await owner.client.get(`/api/advertiser/statistics/export?groupBy=${groupBy}`)).text);
    const response = await owner.client.get(`/api/advertiser/statistics/export?groupBy=${groupBy}&format=parquet`);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.header('content-type'), 'application/vnd.apache.parquet');
    const file = response.body.buffer.slice(
      response.body.byteOffset,
      response.body.byteOffset + response.body.byteLength,
    ) as ArrayBuffer;
    const rows = await parquetReadObjects({ file });
    assert.equal(rows.length, csv.length);
    assert.deepEqual(
      rows.map((row) => pick(row, Object.keys(csv[0] ?? {}))),
      csv,
    );
    const expected = expectedRows(
      events,
      (event) => [String(event.campaignId), DEVICE_NAMES[event.device] ?? '', event.country ?? ''],
      ['campaign', 'device', 'country'],
    );
    assert.equal(csv.length, expected.length);
  });

  it('pages through the groups by keyset: small pages give the same rows as one page', async () => {
    const owner_ = { advertiserId: owner.id };
    const all = async (pageRows: number, groups: Parameters<typeof statisticsExport>[1]['groups']) => {
      const rows = [];
      const { pages } = statisticsExport(db, {
        owner: owner_,
        period: { from: undefined, to: undefined },
        groups,
        timeZone: 'UTC',
        now: TEST_EPOCH_MS,
        pageRows,
      });
      for await (const page of pages) {
        assert.ok(page.length <= pageRows);
        rows.push(...page);
      }
      return rows;
    };
    for (const groups of [['ad', 'site', 'device', 'country'], ['day', 'device', 'country'], []] as const) {
      const big = await all(100_000, [...groups]);
      assert.deepEqual(await all(7, [...groups]), big);
      assert.deepEqual(await all(1, [...groups]), big);
    }
    const totals = await all(5, []);
    assert.equal(totals.length, 1);
    assert.equal(
      totals[0]?.views,
      events.reduce((sum, event) => sum + (event.views ?? 0), 0),
    );
  });

  it('limits the period, and a publisher exports only its own sites with its income', async () => {
    const day = dayOf(TEST_EPOCH_MS - 3 * DAY, 'UTC');
    const one = parseCsv(
      (await owner.client.get(`/api/advertiser/statistics/export?groupBy=day&dateFrom=${day}&dateTo=${day}`)).text,
    );
    assert.deepEqual(
      one.map((row) => row.day),
      [day],
    );
    const response = await publisher.client.get('/api/webmaster/statistics/export?groupBy=site');
    assert.equal(response.status, 200, response.text);
    const rows = parseCsv(response.text);
    assert.deepEqual(
      rows.map((row) => Number(row.site)),
      [...sites].sort((a, b) => a - b),
    );
    assert.ok('publisher_income_micros' in (rows[0] ?? {}));
    assert.ok(!('spend_micros' in (rows[0] ?? {})));
  });

  it("exports the click log with outcomes and reason codes, oldest first, only the advertiser's", async () => {
    const response = await owner.client.get(`/api/advertiser/clicks/export?dateFrom=${dayOf(TEST_EPOCH_MS - 10 * DAY, 'UTC')}`);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.header('content-disposition'), 'attachment; filename="nativa-clicks.csv"');
    const rows = parseCsv(response.text);
    assert.deepEqual(
      rows.map((row) => [row.click_id, row.outcome, row.reason, row.charge_micros, row.device, row.country]),
      [
        ['c-1', 'refused', 'bot', '0', 'mobile', 'TH'],
        ['c-2', 'refused', 'funds', '0', 'mobile', 'TH'],
        ['d-1', 'billed', '', '123457', 'mobile', 'TH'],
        ['c-3', 'billed', '', '250000', 'mobile', 'TH'],
      ],
    );
    assert.equal(rows[3]?.time, new Date(TEST_EPOCH_MS - 1000).toISOString());
    // The last ISO date there is ends the period today, like no end at all (it was a 500).
    const farEnd = await owner.client.get(
      `/api/advertiser/clicks/export?dateFrom=${dayOf(TEST_EPOCH_MS - 10 * DAY, 'UTC')}&dateTo=9999-12-31`,
    );
    assert.equal(farEnd.status, 200, farEnd.text);
    assert.equal(farEnd.text, response.text);
    const parquet = await owner.client.get('/api/advertiser/clicks/export?format=parquet');
    const file = parquet.body.buffer.slice(
      parquet.body.byteOffset,
      parquet.body.byteOffset + parquet.body.byteLength,
    ) as ArrayBuffer;
    const all = await parquetReadObjects({ file });
    assert.deepEqual(
      all.map((row) => [row.click_id, row.reason]),
      [
        ['c-0', 'limit'],
        ['c-1', 'bot'],
        ['c-2', 'funds'],
        ['d-1', ''],
        ['c-3', ''],
      ],
    );
  });

  it("limits the click log to the campaigns asked for, and only the advertiser's own", async () => {
    const [first, second] = campaigns as [number, number];
    const log = async (campaignIds: string) => {
      const response = await owner.client.get(`/api/advertiser/clicks/export?campaignIds=${campaignIds}`);
      assert.equal(response.status, 200, response.text);
      return parseCsv(response.text).map((row) => [row.click_id, row.campaign]);
    };
    assert.deepEqual(await log(String(second)), [['d-1', String(second)]]);
    assert.deepEqual(
      (await log(String(first))).map(([id]) => id),
      ['c-0', 'c-1', 'c-2', 'c-3'],
    );
    assert.equal((await log(`${second},${first}`)).length, 5, 'both campaigns');
    const foreign = await owner.client.get(`/api/advertiser/clicks/export?campaignIds=${first},${strangerCampaign}`);
    assert.equal(foreign.status, 404, foreign.text);
    const theirs = await stranger.client.get(`/api/advertiser/clicks/export?campaignIds=${first}`);
    assert.equal(theirs.status, 404, 'another account cannot read this log by naming its campaign');
    const malformed = await owner.client.get('/api/advertiser/clicks/export?campaignIds=1;2');
    assert.equal(malformed.status, 422);
    assert.equal(malformed.json<{ errors: { field: string }[] }>().errors[0]?.field, 'campaignIds');
  });

  it('answers bad parameters with 422 naming them, and other kinds of account with 403', async () => {
    const groupBy = await owner.client.get('/api/advertiser/statistics/export?groupBy=day,planet');
    assert.equal(groupBy.status, 422);
    assert.equal(groupBy.json<{ errors: { field: string }[] }>().errors[0]?.field, 'groupBy');
    assert.equal((await owner.client.get('/api/advertiser/statistics/export?format=xlsx')).status, 422);
    const date = await owner.client.get('/api/advertiser/clicks/export?dateFrom=2026-02-30');
    assert.equal(date.status, 422);
    assert.equal(date.json<{ errors: { field: string }[] }>().errors[0]?.field, 'dateFrom');
    assert.equal((await publisher.client.get('/api/webmaster/statistics/export?groupBy=campaign')).status, 422);
    assert.equal((await publisher.client.get('/api/advertiser/clicks/export')).status, 403);
    assert.equal((await owner.client.get('/api/webmaster/statistics/export')).status, 403);
    assert.equal((await server.anonymous.get('/api/advertiser/statistics/export')).status, 401);
  });
});
