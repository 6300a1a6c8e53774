// The serving path under load: one block, 10,000 active ads. The teasers endpoint (selection from
// the in-memory index, views counted in memory) against the bare route, and the click endpoint
// (a fresh signed link per request, accepted durably before the 302 and settled right after).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config.ts';
import type { Db } from '../../src/db/database.ts';
import { applyLedgerChange } from '../../src/modules/ledger/ledger.ts';
import { startServer } from '../../src/server.ts';
import { generateSelfSigned } from '../../src/tls.ts';
import { withBenchDatabase } from '../lib/database.ts';
import { type LoadResult, load } from '../lib/load.ts';
import type { BenchRow } from '../lib/report.ts';
import type { BenchContext, Scenario } from '../run.ts';

const run = promisify(execFile);
const ADS = 10_000;
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

export async function seed(db: Db) {
  const insertAccount = (kind: 'advertiser' | 'publisher', username: string) =>
    db
      .insertInto('accounts')
      .values({ kind, username, email: `${username}@bench.test`, parent_id: null, password_hash: null, email_confirmed_at: null })
      .returning('id')
      .executeTakeFirstOrThrow();
  const advertisers: number[] = [];
  for (let index = 0; index < 50; index += 1) {
    const advertiser = await insertAccount('advertiser', `bench-advertiser-${index}`);
    await db
      .transaction()
      .execute((trx) =>
        applyLedgerChange(trx, { accountId: advertiser.id, amountMicros: 1_000_000_000_000, kind: 'deposit', comment: 'bench' }),
      );
    advertisers.push(advertiser.id);
  }
  const campaigns: number[] = [];
  for (let index = 0; index < 500; index += 1) {
    const campaign = await db
      .insertInto('campaigns')
      .values({
        advertiser_id: advertisers[index % advertisers.length] ?? 0,
        title: `Bench campaign ${index}`,
        category_id: 2,
        moderation_status: 1,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    campaigns.push(campaign.id);
  }
  for (let start = 0; start < ADS; start += 1000) {
    await db
      .insertInto('offers')
      .values(
        Array.from({ length: 1000 }, (_, offset) => {
          const index = start + offset;
          return {
            campaign_id: campaigns[index % campaigns.length] ?? 0,
            title: `Bench product ${index}`,
            description: `A fine product number ${index}`,
            price_text: `${(index % 90) + 9}.99`,
            url: `https://shop.example.test/p/${index}?c={click_id}`,
            bid_micros: 10_000 + ((index * 7919) % 990_000),
            image_square: `${index.toString(16).padStart(64, '0')}`,
            price: null,
            old_price: null,
            discount: null,
            discount_type: null,
            sub_category_id: null,
            image_wide: null,
            deleted_at: null,
            moderation_status: 1,
          };
        }),
      )
      .execute();
  }
  const publisher = await insertAccount('publisher', 'bench-publisher');
  const site = await db
    .insertInto('sites')
    .values({ publisher_id: publisher.id, url: 'https://news.bench.test', status: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  const block = await db
    .insertInto('blocks')
    .values({ site_id: site.id, title: 'Bench block', teaser_count: 4 })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { siteId: site.id, blockId: block.id };
}

async function loadClicks(spec: object): Promise<LoadResult> {
  const worker = path.join(import.meta.dirname, '..', 'lib', 'click-load-worker.ts');
  const { stdout } = await run(process.execPath, [worker, JSON.stringify(spec)], { maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as LoadResult;
}

const scenario: Scenario = {
  name: 'serving (PostgreSQL, one block, 10,000 active ads)',
  async run(context: BenchContext): Promise<BenchRow[]> {
    return withBenchDatabase((databaseUrl) => measure(context, databaseUrl));
  },
};

async function measure(context: BenchContext, databaseUrl: string): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-bench-serving-'));
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: databaseUrl,
  });
  const tls = await generateSelfSigned();
  const server = await startServer(config, { tls, logger: false });
  try {
    const { siteId, blockId } = await seed(server.context.db);
    const engine = server.context.serving;
    if (engine === undefined) throw new Error('no serving engine');
    await engine.refresh();
    const teasers = await load({
      url: `${server.url}/api/serve/blocks/${blockId}/teasers`,
      connections: context.connections,
      durationSeconds: context.durationSeconds,
      headers: { 'User-Agent': USER_AGENT },
    });
    const teaserRatio = teasers.requestsPerSecond / context.bare.result.requestsPerSecond;
    const ads = (await server.context.db.selectFrom('offers').select(['id', 'campaign_id']).limit(200).execute()).map(
      (offer) => ({
        offerId: offer.id,
        campaignId: offer.campaign_id,
        siteId,
        blockId,
        chargeMicros: 10_000,
      }),
    );
    const clicks = await loadClicks({
      url: `${server.url}/`,
      connections: context.connections,
      durationSeconds: context.durationSeconds,
      secret: (engine as unknown as { options: { signingSecret: string } }).options.signingSecret,
      issuedAt: server.context.clock.now(),
      ads,
      links: Math.max(50_000, Math.ceil(context.bare.result.requestsPerSecond * context.durationSeconds * 0.6)),
      userAgent: USER_AGENT,
    });
    const clickRatio = clicks.requestsPerSecond / context.bare.result.requestsPerSecond;
    // Redirected clicks are accepted; their settlement may still be running when the load stops.
    await engine.settled();
    const billed = await server.context.db
      .selectFrom('clicks')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('status', '=', 'billed')
      .executeTakeFirstOrThrow();
    const { acceptance, settlement } = engine.clickCounts;
    const average = (clicks: number, groups: number) => (clicks / Math.max(1, groups)).toFixed(1);
    process.stderr.write(
      `bench: ${Number(billed.count)} clicks billed of ${clicks.statuses['3xx'] ?? 0} redirects; ` +
        `${acceptance.batches} acceptance batches of ${average(acceptance.clicks, acceptance.batches)} clicks, ` +
        `${settlement.settlements} settlements of ${average(settlement.clicks, settlement.settlements)}\n`,
    );
    process.stderr.write(
      `bench: /api/metrics after the load:\n${await servingMetrics(server.url, tls.cert, server.bootstrapToken)}`,
    );
    return [
      {
        scenario: 'GET /api/serve/blocks/{id}/teasers',
        result: teasers,
        ratio: teaserRatio,
        goal: 'ratio ≥ 0.5, p99 < 20 ms',
        met: teaserRatio >= 0.5 && teasers.p99 < 20 && teasers.statuses['2xx'] === teasers.total,
      },
      {
        scenario: 'GET /api/serve/click/{token} (billed)',
        result: clicks,
        ratio: clickRatio,
        goal: 'ratio ≥ 0.25',
        met: clickRatio >= 0.25 && clicks.statuses['3xx'] === clicks.total,
      },
    ];
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The serving series of GET /api/metrics, read as Prometheus would (operator token). */
function servingMetrics(url: string, ca: string, token: string | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    https
      .get(`${url}/api/metrics`, { ca, headers: { 'Auth-Token': token ?? '' } }, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => {
          text += chunk;
        });
        response.on('end', () => {
          const wanted = /^nativa_(teaser|clicks|click_refusals|settlement_lag|conversions)[^ ]* /;
          resolve(
            `${text
              .split('\n')
              .filter((line) => wanted.test(line))
              .map((line) => `  ${line}\n`)
              .join('')}`,
          );
        });
      })
      .on('error', reject);
  });
}

export default scenario;
