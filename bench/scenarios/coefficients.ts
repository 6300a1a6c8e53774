// Site and device statistics of a campaign with a realistic rollup behind them: 200 sites with
// two blocks each, three devices, 30 days (36,000 stats_daily rows), and coefficients on a tenth
// of the sites and blocks. Statistics are fed through recordEvents, as the serving engine does.

import { openDatabase } from '../../src/db/database.ts';
import { DEVICES, type TrafficEvent } from '../../src/modules/statistics/vocabulary.ts';
import { insertBlock, insertCampaign, insertOffer, insertSite, recordTraffic } from '../../test/helpers/fixtures.ts';
import { startTestServer, TEST_EPOCH_MS } from '../../test/helpers/server.ts';
import { withBenchDatabase } from '../lib/database.ts';
import { load } from '../lib/load.ts';
import type { BenchRow } from '../lib/report.ts';
import type { BenchContext, Scenario } from '../run.ts';

const SITES = 200;
const DAYS = 30;

const scenario: Scenario = {
  name: 'quality coefficients: site and device statistics (PostgreSQL)',
  run: (context) => withBenchDatabase((url) => measure(context, url)),
};

async function measure({ bare, durationSeconds, connections }: BenchContext, databaseUrl: string): Promise<BenchRow[]> {
  const database = await openDatabase({ databaseUrl, dataDir: '' });
  const server = await startTestServer({ database, config: { rateLimitPerSecond: 1_000_000 } });
  try {
    const db = server.server.context.db;
    const advertiser = await server.createAccount('advertiser');
    const publisher = await server.createAccount('publisher');
    const campaign = await insertCampaign(db, { advertiserId: advertiser.id });
    const offer = await insertOffer(db, { campaignId: campaign.id });
    const events: TrafficEvent[] = [];
    for (let index = 0; index < SITES; index++) {
      const site = await insertSite(db, { publisherId: publisher.id });
      for (let b = 0; b < 2; b++) {
        const block = await insertBlock(db, { siteId: site.id });
        if (index % 10 === 0) {
          await advertiser.client.put(`/api/advertiser/campaigns/multipliers/${campaign.id}/site/${site.id}s${block.id}`, {
            coef: 1.5,
          });
        }
        for (let day = 0; day < DAYS; day++) {
          for (const device of Object.values(DEVICES)) {
            events.push({
              at: TEST_EPOCH_MS - day * 86_400_000,
              campaignId: campaign.id,
              offerId: offer.id,
              siteId: site.id,
              blockId: block.id,
              device,
              views: 100 + index,
              clicks: 3,
              spendMicros: 300_000,
              conversions: { 1: 1 },
            });
          }
        }
      }
      if (index % 10 === 5)
        await advertiser.client.put(`/api/advertiser/campaigns/multipliers/${campaign.id}/site/${site.id}`, { coef: 0.8 });
    }
    await recordTraffic(db, events);
    const headers = { 'Auth-Token': advertiser.token };
    const base = `/api/advertiser/campaigns/multipliers/${campaign.id}`;
    const sites = await load({
      url: `${server.url}${base}?per-page=100&dateFrom=2026-02-20`,
      headers,
      connections,
      durationSeconds,
    });
    const devices = await load({ url: `${server.url}${base}/device?targetId=1`, headers, connections, durationSeconds });
    return [
      {
        scenario: `GET multipliers/{campaign} (${SITES} sites, ${SITES * 2 * 3 * DAYS} rollup rows)`,
        result: sites,
        ratio: sites.requestsPerSecond / bare.result.requestsPerSecond,
      },
      {
        scenario: 'GET multipliers/{campaign}/device',
        result: devices,
        ratio: devices.requestsPerSecond / bare.result.requestsPerSecond,
      },
    ];
  } finally {
    await server.close();
    await database.close();
  }
}

export default scenario;
