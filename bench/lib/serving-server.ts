import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { generateSelfSigned, type TlsMaterial } from '../../src/tls.ts';
import { withBenchDatabase } from './database.ts';
import { seedServing } from './serving-seed.ts';

export interface SeededServingServer {
  server: RunningServer;
  databaseUrl: string;
  tls: TlsMaterial;
  /** The publisher's site and its block, where every seeded ad can serve. */
  siteId: number;
  blockId: number;
}

export interface SeededServingOptions {
  /** Names the server's temporary data directory (`nativa-bench-<name>-`). */
  name: string;
  /** Active ads of `advertisers` advertisers, 10 campaigns each, no geo targeting. */
  ads: number;
  advertisers: number;
  /** Settings over the process's environment (e.g. a Redis key prefix of the run's own). */
  environment?: Record<string, string>;
}

/**
 * The preamble of the serving scenarios: a fresh database, the real server on it (silent, the
 * environment's settings otherwise), advertisers with money, their campaigns and ads, one site
 * with a block, and the serving index built from them; everything is closed and dropped after
 * `work`, whatever it throws.
 */
export async function withSeededServingServer<T>(
  options: SeededServingOptions,
  work: (seeded: SeededServingServer) => Promise<T>,
): Promise<T> {
  return withBenchDatabase(async (databaseUrl) => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), `nativa-bench-${options.name}-`));
    const config = loadConfig({
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATABASE_URL: databaseUrl,
      // The load's clicks follow their teasers at once and unviewed: the sweep would refund them all.
      IVT_SWEEP_S: '0',
      ...options.environment,
    });
    const tls = await generateSelfSigned();
    const server = await startServer(config, { tls, logger: false });
    try {
      const { siteId, blockId } = await seedServing(server.context.db, {
        ads: options.ads,
        advertisers: options.advertisers,
        campaignsPerAdvertiser: 10,
        countriesPerCampaign: 0,
        countries: [],
      });
      await server.context.serving?.refresh();
      return await work({ server, databaseUrl, tls, siteId, blockId });
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}
