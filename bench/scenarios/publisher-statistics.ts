// Publisher read paths under load: the daily statistics of a publisher with 90 days of traffic on
// 2 sites x 3 blocks, and the site list with its period figures. Real server on a fresh PostgreSQL database.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createAccount, issueToken } from '../../src/modules/accounts/account-service.ts';
import { recordEvents } from '../../src/modules/statistics/record-events.ts';
import type { TrafficEvent } from '../../src/modules/statistics/vocabulary.ts';
import { startServer } from '../../src/server.ts';
import { generateSelfSigned } from '../../src/tls.ts';
import { withBenchDatabase } from '../lib/database.ts';
import { load } from '../lib/load.ts';
import type { BenchRow } from '../lib/report.ts';
import type { BenchContext, Scenario } from '../run.ts';

const DAY = 86_400_000;
const DAYS = 90;

const scenario: Scenario = {
  name: 'publisher statistics and sites (PostgreSQL)',
  run: (context) => withBenchDatabase((url) => measure(context, url)),
};

async function measure(context: BenchContext, databaseUrl: string): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-bench-publisher-'));
  const config = loadConfig(
    { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl },
    { rateLimitPerSecond: 1_000_000 },
  );
  const server = await startServer(config, { tls: await generateSelfSigned(), logger: false });
  try {
    const { db } = server.context;
    const now = new Date();
    const token = await db.transaction().execute(async (trx) => {
      const advertiser = await createAccount(trx, { kind: 'advertiser', username: 'bench_adv', email: 'adv@bench.test' }, now);
      const publisher = await createAccount(trx, { kind: 'publisher', username: 'bench_pub', email: 'pub@bench.test' }, now);
      const campaign = await trx
        .insertInto('campaigns')
        .values({ advertiser_id: advertiser.id, title: 'bench', category_id: 2, moderation_status: 1 })
        .returning('id')
        .executeTakeFirstOrThrow();
      const offer = await trx
        .insertInto('offers')
        .values({
          campaign_id: campaign.id,
          title: 'bench',
          description: 'bench',
          url: 'https://shop.bench.test/',
          bid_micros: 100_000,
          price: null,
          old_price: null,
          discount: null,
          discount_type: null,
          sub_category_id: null,
          image_square: null,
          image_wide: null,
          deleted_at: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const events: TrafficEvent[] = [];
      for (let s = 0; s < 2; s++) {
        const site = await trx
          .insertInto('sites')
          .values({ publisher_id: publisher.id, url: `https://site${s}.bench.test`, category_id: 1, status: 1 })
          .returning('id')
          .executeTakeFirstOrThrow();
        for (let b = 0; b < 3; b++) {
          const block = await trx
            .insertInto('blocks')
            .values({ site_id: site.id, title: `block ${b}` })
            .returning('id')
            .executeTakeFirstOrThrow();
          for (let d = 0; d < DAYS; d++) {
            for (const device of [1, 2, 3] as const) {
              events.push({
                at: now.getTime() - d * DAY,
                campaignId: campaign.id,
                offerId: offer.id,
                siteId: site.id,
                blockId: block.id,
                device,
                views: 1000 + d,
                clicks: 10 + (d % 7),
                spendMicros: 1_000_000,
                publisherIncomeMicros: 700_000,
              });
            }
          }
        }
      }
      await recordEvents(trx, events, config.timeZone);
      return publisher.id;
    });
    const issued = await issueToken(db, token, 'bench');
    const headers = { 'Auth-Token': issued.token };
    const rows: BenchRow[] = [];
    for (const [label, target] of [
      ['GET /webmaster/statistic (90 days, 6 blocks)', '/api/webmaster/statistic'],
      ['GET /webmaster/sites?dateFrom (2 sites)', `/api/webmaster/sites?dateFrom=2000-01-01`],
    ] as const) {
      const result = await load({
        url: `${server.url}${target}`,
        connections: context.connections,
        durationSeconds: context.durationSeconds,
        headers,
      });
      rows.push({ scenario: label, result, ratio: result.requestsPerSecond / context.bare.result.requestsPerSecond });
    }
    return rows;
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export default scenario;
