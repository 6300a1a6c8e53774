// In-process CPU of the teasers answer by stage, with 10,000 active ads (the 5-serving seed): the
// whole route through app.inject beside GET /api/health (Fastify and a public route's conventions)
// and the bare Fastify route, then each stage of the handler alone. No socket and no TLS: what the
// load tools add on top is the difference between their server CPU per response and the route
// here (docs/performance.md). `node bench/teasers-stages.ts [calls per batch]`; main-thread CPU
// µs per call, the least and the median of 15 batches (other work on the machine lands in some).
// `BENCH_PROFILE_DIR=dir node bench/teasers-stages.ts 2000 'teasers route'` also writes a V8 CPU
// profile of each stage's measured batches there (without start-up, seeding and warm-up).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { selectTeasers } from '../src/modules/serving/selection/select-teasers.ts';
import type { Snapshot } from '../src/modules/serving/snapshot/snapshot.ts';
import { TeaserAnswerWriter } from '../src/modules/serving/teaser-answer.ts';
import { countryOf, visitorTraits } from '../src/modules/serving/tracking/visitor.ts';
import { startServer } from '../src/server.ts';
import { generateSelfSigned } from '../src/tls.ts';
import { startBareServer } from './lib/bare-server.ts';
import { withBenchDatabase } from './lib/database.ts';
import { seedServing } from './lib/serving-seed.ts';

const perBatch = Number(process.argv[2] ?? 2000);
/** Only the stages whose label contains this (e.g. `teasers route`), for a CPU profile of one. */
const only = process.argv[3];
const profiles = process.env.BENCH_PROFILE_DIR;
const session = new Session();
if (profiles !== undefined) {
  mkdirSync(profiles, { recursive: true });
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
}
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

await withBenchDatabase(async (databaseUrl) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-teasers-stages-'));
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
  const bare = await startBareServer(tls);
  try {
    const { db, serving } = server.context;
    if (serving === undefined) throw new Error('no serving engine');
    const { blockId } = await seedServing(db, {
      ads: 10_000,
      advertisers: 50,
      campaignsPerAdvertiser: 10,
      countriesPerCampaign: 0,
      countries: [],
    });
    await serving.refresh();
    // The stages inside the handler take a few µs or less: ten times the calls, for the clock's grain.
    const time = async (label: string, work: () => unknown, calls = perBatch) => {
      if (only !== undefined && !label.includes(only)) return;
      for (let round = 0; round < calls; round += 1) await work();
      const batches: number[] = [];
      if (profiles !== undefined) await session.post('Profiler.start');
      for (let batch = 0; batch < 15; batch += 1) {
        const cpu = process.threadCpuUsage();
        for (let round = 0; round < calls; round += 1) await work();
        const used = process.threadCpuUsage(cpu);
        batches.push((used.user + used.system) / calls);
      }
      if (profiles !== undefined) {
        const { profile } = await session.post('Profiler.stop');
        writeFileSync(path.join(profiles, `${label.replace(/\W+/g, '-')}.cpuprofile`), JSON.stringify(profile));
      }
      batches.sort((a, b) => a - b);
      process.stdout.write(
        `${label.padEnd(52)} ${(batches[0] as number).toFixed(2).padStart(7)} least ${(batches[7] as number).toFixed(2).padStart(7)} median\n`,
      );
    };
    const inject = (app: typeof server.app, url: string, headers: Record<string, string>) => async () => {
      const response = await app.inject({ method: 'GET', url, headers });
      if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode}`);
    };
    const teasersUrl = `/api/serve/blocks/${blockId}/teasers`;
    process.stdout.write(
      `main-thread CPU µs per call, ${perBatch} calls a batch, load average ${os
        .loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')}\n`,
    );
    await time('bare route (inject)', inject(bare.app, '/bare', {}));
    await time('GET /api/health (inject)', inject(server.app, '/api/health', {}));
    await time('teasers route (inject)', inject(server.app, teasersUrl, { 'user-agent': USER_AGENT }));
    // The snapshot is private to the engine; this diagnostic reads it to time the stages alone.
    const snapshot = (serving as unknown as { keeper: { snapshot: Snapshot } }).keeper.snapshot;
    const block = snapshot.blocks.get(blockId);
    if (block === undefined) throw new Error('block not in the snapshot');
    // A new string each call, as each request's header is.
    await time('visitor traits (cached by User-Agent)', () => visitorTraits(`${USER_AGENT} `.trimEnd()), perBatch * 10);
    await time('country (cached by address)', () => countryOf('127.0.0.1'), perBatch * 10);
    const impression = { block, device: 1 as const, country: '', visitorId: undefined };
    await time('selection from 10,000 ads', () => selectTeasers(snapshot, impression), perBatch * 10);
    const winners = selectTeasers(snapshot, impression);
    const now = Date.now();
    await time(
      `signing ${winners.length} teasers`,
      () => {
        for (const { ad, chargeMicros } of winners) {
          serving.signer.signNew({
            offerId: ad.offerId,
            campaignId: ad.campaign.id,
            siteId: block.siteId,
            blockId,
            device: 1,
            country: '',
            chargeMicros,
            issuedAt: now,
          });
        }
      },
      perBatch * 10,
    );
    await time(
      `counting ${winners.length} teasers served`,
      () => {
        for (const { ad } of winners) {
          serving.impressions.add(
            { at: now, campaignId: ad.campaign.id, offerId: ad.offerId, siteId: block.siteId, blockId, device: 1, country: '' },
            '2026-11-26',
          );
        }
      },
      perBatch * 10,
    );
    await time('serve(): filters, selection, counting, signing', () =>
      serving.serve(impression, {
        pageId: undefined,
        cookieId: undefined,
        loaderId: undefined,
        address: '127.0.0.1',
        userAgent: USER_AGENT,
      }),
    );
    // What the engine does on its timers, whatever the traffic (snapshot/snapshot-keeper.ts): its
    // share of a request is its CPU over a period divided by the requests of that period.
    await time('snapshot: full rebuild (every 30 s)', () => serving.refresh(), 3);
    await time('snapshot: spend refresh (every SERVING_REFRESH_MS)', () => serving.tick(), 20);
    const served = await serving.serve(impression);
    const writer = new TeaserAnswerWriter('USD');
    await time(
      'the answer as text',
      () => writer.write(blockId, 'Sponsored', 'https://127.0.0.1:8443/api', served),
      perBatch * 10,
    );
  } finally {
    await bare.app.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
