import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../../src/db/database.ts';
import { advertiserFigures, publisherFigures, totalsOf } from '../../../src/modules/statistics/figures.ts';
import { rebuildCampaignRollup } from '../../../src/modules/statistics/record-events.ts';
import { planPeriod, SPANS, type SpanTerm } from '../../../src/modules/statistics/span-plan.ts';
import { ROLLUP_COUNTERS, type RollupCounter, type TrafficEvent } from '../../../src/modules/statistics/vocabulary.ts';
import { insertBlock, insertCampaign, insertOffer, insertSite, recordTraffic } from '../../helpers/fixtures.ts';
import { seededRandom } from '../../helpers/random.ts';
import { startTestServer, TEST_EPOCH_MS, type TestServer } from '../../helpers/server.ts';

// Every statistics endpoint reads pre-aggregated summaries (day, month and hour rows of
// stats_rollups); this compares each answer with a direct sum of stats_daily over randomized
// traffic written through the real write path, over periods that start and end inside months,
// on month edges and open.
const TIME_ZONE = 'Asia/Kolkata';
const OFFSET_MS = 5.5 * 3600_000;
const PERIODS: [string | undefined, string | undefined][] = [
  [undefined, undefined],
  ['2025-12-15', '2026-03-10'],
  ['2026-01-01', '2026-01-31'],
  ['2026-02-03', '2026-02-17'],
  ['2025-11-20', undefined],
  [undefined, '2026-02-28'],
  ['2026-02-01', '2026-03-09'],
  ['2025-12-31', '2026-01-01'],
  ['2025-03-11', '2026-03-10'],
  ['2025-11-24', '2026-02-23'],
  ...randomPeriods(5),
];

/** Periods with random edges between November and the test's "now", both ends inside dekads and months. */
function randomPeriods(count: number): [string, string][] {
  const random = seededRandom(1510);
  const first = Date.UTC(2025, 10, 1);
  const day = (offset: number) => new Date(first + offset * 86_400_000).toISOString().slice(0, 10);
  return Array.from({ length: count }, () => {
    const from = Math.floor(random() * 130);
    return [day(from), day(from + Math.floor(random() * (135 - from)))];
  });
}

type Sums = Record<RollupCounter, number>;
type Account = Awaited<ReturnType<TestServer['createAccount']>>;

/** Sums of stats_daily per the given key expression, over `where` and a period. */
async function dailySums(
  db: Db,
  key: string,
  where: ReturnType<typeof sql>,
  [from, to]: [string | undefined, string | undefined],
): Promise<Map<string, Sums>> {
  const conditions = [where];
  if (from !== undefined) conditions.push(sql`day >= ${from}::date`);
  if (to !== undefined) conditions.push(sql`day <= ${to}::date`);
  const result = await sql<Record<string, unknown>>`
    SELECT ${sql.raw(key)} AS key, ${sql.join(ROLLUP_COUNTERS.map((counter) => sql`sum(${sql.ref(counter)}) AS ${sql.ref(counter)}`))}
    FROM stats_daily WHERE ${sql.join(conditions, sql` AND `)} GROUP BY 1 ORDER BY 1`.execute(db);
  return new Map(
    result.rows.map((row) => [
      String(row.key),
      Object.fromEntries(ROLLUP_COUNTERS.map((counter) => [counter, Number(row[counter])])) as Sums,
    ]),
  );
}

const ZERO = Object.fromEntries(ROLLUP_COUNTERS.map((counter) => [counter, 0])) as Sums;
const advertiserView = (sums: Sums | undefined) => advertiserFigures(totalsOf(sums ?? ZERO, 0));
const publisherView = (sums: Sums | undefined) => {
  const s = sums ?? ZERO;
  return publisherFigures({
    views: s.views,
    clicks: s.clicks,
    incomeMicros: s.publisher_income_micros,
    served: s.served,
    refundedClicks: s.refunded_clicks,
    refundedIncomeMicros: s.refunded_publisher_income_micros,
    invalidClicks: s.invalid_clicks,
  });
};
/** The figure fields of an answer row (ids, dates and coefficients left out). */
function figuresOf(row: Record<string, unknown>, like: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(like).map((key) => [key, row[key]]));
}
const query = ([from, to]: [string | undefined, string | undefined], names = ['dateFrom', 'dateTo']) =>
  [from === undefined ? '' : `${names[0]}=${from}`, to === undefined ? '' : `${names[1]}=${to}`].filter(Boolean).join('&');

describe('statistics summaries', () => {
  let server: TestServer;
  let db: Db;
  let advertiser: Account;
  let publisher: Account;
  let clientId: number;
  const campaigns: number[] = [];
  const sites: number[] = [];
  const events: TrafficEvent[] = [];

  before(async () => {
    server = await startTestServer({ env: { TZ: TIME_ZONE } });
    db = server.server.context.db;
    advertiser = await server.createAccount('advertiser');
    publisher = await server.createAccount('publisher');
    const registered = await advertiser.client.post('/api/advertiser/users', {
      user: `sum${process.pid}`,
      email: `sum${process.pid}@example.test`,
    });
    assert.equal(registered.status, 201, registered.text);
    clientId = registered.json().id as number;
    const ads: { campaignId: number; offerId: number }[] = [];
    for (const owner of [advertiser.id, advertiser.id, clientId]) {
      const campaign = await insertCampaign(db, { advertiserId: owner });
      campaigns.push(campaign.id);
      for (let k = 0; k < 3; k++)
        ads.push({ campaignId: campaign.id, offerId: (await insertOffer(db, { campaignId: campaign.id })).id });
    }
    const places: { siteId: number; blockId: number }[] = [];
    for (let s = 0; s < 3; s++) {
      const site = await insertSite(db, { publisherId: publisher.id });
      sites.push(site.id);
      for (let b = 0; b < 2; b++) places.push({ siteId: site.id, blockId: (await insertBlock(db, { siteId: site.id })).id });
    }
    const random = seededRandom(410);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    for (let index = 0; index < 700; index++) {
      const views = Math.floor(random() * 60);
      const clicks = Math.floor(random() * 4);
      const spendMicros = clicks * (50_000 + Math.floor(random() * 150_000));
      const refundedClicks = clicks > 0 && random() < 0.2 ? 1 : 0;
      events.push({
        // Up to 125 days back from the test's "now", at any minute: months, days and hours all vary.
        at: TEST_EPOCH_MS - Math.floor(random() * 125 * 24 * 60) * 60_000,
        ...pick(ads),
        ...pick(places),
        device: pick([1, 2, 3] as const),
        views,
        served: views + Math.floor(random() * 10),
        clicks,
        spendMicros,
        publisherIncomeMicros: Math.floor(spendMicros * 0.7),
        conversions: { 1: Math.floor(random() * 2), 2: Math.floor(random() * 2), 3: Math.floor(random() * 2) },
        refundedClicks,
        refundedSpendMicros: refundedClicks * 40_000,
        refundedPublisherIncomeMicros: refundedClicks * 28_000,
      });
    }
    // In batches, as impression flushes and click settlements write them.
    for (let start = 0; start < events.length; start += 50) {
      await recordTraffic(db, events.slice(start, start + 50), TIME_ZONE);
    }
  });
  after(() => server.close());

  it('plans every period as signed runs of summary rows that count each of its days once', () => {
    const random = seededRandom(510);
    const days: string[] = [];
    for (let day = Date.UTC(2023, 0, 1); day <= Date.UTC(2027, 11, 31); day += 86_400_000) {
      days.push(new Date(day).toISOString().slice(0, 10));
    }
    // The first day of the summary row of `span` that holds `day`, worked out independently.
    const nodeOf = (span: number, day: string) => {
      if (span === SPANS.all) return '0001-01-01';
      if (span === SPANS.year) return `${day.slice(0, 4)}-01-01`;
      if (span === SPANS.month) return `${day.slice(0, 7)}-01`;
      if (span === SPANS.day) return day;
      const date = Number(day.slice(8, 10));
      return `${day.slice(0, 8)}${date <= 10 ? '01' : date <= 20 ? '11' : '21'}`;
    };
    const covers = (terms: SpanTerm[], day: string) =>
      terms.reduce((count, term) => {
        const node = nodeOf(term.span, day);
        return term.from <= node && node <= term.to ? count + term.sign : count;
      }, 0);
    const periods: [string | undefined, string | undefined, string][] = [
      [undefined, undefined, '2026-03-10'],
      ['2025-03-11', '2026-03-10', '2026-03-10'],
      ['2025-12-11', '2026-03-10', '2026-03-10'],
      ['2024-02-10', '2024-02-29', '2026-03-10'],
      [undefined, '2025-06-17', '2026-03-10'],
      ['2025-06-17', undefined, '2026-03-10'],
    ];
    for (let index = 0; index < 40; index++) {
      const a = Math.floor(random() * days.length);
      const b = a + Math.floor(random() * (days.length - a));
      const today = days[Math.floor(random() * days.length)] as string;
      periods.push([days[a], days[b], today]);
    }
    for (const [from, to, today] of periods) {
      const terms = planPeriod(from, to, today);
      for (let index = 0; index < days.length; index += 1 + Math.floor(random() * 9)) {
        const day = days[index] as string;
        const want = (from === undefined || day >= from) && (to === undefined || day <= to) ? 1 : 0;
        assert.equal(covers(terms, day), want, `${from}..${to} (today ${today}) on ${day}: ${JSON.stringify(terms)}`);
      }
    }
    // A year ending today: 2025 less its first two months and first dekad, and 2026 less what
    // follows today (rows that do not exist yet): five rows per key rather than 12 months and 31 days.
    assert.deepEqual(planPeriod('2025-03-11', '2026-03-10', '2026-03-10'), [
      { span: SPANS.year, from: '2025-01-01', to: '2025-01-01', sign: 1 },
      { span: SPANS.dekad, from: '2025-03-01', to: '2025-03-01', sign: -1 },
      { span: SPANS.month, from: '2025-01-01', to: '2025-02-01', sign: -1 },
      { span: SPANS.year, from: '2026-01-01', to: '2026-01-01', sign: 1 },
      { span: SPANS.dekad, from: '2026-03-11', to: '2026-03-21', sign: -1 },
      { span: SPANS.month, from: '2026-04-01', to: '2026-12-01', sign: -1 },
    ]);
  });

  it('gives campaign and ad statistics equal to stats_daily, per period and per day', async () => {
    for (const period of PERIODS) {
      const filter = query(period, ['filter[dateFrom]', 'filter[dateTo]']);
      for (const campaign of campaigns.slice(0, 2)) {
        const expected = await dailySums(db, "'all'", sql`campaign_id = ${campaign}`, period);
        const [row] = (await advertiser.client.get(`/api/advertiser/statistics?filter[id]=${campaign}&${filter}`)).json();
        const want = advertiserView(expected.get('all'));
        assert.deepEqual(figuresOf(row, want), want, `campaign ${campaign} ${period}`);
        const byDay = await dailySums(db, "to_char(day, 'YYYY-MM-DD')", sql`campaign_id = ${campaign}`, period);
        const days = (
          await advertiser.client.get(`/api/advertiser/statistics?filter[id]=${campaign}&groupDate=1&${filter}`)
        ).json();
        assert.deepEqual(
          days.map((day: Record<string, unknown>) => [day.date, figuresOf(day, want)]),
          [...byDay].map(([day, sums]) => [day, advertiserView(sums)]),
          `campaign ${campaign} by day ${period}`,
        );
      }
      const both = await dailySums(db, "'all'", sql`campaign_id IN (${campaigns[0]}, ${campaigns[1]})`, period);
      const [summed] = (
        await advertiser.client.get(`/api/advertiser/statistics?filter[id]=${campaigns[0]},${campaigns[1]}&${filter}`)
      ).json();
      assert.deepEqual(figuresOf(summed, advertiserView(undefined)), advertiserView(both.get('all')), `two campaigns ${period}`);

      const ownAds = sql`campaign_id IN (${campaigns[0]}, ${campaigns[1]})`;
      const byAd = await dailySums(db, 'offer_id', ownAds, period);
      const ads = (await advertiser.client.get(`/api/advertiser/statistics?scope=offers&${filter}`)).json();
      assert.deepEqual(
        ads.map((ad: Record<string, unknown>) => [String(ad.id), figuresOf(ad, advertiserView(undefined))]),
        [...byAd].map(([ad, sums]) => [ad, advertiserView(sums)]),
        `ads ${period}`,
      );
      const [firstAd] = byAd.keys();
      const [one] = (
        await advertiser.client.get(`/api/advertiser/statistics?scope=offers&filter[id]=${firstAd}&${filter}`)
      ).json();
      assert.deepEqual(figuresOf(one, advertiserView(undefined)), advertiserView(byAd.get(String(firstAd))), `one ad ${period}`);
      const adDays = await dailySums(db, "to_char(day, 'YYYY-MM-DD') || '/' || offer_id", ownAds, period);
      const perDay = (await advertiser.client.get(`/api/advertiser/statistics?scope=offers&groupDate=1&${filter}`)).json();
      assert.deepEqual(
        new Map(
          perDay.map((row: Record<string, unknown>) => [`${row.date}/${row.id}`, figuresOf(row, advertiserView(undefined))]),
        ),
        new Map([...adDays].map(([key, sums]) => [key, advertiserView(sums)])),
        `ads by day ${period}`,
      );
    }
  });

  it('gives campaign lists, clients and site and device statistics equal to stats_daily', async () => {
    const [block] = await db
      .selectFrom('blocks')
      .select(['id', 'site_id'])
      .where('site_id', '=', sites[1] ?? 0)
      .limit(1)
      .execute();
    const coefficient = await advertiser.client.put(
      `/api/advertiser/campaigns/multipliers/${campaigns[0]}/site/${block?.site_id}s${block?.id}`,
      { coef: 1.5 },
    );
    assert.equal(coefficient.status, 200, coefficient.text);
    const ownBlock = sql`campaign_id = ${campaigns[0]} AND block_id = ${block?.id}`;
    for (const period of PERIODS) {
      const dates = query(period);
      const byCampaign = await dailySums(db, 'campaign_id', sql`true`, period);
      const list = (await advertiser.client.get(`/api/advertiser/campaigns?per-page=50&${dates}`)).json();
      assert.equal((list.items ?? list).length, 2);
      for (const campaign of list.items ?? list) {
        const want = advertiserView(byCampaign.get(String(campaign.id)));
        assert.deepEqual(figuresOf(campaign, want), want, `campaign list ${campaign.id} ${period}`);
      }
      const client = (
        await advertiser.client.get(`/api/advertiser/users/${clientId}?expand=campaigns&archived=0&${dates}`)
      ).json();
      assert.equal(client.campaigns.length, 1);
      const clientWant = advertiserView(byCampaign.get(String(campaigns[2])));
      assert.deepEqual(figuresOf(client.campaigns[0], clientWant), clientWant, `client's campaign ${period}`);

      const campaign = campaigns[0];
      const bySite = await dailySums(db, 'site_id', sql`campaign_id = ${campaign}`, period);
      // A block with its own coefficient gets its own row (`site`s`block`) after its site's, and
      // both are listed (zeros without traffic) because of the coefficient.
      const blockSums = await dailySums(db, "site_id || 's' || block_id", ownBlock, period);
      bySite.set(String(block?.site_id), bySite.get(String(block?.site_id)) ?? ZERO);
      bySite.set(`${block?.site_id}s${block?.id}`, blockSums.get(`${block?.site_id}s${block?.id}`) ?? ZERO);
      const siteRows = (
        await advertiser.client.get(`/api/advertiser/campaigns/multipliers/${campaign}?per-page=100&${dates}`)
      ).json();
      assert.deepEqual(
        (siteRows.items ?? siteRows).map((row: Record<string, unknown>) => [
          row.site_id,
          figuresOf(row, advertiserView(undefined)),
        ]),
        [...bySite]
          .sort(([a], [b]) => {
            const [siteA = 0, blockA = 0] = a.split('s').map(Number);
            const [siteB = 0, blockB = 0] = b.split('s').map(Number);
            return siteA - siteB || blockA - blockB;
          })
          .map(([site, sums]) => [site, advertiserView(sums)]),
        `site statistics ${period}`,
      );
      const byDevice = await dailySums(db, 'device', sql`campaign_id = ${campaign}`, period);
      const deviceRows = (
        await advertiser.client.get(`/api/advertiser/campaigns/multipliers/${campaign}/device?${dates}`)
      ).json();
      assert.deepEqual(
        deviceRows.map((row: Record<string, unknown>) => figuresOf(row, advertiserView(undefined))),
        ['1', '2', '3'].map((device) => advertiserView(byDevice.get(device))),
        `device statistics ${period}`,
      );
    }
  });

  it('gives publisher statistics and sites equal to stats_daily', async () => {
    const blocks = await db.selectFrom('blocks').select(['id', 'site_id']).where('site_id', 'in', sites).orderBy('id').execute();
    for (const period of PERIODS) {
      const dates = query(period);
      const bySite = await dailySums(db, 'site_id', sql`true`, period);
      const siteList = (await publisher.client.get(`/api/webmaster/sites?per-page=50&${dates}`)).json();
      assert.equal((siteList.items ?? siteList).length, 3);
      for (const site of siteList.items ?? siteList) {
        const want = publisherView(bySite.get(String(site.id)));
        assert.deepEqual(figuresOf(site, want), want, `site list ${site.id} ${period}`);
      }
      const filters: [string, ReturnType<typeof sql>][] = [
        ['', sql`site_id IN (${sql.join(sites)})`],
        [`siteIds=${sites[1]}`, sql`site_id = ${sites[1]}`],
        [`blockIds=${blocks[0]?.id},${blocks[3]?.id}`, sql`block_id IN (${blocks[0]?.id}, ${blocks[3]?.id})`],
        [`siteIds=${sites[0]}&blockIds=${blocks[1]?.id}`, sql`site_id = ${sites[0]} AND block_id = ${blocks[1]?.id}`],
      ];
      for (const [parameters, where] of filters) {
        const byDay = await dailySums(db, "to_char(day, 'YYYY-MM-DD')", where, period);
        const rows = (await publisher.client.get(`/api/webmaster/statistic?${parameters}&${dates}`)).json();
        assert.deepEqual(
          rows.map((row: Record<string, unknown>) => [row.date, figuresOf(row, publisherView(undefined))]),
          [...byDay].map(([day, sums]) => [day, publisherView(sums)]),
          `publisher statistics ${parameters} ${period}`,
        );
      }
    }
  });

  it('gives hourly statistics in the platform time zone, for periods of at most 7 days', async () => {
    // Asia/Kolkata is UTC+05:30 all year: an event's local hour is that of its UTC time plus 5.5 h.
    const localHour = (at: number) => new Date(at + OFFSET_MS).toISOString().slice(0, 13);
    const from = '2026-03-02';
    const to = '2026-03-08';
    const inPeriod = events.filter((event) => {
      const day = localHour(event.at).slice(0, 10);
      return day >= from && day <= to;
    });
    const sumBy = (list: TrafficEvent[], key: (event: TrafficEvent) => string) => {
      const sums = new Map<string, Sums>();
      for (const event of list) {
        const sum = sums.get(key(event)) ?? { ...ZERO };
        sum.views += event.views ?? 0;
        sum.clicks += event.clicks ?? 0;
        sum.spend_micros += event.spendMicros ?? 0;
        sum.publisher_income_micros += event.publisherIncomeMicros ?? 0;
        sum.conversions_purchase += event.conversions?.[1] ?? 0;
        sum.conversions_registration += event.conversions?.[2] ?? 0;
        sum.conversions_intermediate += event.conversions?.[3] ?? 0;
        sum.served += event.served ?? 0;
        sum.refunded_clicks += event.refundedClicks ?? 0;
        sum.refunded_spend_micros += event.refundedSpendMicros ?? 0;
        sum.refunded_publisher_income_micros += event.refundedPublisherIncomeMicros ?? 0;
        sums.set(key(event), sum);
      }
      return [...sums].sort(([a], [b]) => (a < b ? -1 : 1));
    };
    const campaign = campaigns[0];
    const hours = (
      await advertiser.client.get(
        `/api/advertiser/statistics?filter[id]=${campaign}&groupHour=1&filter[dateFrom]=${from}&filter[dateTo]=${to}`,
      )
    ).json();
    const expected = sumBy(
      inPeriod.filter((event) => event.campaignId === campaign),
      (event) => localHour(event.at),
    );
    assert.ok(expected.length > 5, 'the period has traffic in several hours');
    assert.deepEqual(
      hours.map((row: Record<string, unknown>) => [
        `${row.date}T${String(row.hour).padStart(2, '0')}`,
        figuresOf(row, advertiserView(undefined)),
      ]),
      expected.map(([hour, sums]) => [hour, advertiserView(sums)]),
    );
    const adHours = (
      await advertiser.client.get(
        `/api/advertiser/statistics?scope=offers&groupHour=1&filter[dateFrom]=${from}&filter[dateTo]=${to}`,
      )
    ).json();
    const ownAdEvents = inPeriod.filter((event) => event.campaignId !== campaigns[2]);
    assert.deepEqual(
      adHours.map((row: Record<string, unknown>) => [
        `${row.date}T${String(row.hour).padStart(2, '0')}/${row.id}`,
        figuresOf(row, advertiserView(undefined)),
      ]),
      sumBy(ownAdEvents, (event) => `${localHour(event.at)}/${event.offerId}`)
        .sort(([a], [b]) => (a.slice(0, 13) === b.slice(0, 13) ? Number(a.slice(14)) - Number(b.slice(14)) : a < b ? -1 : 1))
        .map(([key, sums]) => [key, advertiserView(sums)]),
    );
    const publisherHours = (
      await publisher.client.get(`/api/webmaster/statistic?groupHour=true&siteIds=${sites[2]}&dateFrom=${from}&dateTo=${to}`)
    ).json();
    assert.deepEqual(
      publisherHours.map((row: Record<string, unknown>) => [
        `${row.date}T${String(row.hour).padStart(2, '0')}`,
        figuresOf(row, publisherView(undefined)),
      ]),
      sumBy(
        inPeriod.filter((event) => event.siteId === sites[2]),
        (event) => localHour(event.at),
      ).map(([hour, sums]) => [hour, publisherView(sums)]),
    );
    const allHours = (await publisher.client.get(`/api/webmaster/statistic?groupHour=true&dateFrom=${from}&dateTo=${to}`)).json();
    assert.equal(
      allHours.reduce((sum: number, row: { views: number }) => sum + row.views, 0),
      inPeriod.reduce((sum, event) => sum + (event.views ?? 0), 0),
    );
  });

  it('refuses hourly statistics over more than 7 days or an open period (422), changing nothing', async () => {
    const tooLong = await advertiser.client.get(
      `/api/advertiser/statistics?groupHour=1&filter[dateFrom]=2026-03-01&filter[dateTo]=2026-03-08`,
    );
    assert.equal(tooLong.status, 422, tooLong.text);
    assert.equal(tooLong.json().errors[0].field, 'groupHour');
    const open = await publisher.client.get('/api/webmaster/statistic?groupHour=1&dateFrom=2026-03-01');
    assert.equal(open.status, 422, open.text);
    assert.equal(open.json().errors[0].field, 'groupHour');
    const oneDay = await advertiser.client.get(
      `/api/advertiser/statistics?scope=offers&groupHour=1&filter[campaignId]=${campaigns[0]}&filter[date]=2026-03-05`,
    );
    assert.equal(oneDay.status, 200, oneDay.text);
    assert.ok(
      oneDay.json().every((row: { date: string; hour: number }) => row.date === '2026-03-05' && row.hour >= 0 && row.hour < 24),
    );
  });

  it('keeps the summaries equal to stats_daily after the rebuild the benchmark seeds use', async () => {
    const before = await sql<{ n: number }>`SELECT count(*)::int AS n FROM stats_rollups`.execute(db);
    const snapshot = await sql`SELECT * FROM stats_rollups ORDER BY shape, key_a, span, day, hour, key_b, key_c`.execute(db);
    await rebuildCampaignRollup(db);
    const rebuilt = await sql`SELECT * FROM stats_rollups ORDER BY shape, key_a, span, day, hour, key_b, key_c`.execute(db);
    assert.equal(rebuilt.rows.length, before.rows[0]?.n);
    assert.deepEqual(rebuilt.rows, snapshot.rows);
  });

  it('backfills the summaries from stats_daily in migrations 0410 and 0510', async () => {
    const dayAndMonth = sql`SELECT * FROM stats_rollups WHERE span <> 0 ORDER BY shape, key_a, span, day, hour, key_b, key_c`;
    // The columns these two migrations make: the pixel's conversions came later, with their own backfill (0716).
    const written = (await dayAndMonth.execute(db)).rows.map((row) =>
      Object.fromEntries(Object.entries(row as object).filter(([column]) => !column.startsWith('pixel_conversions_'))),
    );
    const migration = ['0410-statistics-summaries.sql', '0510-statistics-spans.sql']
      .map((file) => readFileSync(path.join(import.meta.dirname, '../../../src/db/migrations', file), 'utf8'))
      .join('\n;\n');
    // The counters later migrations added, as they added them (0730: refused invalid clicks).
    const laterColumns = readFileSync(
      path.join(import.meta.dirname, '../../../src/db/migrations/0730-invalid-traffic-disclosure.sql'),
      'utf8',
    )
      .split('\n')
      .filter((line) => line.startsWith('ALTER TABLE stats_rollups'))
      .join('\n');
    await server.server.context.database.withSession((run) =>
      run(`BEGIN;\nDROP TABLE stats_rollups;\n${migration}\n;${laterColumns}\nCOMMIT;`),
    );
    const backfilled = await dayAndMonth.execute(db);
    assert.ok(written.length > 1000);
    assert.deepEqual(backfilled.rows, written);
  });
});
