// In-process timing of the explain endpoints with 10,000 active ads (the 7-explain seed): the
// serving engine's explanation alone, then the whole route through app.inject (JSON and XML), so
// that CPU per request can be split between the walk and the HTTP path without the load tool.
// node bench/explain-stages.ts [rounds] [stage]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.ts';
import { generateToken, hashToken } from '../src/modules/accounts/tokens.ts';
import { getOwnBlock } from '../src/modules/publisher/blocks/block-service.ts';
import { findOwnCampaignAds } from '../src/modules/serving/explain/explain-repository.ts';
import { selectTeasers } from '../src/modules/serving/selection/select-teasers.ts';
import type { Snapshot } from '../src/modules/serving/snapshot/snapshot.ts';
import { startServer } from '../src/server.ts';
import { generateSelfSigned } from '../src/tls.ts';
import { withBenchDatabase } from './lib/database.ts';
import { seedServing } from './lib/serving-seed.ts';

const rounds = Number(process.argv[2] ?? 300);
/** Only the stages whose label contains this (e.g. `route, block`), for a CPU profile of one. */
const only = process.argv[3];

await withBenchDatabase(async (databaseUrl) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-explain-stages-'));
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: databaseUrl,
    RATE_LIMIT_RPS: '1000000',
  });
  const server = await startServer(config, { tls: await generateSelfSigned(), logger: false });
  try {
    const { db, serving } = server.context;
    if (serving === undefined) throw new Error('no serving engine');
    const { blockId, siteId } = await seedServing(db, {
      ads: 10_000,
      advertisers: 50,
      campaignsPerAdvertiser: 10,
      countriesPerCampaign: 0,
      countries: [],
    });
    await serving.refresh();
    const campaign = await db.selectFrom('campaigns').select(['id', 'advertiser_id']).orderBy('id').executeTakeFirstOrThrow();
    const site = await db.selectFrom('sites').select('publisher_id').where('id', '=', siteId).executeTakeFirstOrThrow();
    const token = async (accountId: number) => {
      const value = generateToken();
      await db
        .insertInto('api_tokens')
        .values({ account_id: accountId, name: 'stages', token_hash: hashToken(value), revoked_at: null })
        .execute();
      return value;
    };
    // CPU per call in ten batches: the least and the median, since other work shares the cores.
    const time = async (label: string, work: () => unknown) => {
      if (only !== undefined && !label.includes(only)) return;
      for (let round = 0; round < 20; round += 1) await work();
      const batches: number[] = [];
      const started = performance.now();
      for (let batch = 0; batch < 10; batch += 1) {
        const cpu = process.cpuUsage();
        for (let round = 0; round < rounds / 10; round += 1) await work();
        const used = process.cpuUsage(cpu);
        batches.push((used.user + used.system) / (rounds / 10) / 1000);
      }
      const wall = (performance.now() - started) / rounds;
      batches.sort((a, b) => a - b);
      process.stdout.write(
        `${label.padEnd(44)} CPU ${(batches[0] as number).toFixed(3)} ms least, ${(batches[5] as number).toFixed(3)} ms median, ${wall.toFixed(3)} ms wall\n`,
      );
    };
    // The snapshot is private to the engine; this diagnostic reads it to time the walk alone.
    const snapshot = (serving as unknown as { keeper: { snapshot: Snapshot } }).keeper.snapshot;
    const block = snapshot.blocks.get(blockId);
    if (block === undefined) throw new Error('block not in the snapshot');
    const impression = { block, device: 1 as const, country: '', visitorId: undefined };
    await time('selectTeasers, bucketed', () => selectTeasers(snapshot, impression));
    await time('selectTeasers, exhaustive', () => selectTeasers(snapshot, impression, { exhaustive: true }));
    await time('campaign and ad rows', () => findOwnCampaignAds(db, campaign.advertiser_id, campaign.id));
    await time('block row', () => getOwnBlock(db, site.publisher_id, blockId));
    await time('engine, campaign', () =>
      serving.explain({ blockId, campaignId: campaign.id, device: 1, country: '', visitorId: undefined }),
    );
    await time('engine, block', () => serving.explain({ blockId, device: 1, country: '', visitorId: undefined }));
    for (const [label, url, accountId] of [
      [
        'route, campaign',
        `/api/advertiser/campaigns/${campaign.id}/explain?block=${blockId}&device=mobile`,
        campaign.advertiser_id,
      ],
      ['route, block', `/api/webmaster/blocks/${blockId}/explain?device=mobile`, site.publisher_id],
    ] as const) {
      for (const accept of ['application/json', 'application/xml']) {
        // One token, cached after its first use as in the load run's warm-up (the rate limit is lifted).
        const value = await token(accountId);
        let bytes = 0;
        await time(`${label}, ${accept}`, async () => {
          const response = await server.app.inject({ method: 'GET', url, headers: { 'auth-token': value, accept } });
          if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${response.body}`);
          bytes = response.body.length;
        });
        process.stdout.write(`  (${bytes} bytes)\n`);
      }
    }
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
