import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import type { Db } from '../../../src/db/database.ts';
import { statisticsExport } from '../../../src/modules/export/export-service.ts';
import { neutraliseFormula } from '../../../src/modules/export/table-file.ts';
import { DEVICES, type DeviceId, dayOf, type TrafficEvent } from '../../../src/modules/statistics/vocabulary.ts';
import { decimalToMicros, parseCsv } from '../../helpers/csv.ts';
import { insertBlock, insertCampaign, insertOffer, insertSite, recordTraffic } from '../../helpers/fixtures.ts';
import { seededRandom } from '../../helpers/random.ts';
import { startTestServer, TEST_EPOCH_MS, type TestServer } from '../../helpers/server.ts';

const DAY = 24 * 3600 * 1000;
const DEVICE_NAMES = Object.fromEntries(Object.entries(DEVICES).map(([name, id]) => [id, name]));

/** The money columns of the files, in currency units. */
const MONEY = ['spend', 'refunded_spend', 'income', 'refunded_income', 'charge'];

/** A file row with its money read back as micros (exact decimal text, else it throws). */
const inMicros = (row: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(row).map(([name, value]) => [
      name,
      MONEY.includes(name) ? String(decimalToMicros(String(value))) : String(value),
    ]),
  );

/** A Parquet answer's bytes. */
const fileOf = (response: { body: Buffer }) =>
  response.body.buffer.slice(response.body.byteOffset, response.body.byteOffset + response.body.byteLength) as ArrayBuffer;

/**
 * A Parquet file's rows as stored: DECIMAL columns as their unscaled integers (the micros), which
 * a reader that converts decimals to binary floating point (as hyparquet does) would round.
 */
async function storedRows(file: ArrayBuffer) {
  const metadata = parquetMetadata(file);
  const schema = metadata.schema.map((element) =>
    element.converted_type === 'DECIMAL' ? { ...element, converted_type: undefined, logical_type: undefined } : element,
  );
  return parquetReadObjects({ file, metadata: { ...metadata, schema } });
}

/** The expected export computed from the events themselves, grouped by the given key (money in micros). */
function expectedRows(events: TrafficEvent[], key: (event: TrafficEvent) => string[], names: string[]) {
  const sums = new Map<string, Record<string, string | number>>();
  for (const event of events) {
    const values = key(event);
    const id = values.join('|');
    const row = sums.get(id) ?? {
      ...Object.fromEntries(names.map((name, index) => [name, values[index] ?? ''])),
      views: 0,
      clicks: 0,
      spend: 0,
      conversions_purchase: 0,
    };
    row.views = Number(row.views) + (event.views ?? 0);
    row.clicks = Number(row.clicks) + (event.clicks ?? 0);
    row.spend = Number(row.spend) + (event.spendMicros ?? 0);
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
  const siteDomain = (index: number) => `site${index}-${process.pid}.example.test`;

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
    for (let s = 0; s < 4; s += 1) {
      sites.push((await insertSite(db, { publisherId: publisher.id, url: `https://${siteDomain(s)}/news` })).id);
    }
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
      'site_domain',
      'served',
      'views',
      'clicks',
      'spend',
      'conversions_purchase',
      'conversions_registration',
      'conversions_intermediate',
      'refunded_clicks',
      'refunded_spend',
      'invalid_clicks',
    ]);
    const names = ['day', 'site', 'views', 'clicks', 'spend', 'conversions_purchase'];
    const expected = expectedRows(events, (event) => [dayOf(event.at, 'UTC'), String(event.siteId)], ['day', 'site']).sort(
      (a, b) => (a.day ?? '').localeCompare(b.day ?? '') || Number(a.site) - Number(b.site),
    );
    assert.deepEqual(
      rows.map((row) => pick(inMicros(row), names)),
      expected,
    );
    assert.deepEqual(
      rows.map((row) => row.site_domain),
      rows.map((row) => siteDomain(sites.indexOf(Number(row.site)))),
      'each site by its domain',
    );
    // 123_457 micros a click: the file keeps all six digits, the API rounds to four.
    assert.ok(rows.some((row) => /^\d+\.\d{5,6}$/.test(row.spend ?? '')));
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
      rows.map((row) => pick(inMicros(row), ['day', 'campaign', 'views', 'clicks', 'spend', 'conversions_purchase'])),
      expected,
    );
    const both = parseCsv(
      (await owner.client.get(`/api/advertiser/statistics/export?groupBy=campaign&campaignIds=${campaigns.join(',')}`)).text,
    );
    assert.deepEqual(
      both.map((row) => [row.campaign, row.campaign_title]),
      campaigns.map((id) => [String(id), 'Test campaign']),
    );
    const foreign = await owner.client.get(`/api/advertiser/statistics/export?campaignIds=${first},${strangerCampaign}`);
    assert.equal(foreign.status, 404, foreign.text);
    const malformed = await owner.client.get('/api/advertiser/statistics/export?campaignIds=one');
    assert.equal(malformed.status, 422);
    assert.equal(malformed.json().errors[0].field, 'campaignIds');
  });

  it('writes the same rows as Parquet: names as text, money as DECIMAL(18,6) holding the micros', async () => {
    const groupBy = 'campaign,ad,device,country';
    const csv = parseCsv((await owner.client.get(`/api/advertiser/statistics/export?groupBy=${groupBy}`)).text);
    const response = await owner.client.get(`/api/advertiser/statistics/export?groupBy=${groupBy}&format=parquet`);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.header('content-type'), 'application/vnd.apache.parquet');
    const file = fileOf(response);
    const schema = parquetMetadata(file).schema;
    for (const name of ['spend', 'refunded_spend']) {
      const element = schema.find((entry) => entry.name === name);
      assert.deepEqual(
        [element?.type, element?.converted_type, element?.scale, element?.precision, element?.logical_type],
        ['INT64', 'DECIMAL', 6, 18, { type: 'DECIMAL', scale: 6, precision: 18 }],
        `${name}: an exact decimal in currency units`,
      );
    }
    assert.equal(schema.find((entry) => entry.name === 'campaign_title')?.converted_type, 'UTF8');
    const stored = await storedRows(file);
    assert.equal(stored.length, csv.length);
    assert.deepEqual(
      stored.map((row) => pick(row, Object.keys(csv[0] ?? {}))),
      csv.map(inMicros),
      'the same rows; the stored money is the micros of the CSV amount',
    );
    // A typed reader sees currency units (hyparquet through binary floating point, so near, not exact).
    const typed = await parquetReadObjects({ file });
    for (const [index, row] of typed.entries()) assert.ok(Math.abs(Number(row.spend) - Number(csv[index]?.spend)) < 1e-9);
    const expected = expectedRows(
      events,
      (event) => [String(event.campaignId), String(event.offerId), DEVICE_NAMES[event.device] ?? '', event.country ?? ''],
      ['campaign', 'ad', 'device', 'country'],
    );
    assert.equal(csv.length, expected.length);
    assert.ok(csv.every((row) => row.campaign_title === 'Test campaign' && row.ad_title === 'Test ad'));
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
    assert.deepEqual(Object.keys(rows[0] ?? {}), [
      'site',
      'site_domain',
      'served',
      'views',
      'clicks',
      'income',
      'refunded_clicks',
      'refunded_income',
      'invalid_clicks',
    ]);
  });

  it("exports the click log with outcomes and reason codes, oldest first, only the advertiser's", async () => {
    const response = await owner.client.get(`/api/advertiser/clicks/export?dateFrom=${dayOf(TEST_EPOCH_MS - 10 * DAY, 'UTC')}`);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.header('content-disposition'), 'attachment; filename="nativa-clicks.csv"');
    const rows = parseCsv(response.text);
    assert.deepEqual(
      rows.map((row) => [row.click_id, row.outcome, row.reason, row.charge, row.device, row.country]),
      [
        ['c-1', 'refused', 'bot', '0', 'mobile', 'TH'],
        ['c-2', 'refused', 'funds', '0', 'mobile', 'TH'],
        ['d-1', 'billed', '', '0.123457', 'mobile', 'TH'],
        ['c-3', 'billed', '', '0.25', 'mobile', 'TH'],
      ],
    );
    assert.deepEqual(Object.keys(rows[0] ?? {}), [
      'time',
      'click_id',
      'campaign',
      'campaign_title',
      'ad',
      'ad_title',
      'site',
      'site_domain',
      'block',
      'block_title',
      'device',
      'country',
      'outcome',
      'reason',
      'charge',
    ]);
    assert.deepEqual(
      [rows[0]?.campaign_title, rows[0]?.ad_title, rows[0]?.site_domain, rows[0]?.block_title],
      ['Test campaign', 'Test ad', siteDomain(0), 'Test block'],
    );
    assert.equal(rows[3]?.time, new Date(TEST_EPOCH_MS - 1000).toISOString());
    // The last ISO date there is ends the period today, like no end at all (it was a 500).
    const farEnd = await owner.client.get(
      `/api/advertiser/clicks/export?dateFrom=${dayOf(TEST_EPOCH_MS - 10 * DAY, 'UTC')}&dateTo=9999-12-31`,
    );
    assert.equal(farEnd.status, 200, farEnd.text);
    assert.equal(farEnd.text, response.text);
    const parquet = await owner.client.get('/api/advertiser/clicks/export?format=parquet');
    const all = await storedRows(fileOf(parquet));
    assert.deepEqual(
      all.map((row) => [row.click_id, row.reason, row.charge, row.site_domain]),
      [
        ['c-0', 'limit', 0n, siteDomain(0)],
        ['c-1', 'bot', 0n, siteDomain(0)],
        ['c-2', 'funds', 0n, siteDomain(0)],
        ['d-1', '', 123_457n, siteDomain(0)],
        ['c-3', '', 250_000n, siteDomain(0)],
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

  it("gives money in currency units equal to the statistics API's figures of the same period", async () => {
    const advertiser = await server.createAccount('advertiser');
    const seller = await server.createAccount('publisher');
    const campaignId = (await insertCampaign(db, { advertiserId: advertiser.id })).id;
    const offerId = (await insertOffer(db, { campaignId })).id;
    const siteId = (await insertSite(db, { publisherId: seller.id })).id;
    const random = seededRandom(7);
    // Amounts of at most 4 fraction digits (whole hundreds of micros), the precision the JSON keeps:
    // a click at 0.007 earns the publisher 0.0049.
    const traffic: TrafficEvent[] = Array.from({ length: 9 }, (_, index) => {
      const clicks = 1 + Math.floor(random() * 40);
      const refunded = Math.floor(random() * 2);
      return {
        at: TEST_EPOCH_MS - (index % 3) * DAY - index * 60_000,
        campaignId,
        offerId,
        siteId,
        blockId: 0,
        device: DEVICES.desktop,
        views: clicks * 20,
        clicks,
        spendMicros: clicks * 7_000,
        publisherIncomeMicros: clicks * 4_900,
        refundedClicks: refunded,
        refundedSpendMicros: refunded * 7_000,
        refundedPublisherIncomeMicros: refunded * 4_900,
      };
    });
    await recordTraffic(db, traffic);
    const from = dayOf(TEST_EPOCH_MS - 2 * DAY, 'UTC');
    const to = dayOf(TEST_EPOCH_MS, 'UTC');

    const spent = parseCsv(
      (await advertiser.client.get(`/api/advertiser/statistics/export?groupBy=day&dateFrom=${from}&dateTo=${to}`)).text,
    );
    const api = (
      await advertiser.client.get(
        `/api/advertiser/statistics?filter[id]=${campaignId}&filter[dateFrom]=${from}&filter[dateTo]=${to}&groupDate=1`,
      )
    ).json<{ date: string; money: number; refundedSpend: number }[]>();
    assert.equal(api.length, 3);
    assert.deepEqual(
      spent.map((row) => [row.day, row.spend, row.refunded_spend]),
      api.map((day) => [day.date, String(day.money), String(day.refundedSpend)]),
    );
    assert.ok(
      spent.some((row) => /\.\d{3}$/.test(row.spend ?? '')),
      'a third fraction digit is kept, not rounded to cents',
    );

    const earned = parseCsv(
      (await seller.client.get(`/api/webmaster/statistics/export?groupBy=day&dateFrom=${from}&dateTo=${to}`)).text,
    );
    const income = (await seller.client.get(`/api/webmaster/statistic?dateFrom=${from}&dateTo=${to}`)).json<
      { date: string; income: number; refundedIncome: number }[]
    >();
    assert.equal(income.length, 3);
    assert.deepEqual(
      earned.map((row) => [row.day, row.income, row.refunded_income]),
      income.map((day) => [day.date, String(day.income), String(day.refundedIncome)]),
    );
    const total = (name: string, rows: Record<string, string>[]) =>
      rows.reduce((sum, row) => sum + decimalToMicros(row[name] ?? ''), 0);
    assert.equal(
      total('spend', spent),
      traffic.reduce((sum, event) => sum + (event.spendMicros ?? 0), 0),
    );
  });

  it('names each place beside its id, quoting a name with a comma or quote, and marks a deleted one', async () => {
    const advertiser = await server.createAccount('advertiser');
    const seller = await server.createAccount('publisher');
    const titles = { campaign: 'Shoes, "red" & blue', ad: 'Half price, today "only"', block: 'Top, right' };
    const campaignId = (await insertCampaign(db, { advertiserId: advertiser.id, title: titles.campaign })).id;
    const offerId = (await insertOffer(db, { campaignId, title: titles.ad })).id;
    const kept = (await insertSite(db, { publisherId: seller.id, url: `https://old-${process.pid}.example.test` })).id;
    const blockId = (await insertBlock(db, { siteId: kept, title: titles.block })).id;
    const gone = (await insertSite(db, { publisherId: seller.id, url: `https://gone-${process.pid}.example.test` })).id;
    const event = { at: TEST_EPOCH_MS, campaignId, offerId, device: DEVICES.mobile, views: 10, clicks: 1, spendMicros: 5_000 };
    await recordTraffic(db, [
      { ...event, siteId: kept, blockId },
      { ...event, siteId: gone, blockId: 0 },
    ]);
    // The site changes its address, the other is deleted: the file shows what is there now.
    await db
      .updateTable('sites')
      .set({ url: `https://new-${process.pid}.example.test/shop` })
      .where('id', '=', kept)
      .execute();
    await db.deleteFrom('sites').where('id', '=', gone).execute();

    const response = await advertiser.client.get('/api/advertiser/statistics/export?groupBy=campaign,ad,site,block');
    assert.equal(response.status, 200, response.text);
    assert.ok(
      response.text.includes(`${campaignId},"Shoes, ""red"" & blue",${offerId},"Half price, today ""only""",`),
      'quoted by RFC 4180, quotes doubled',
    );
    const rows = parseCsv(response.text);
    assert.deepEqual(
      rows.map((row) => [row.campaign_title, row.ad_title, row.site, row.site_domain, row.block, row.block_title, row.spend]),
      [
        [titles.campaign, titles.ad, String(kept), `new-${process.pid}.example.test`, String(blockId), titles.block, '0.005'],
        [titles.campaign, titles.ad, String(gone), '(deleted)', '0', '(none)', '0.005'],
      ],
    );
    const parquet = await storedRows(
      fileOf(await advertiser.client.get('/api/advertiser/statistics/export?groupBy=campaign,ad,site,block&format=parquet')),
    );
    assert.deepEqual(
      parquet.map((row) => [row.campaign_title, row.ad_title, row.site_domain, row.block_title, row.spend]),
      rows.map((row) => [row.campaign_title, row.ad_title, row.site_domain, row.block_title, 5_000n]),
    );
    const publisherFile = parseCsv((await seller.client.get('/api/webmaster/statistics/export?groupBy=site,block')).text);
    // A deleted site is no longer the publisher's: its figures leave the publisher's file with it.
    assert.deepEqual(
      publisherFile.map((row) => [row.site_domain, row.block_title]),
      [[`new-${process.pid}.example.test`, titles.block]],
    );
  });

  it('writes names that start like a formula as text, and negative amounts as numbers', async () => {
    const advertiser = await server.createAccount('advertiser');
    const seller = await server.createAccount('publisher');
    const titles = { campaign: '-2+3', ad: '@SUM(1+1)', block: '=HYPERLINK("https://evil.example/","x")' };
    const campaignId = (await insertCampaign(db, { advertiserId: advertiser.id, title: titles.campaign })).id;
    const offerId = (await insertOffer(db, { campaignId, title: titles.ad })).id;
    const siteId = (await insertSite(db, { publisherId: seller.id, url: `https://formula-${process.pid}.example.test` })).id;
    const blockId = (await insertBlock(db, { siteId, title: titles.block })).id;
    const event = { at: TEST_EPOCH_MS, campaignId, offerId, device: DEVICES.mobile, views: 10, clicks: 1, spendMicros: 5_000 };
    await recordTraffic(db, [{ ...event, siteId, blockId }]);

    const response = await advertiser.client.get('/api/advertiser/statistics/export?groupBy=campaign,ad,block');
    assert.equal(response.status, 200, response.text);
    const [row] = parseCsv(response.text);
    assert.deepEqual(
      [row?.campaign_title, row?.ad_title, row?.block_title],
      [`'${titles.campaign}`, `'${titles.ad}`, `'${titles.block}`],
    );
    for (const [text, written] of [
      ['\tcmd', "'\tcmd"],
      ['\rcmd', "'\rcmd"],
      ['+1', "'+1"],
      ['-12.5', '-12.5'],
      ['a=b', 'a=b'],
    ]) {
      assert.equal(neutraliseFormula(text ?? ''), written);
    }

    const credit = await server.operator.post(`/api/admin/users/${advertiser.id}/balance`, { amount: '2', comment: '=1+1' });
    assert.equal(credit.status, 200, credit.text);
    const debit = await server.operator.post(`/api/admin/users/${advertiser.id}/balance`, { amount: '-1.5', comment: '+cmd' });
    assert.equal(debit.status, 200, debit.text);
    const statement = await advertiser.client.get('/api/me/ledger/export');
    assert.equal(statement.status, 200, statement.text);
    const moves = parseCsv(statement.text);
    assert.deepEqual(
      moves.map((move) => [move.amount, move.balance, move.comment]),
      [
        ['2', '2', "'=1+1"],
        ['-1.5', '0.5', "'+cmd"],
      ],
      'the amount stays a number; the comment is text',
    );
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
