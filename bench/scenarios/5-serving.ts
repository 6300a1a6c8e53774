// The serving path under load: one block, 10,000 active ads. The teasers endpoint (selection from
// the in-memory index, views counted in memory) against the bare route, and the click endpoint
// (a fresh signed link per request, accepted durably before the 302 and settled right after).
// 6-serving-100k.ts runs the same with 100,000 geo-targeted ads.
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import type { Db } from '../../src/db/database.ts';
import type { ServingEngine } from '../../src/modules/serving/serving-engine.ts';
import { newClickId } from '../../src/modules/serving/tracking/click-token.ts';
import { startServer } from '../../src/server.ts';
import { generateSelfSigned } from '../../src/tls.ts';
import { withCpu } from '../lib/cpu.ts';
import { withBenchDatabase } from '../lib/database.ts';
import { failedResponses, load } from '../lib/load.ts';
import { withCpuProfile } from '../lib/profile.ts';
import { type BenchRow, judgedAgainstBare } from '../lib/report.ts';
import { type ServingSeed, seedServing, visitorsOfCountries } from '../lib/serving-seed.ts';
import type { BenchContext, Scenario } from '../run.ts';

const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

export interface ServingBench {
  seed: ServingSeed;
  /** Label of the teasers row. */
  label: string;
  /** The teasers row's goal: its server-CPU ratio (its p99 is held to twice the bare route's). */
  teaserGoal: { serverCpuRatio: number };
  /** Measure the click endpoint too. */
  clicks: boolean;
  /** Changes the seeded rows before the snapshot is built (e.g. gives every campaign control rules). */
  afterSeed?: (db: Db, placement: { siteId: number; blockId: number }) => Promise<void>;
}

const scenario: Scenario = {
  name: 'serving (PostgreSQL, one block, 10,000 active ads)',
  run(context: BenchContext): Promise<BenchRow[]> {
    return measureServing(context, {
      seed: { ads: 10_000, advertisers: 50, campaignsPerAdvertiser: 10, countriesPerCampaign: 0, countries: [] },
      label: 'GET /api/serve/blocks/{id}/teasers, 10,000 ads',
      teaserGoal: { serverCpuRatio: 0.7 },
      clicks: true,
    });
  },
};

/** Seeds a fresh PostgreSQL database, starts the server on it, and loads the serving endpoints. */
export function measureServing(context: BenchContext, bench: ServingBench): Promise<BenchRow[]> {
  return withBenchDatabase((databaseUrl) => measure(context, bench, databaseUrl));
}

async function measure(context: BenchContext, bench: ServingBench, databaseUrl: string): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-bench-serving-'));
  const geo = bench.seed.countries.length > 0;
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: databaseUrl,
    // Visitors of many countries arrive through a proxy that names them in X-Forwarded-For.
    TRUST_PROXY: geo ? 'true' : 'false',
  });
  const tls = await generateSelfSigned();
  const server = await startServer(config, { tls, logger: false });
  // Judged against the run's bare route: server CPU per response, and p99 (bench/lib/report.ts).
  const judged = (row: BenchRow, serverCpuRatio: number): BenchRow =>
    judgedAgainstBare(row, context.bare, { serverCpuRatio, p99TimesBare: 2 });
  try {
    const { siteId, blockId } = await seedServing(server.context.db, bench.seed);
    await bench.afterSeed?.(server.context.db, { siteId, blockId });
    const engine = server.context.serving;
    if (engine === undefined) throw new Error('no serving engine');
    await engine.refresh();
    const visitors = geo ? visitorsOfCountries(bench.seed.countries.length) : [];
    const { result: teasers, cpu } = await withCpuProfile(geo ? 'teasers-geo' : 'teasers', () =>
      withCpu(
        () =>
          load({
            url: `${server.url}/api/serve/blocks/${blockId}/teasers`,
            connections: context.connections,
            durationSeconds: context.durationSeconds,
            headers: { 'User-Agent': USER_AGENT, ...(geo ? { 'X-Forwarded-Proto': 'https' } : {}) },
            headerSets: visitors.map((visitor) => ({ 'X-Forwarded-For': visitor.ip })),
          }),
        databaseUrl,
      ),
    );
    const rows = [
      judged(
        {
          scenario: bench.label,
          result: teasers,
          goal: 'all 2xx',
          met: failedResponses(teasers) === 0,
          counts: { 'teasers served': engine.tally.served, 'requests answered': engine.tally.impressions },
          cpu,
        },
        bench.teaserGoal.serverCpuRatio,
      ),
    ];
    if (bench.clicks) {
      const clicks = await measureClicks(context, {
        url: server.url,
        databaseUrl,
        db: server.context.db,
        engine,
        siteId,
        blockId,
      });
      rows.push(judged(clicks, 0.55));
    }
    process.stderr.write(
      `bench: /api/metrics after the load:\n${await servingMetrics(server.url, tls.cert, server.bootstrapToken)}`,
    );
    return rows;
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The click endpoint with a fresh link per request, signed up front with the server's key (so
 * signing costs the measured server nothing). Counted exactly: the links the load tool sent, the
 * redirects it saw within the run, the clicks the server accepted (including those whose
 * response was still in flight when the run ended) and the clicks billed once all settled.
 */
async function measureClicks(
  context: BenchContext,
  target: { url: string; databaseUrl: string; db: Db; engine: ServingEngine; siteId: number; blockId: number },
): Promise<BenchRow> {
  const { url, databaseUrl, db, engine, siteId, blockId } = target;
  const ads = (await db.selectFrom('offers').select(['id', 'campaign_id']).orderBy('id').limit(200).execute()).map((offer) => ({
    offerId: offer.id,
    campaignId: offer.campaign_id,
  }));
  const issuedAt = Date.now();
  const links = Math.max(50_000, Math.ceil(context.bare.result.requestsPerSecond * context.durationSeconds * 0.8));
  const paths = Array.from({ length: links }, (_, index) => {
    const ad = ads[index % ads.length];
    if (ad === undefined) throw new Error('no ads to click');
    const claims = {
      ...ad,
      siteId,
      blockId,
      chargeMicros: 10_000,
      clickId: newClickId(),
      device: 1 as const,
      country: '',
      issuedAt,
    };
    return `/api/serve/click/${engine.signer.sign(claims).click}`;
  });
  const acceptedBefore = engine.tally.clicksAccepted;
  const { result: clicks, cpu } = await withCpuProfile('billed-clicks', () =>
    withCpu(async () => {
      const result = await load({
        url: `${url}/`,
        connections: context.connections,
        durationSeconds: context.durationSeconds,
        headers: { 'User-Agent': USER_AGENT },
        paths,
      });
      // Responses in flight when the run ended were accepted too; their settlement may still be
      // running (and its CPU belongs to the clicks).
      await engine.settled();
      return result;
    }, databaseUrl),
  );
  const accepted = engine.tally.clicksAccepted - acceptedBefore;
  const billed = Number(
    (
      await db
        .selectFrom('clicks')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('status', '=', 'billed')
        .executeTakeFirstOrThrow()
    ).count,
  );
  const { acceptance, settlement } = engine.clickCounts;
  const average = (count: number, groups: number) => (count / Math.max(1, groups)).toFixed(1);
  process.stderr.write(
    `bench: ${acceptance.batches} acceptance batches of ${average(acceptance.clicks, acceptance.batches)} clicks, ` +
      `${settlement.settlements} settlements of ${average(settlement.clicks, settlement.settlements)}\n`,
  );
  const redirected = clicks.statuses['3xx'] ?? 0;
  if (paths.length <= (clicks.requestsSent ?? 0)) throw new Error('the click load ran out of fresh links');
  return {
    scenario: 'GET /api/serve/click/{token} (billed)',
    result: clicks,
    goal: 'billed = accepted',
    met: redirected === clicks.total && billed === accepted && accepted >= redirected,
    counts: {
      'links sent': clicks.requestsSent ?? 0,
      'redirects within the run': redirected,
      'clicks accepted by the server': accepted,
      'clicks billed': billed,
    },
    cpu,
  };
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
