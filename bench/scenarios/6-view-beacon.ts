// The viewability beacon under load: POST /api/serve/views as the loader sends it (text/plain, the
// impression tokens of one block's four teasers, each token fresh), against the bare route. The
// tokens are signed up front in the load process (this file, run as a script), so signing costs
// the server nothing; the server verifies them, queues their views, and its flushes claim their
// ids and add the views to the rollup, as in production.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { loadConfig } from '../../src/config.ts';
import type { Db } from '../../src/db/database.ts';
import { newClickId } from '../../src/modules/serving/tracking/click-token.ts';
import { TeaserSigner } from '../../src/modules/serving/tracking/teaser-token.ts';
import { startServer } from '../../src/server.ts';
import { generateSelfSigned } from '../../src/tls.ts';
import { withCpu } from '../lib/cpu.ts';
import { withBenchDatabase } from '../lib/database.ts';
import { type BenchRow, judgedAgainstBare } from '../lib/report.ts';
import type { BenchContext, Scenario } from '../run.ts';

const run = promisify(execFile);
export const TOKENS_PER_BEACON = 4;
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

interface BeaconLoadSpec {
  url: string;
  connections: number;
  durationSeconds: number;
  secret: string;
  issuedAt: number;
  ads: { offerId: number; campaignId: number; siteId: number; blockId: number }[];
  beacons: number;
}

interface BeaconLoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  total: number;
  errors: number;
  timeouts: number;
  statuses: Record<string, number>;
  beaconsUsed: number;
  /** CPU time of the load process during the load (its signing before it is not counted). */
  loadToolCpuMicros: number;
}

/** One advertiser with four ads, one publisher's block: where the views are counted. */
export async function seed(db: Db) {
  const account = (kind: 'advertiser' | 'publisher', username: string) =>
    db
      .insertInto('accounts')
      .values({ kind, username, email: `${username}@bench.test`, parent_id: null, password_hash: null, email_confirmed_at: null })
      .returning('id')
      .executeTakeFirstOrThrow();
  const advertiser = await account('advertiser', 'bench-view-advertiser');
  const campaign = await db
    .insertInto('campaigns')
    .values({ advertiser_id: advertiser.id, title: 'Bench views', category_id: 2, moderation_status: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  const offers = await db
    .insertInto('offers')
    .values(
      Array.from({ length: TOKENS_PER_BEACON }, (_, index) => ({
        campaign_id: campaign.id,
        title: `Bench product ${index}`,
        description: 'A fine product',
        price_text: '9.99',
        url: 'https://shop.example.test/p?c={click_id}',
        bid_micros: 100_000,
        moderation_status: 1,
      })),
    )
    .returning('id')
    .execute();
  const publisher = await account('publisher', 'bench-view-publisher');
  const site = await db
    .insertInto('sites')
    .values({ publisher_id: publisher.id, url: 'https://views.bench.test', status: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  const block = await db
    .insertInto('blocks')
    .values({ site_id: site.id, title: 'Bench block', teaser_count: TOKENS_PER_BEACON })
    .returning('id')
    .executeTakeFirstOrThrow();
  return offers.map((offer) => ({ offerId: offer.id, campaignId: campaign.id, siteId: site.id, blockId: block.id }));
}

/** The load process: signs every beacon's tokens, then posts one beacon per request. */
async function loadBeacons(spec: BeaconLoadSpec): Promise<BeaconLoadResult> {
  const signer = new TeaserSigner(spec.secret);
  const bodies: string[] = [];
  for (let index = 0; index < spec.beacons; index += 1) {
    const tokens = spec.ads.map(
      (ad) =>
        signer.sign({ ...ad, clickId: newClickId(), device: 1, country: '', chargeMicros: 10_000, issuedAt: spec.issuedAt }).view,
    );
    bodies.push(tokens.join('\n'));
  }
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.durationSeconds,
    method: 'POST',
    headers: { 'User-Agent': USER_AGENT, 'Content-Type': 'text/plain;charset=UTF-8' },
    requests: [
      {
        setupRequest: (request) => {
          const body = bodies[next % bodies.length] ?? '';
          next += 1;
          return { ...request, body };
        },
      },
    ],
  });
  const cpu = process.cpuUsage(cpuBefore);
  const statuses: Record<string, number> = {};
  for (const key of ['1xx', '2xx', '3xx', '4xx', '5xx'] as const) statuses[key] = result[key];
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses,
    beaconsUsed: next,
    loadToolCpuMicros: cpu.user + cpu.system,
  };
}

/** Runs the load from this file as a separate process: the load generator does not share the server's event loop. */
export async function loadInOwnProcess(spec: BeaconLoadSpec): Promise<BeaconLoadResult> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'nativa-beacons-'));
  try {
    const file = path.join(directory, 'spec.json');
    writeFileSync(file, JSON.stringify(spec));
    const { stdout } = await run(process.execPath, [import.meta.filename, file], { maxBuffer: 64 * 1024 * 1024 });
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as BeaconLoadResult;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

const scenario: Scenario = {
  name: 'viewability beacon (PostgreSQL, 4 fresh impression tokens per beacon)',
  async run(context: BenchContext): Promise<BenchRow[]> {
    return withBenchDatabase((databaseUrl) => measure(context, databaseUrl));
  },
};

async function measure(context: BenchContext, databaseUrl: string): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-bench-views-'));
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: databaseUrl,
  });
  const server = await startServer(config, { tls: await generateSelfSigned(), logger: false });
  try {
    const engine = server.context.serving;
    if (engine === undefined) throw new Error('no serving engine');
    const ads = await seed(server.context.db);
    const beacons = Math.max(50_000, Math.ceil(context.bare.result.requestsPerSecond * context.durationSeconds * 0.8));
    // Signing happens in the load process (before its clock starts): the server's CPU is its own.
    const { result, cpu } = await withCpu(async () => {
      const loaded = await loadInOwnProcess({
        url: `${server.url}/api/serve/views`,
        connections: context.connections,
        durationSeconds: context.durationSeconds,
        secret: (engine as unknown as { options: { signingSecret: string } }).options.signingSecret,
        issuedAt: server.context.clock.now(),
        ads,
        beacons,
      });
      // The views of the answered beacons reach the rollup in this flush: their cost is the beacons'.
      await engine.impressions.flush();
      return { ...loaded, tool: 'node' as const };
    }, databaseUrl);
    if (result.beaconsUsed > beacons) process.stderr.write('bench: more beacons than were signed: the later ones were replays\n');
    const counted = await server.context.db
      .selectFrom('stats_daily')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('views'), eb.lit(0)).as('views'))
      .where('block_id', '=', ads[0]?.blockId ?? 0)
      .executeTakeFirstOrThrow();
    const accepted = result.statuses['2xx'] ?? 0;
    // Beacons still in flight when the load stopped were counted by the server but not by the load.
    const views = Number(counted.views);
    const allCounted = views >= TOKENS_PER_BEACON * accepted && views <= TOKENS_PER_BEACON * (accepted + context.connections);
    process.stderr.write(
      `bench: ${accepted} beacons answered 204, ${views} views counted ` +
        `(${TOKENS_PER_BEACON} per beacon, plus those of beacons in flight at the end), ` +
        `refusals ${JSON.stringify(engine.tally.viewRefusals)}\n`,
    );
    return [
      judgedAgainstBare(
        {
          scenario: `POST /api/serve/views (${TOKENS_PER_BEACON} tokens)`,
          result,
          cpu,
          goal: 'every view counted',
          met: accepted === result.total && allCounted,
        },
        context.bare,
        { serverCpuRatio: 0.55, p99TimesBare: 2 },
      ),
    ];
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const file = process.argv[2] ?? '';
  const result = await loadBeacons(JSON.parse(readFileSync(file, 'utf8')) as BeaconLoadSpec);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

export default scenario;
