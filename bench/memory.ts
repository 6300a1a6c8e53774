// Resident memory of a real `nativa serve` process, idle and after load, on the embedded PGlite or
// on PostgreSQL: `node bench/memory.ts pglite|postgres`. The server runs as a child process on a
// fresh DATA_DIR (PostgreSQL: a fresh database on BENCH_DATABASE_URL). RSS is read from
// /proc/PID/status (VmRSS) 10 s after the server answers its health check, and again 5 s after
// MEMORY_LOAD_SECONDS (default 30) of teasers and clicks from two autocannon processes
// (8 connections each) with a public client address, so the country database is in use.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { createCrashDatabase, freePort, startChildServer, stopChild } from '../test/helpers/child-server.ts';
import { insertAccount, insertBlock, insertCampaign, insertOffer, insertSite } from '../test/helpers/fixtures.ts';
import { load } from './lib/load.ts';

const run = promisify(execFile);
const kind = process.argv[2] === 'postgres' ? 'postgres' : 'pglite';
const loadSeconds = Number(process.env.MEMORY_LOAD_SECONDS ?? 30);
const USER_AGENT = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
const SECRET = 'memory-bench-signing-secret-0123456789abcdef';
const PROXY_HEADERS = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': '8.8.8.8' };

const residentMegabytes = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB$/m);
  return Math.round(Number(line?.[1] ?? 0) / 1024);
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

if (kind === 'postgres' && !process.env.TEST_DATABASE_URL) {
  process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
}
if (kind === 'pglite') delete process.env.TEST_DATABASE_URL;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-memory-'));
const postgres = await createCrashDatabase('nativa_memory');
try {
  const seed = await openDatabase({ databaseUrl: postgres?.url, dataDir });
  const ads: { offerId: number; campaignId: number; siteId: number; blockId: number; chargeMicros: number }[] = [];
  let blockId = 0;
  try {
    await migrate(seed);
    const advertiser = await insertAccount(seed.db, {
      kind: 'advertiser',
      username: 'memory-advertiser',
      depositMicros: 10 ** 14,
    });
    const publisher = await insertAccount(seed.db, { kind: 'publisher', username: 'memory-publisher' });
    const site = await insertSite(seed.db, { publisherId: publisher.id });
    blockId = (await insertBlock(seed.db, { siteId: site.id, teaserCount: 4 })).id;
    for (let index = 0; index < 50; index += 1) {
      const campaign = await insertCampaign(seed.db, { advertiserId: advertiser.id });
      for (let ad = 0; ad < 4; ad += 1) {
        const offer = await insertOffer(seed.db, { campaignId: campaign.id, bidMicros: 10_000 + index * 100 + ad });
        ads.push({ offerId: offer.id, campaignId: campaign.id, siteId: site.id, blockId, chargeMicros: 10_000 });
      }
    }
  } finally {
    await seed.close();
  }
  const port = await freePort();
  const child = await startChildServer({
    dataDir,
    port,
    databaseUrl: postgres?.url,
    env: { TRUST_PROXY: 'true', SIGNING_SECRET: SECRET, RATE_LIMIT_RPS: '1000000' },
  });
  try {
    await sleep(10_000);
    const idle = residentMegabytes(child.pid ?? 0);
    const base = `https://127.0.0.1:${port}`;
    const clickWorker = path.join(import.meta.dirname, 'lib', 'click-load-worker.ts');
    const clickSpec = {
      url: `${base}/`,
      connections: 8,
      durationSeconds: loadSeconds,
      secret: SECRET,
      issuedAt: Date.now(),
      ads,
      links: 400_000,
      userAgent: USER_AGENT,
      headers: PROXY_HEADERS,
    };
    const [teasers, clicks] = await Promise.all([
      load({
        url: `${base}/api/serve/blocks/${blockId}/teasers`,
        connections: 8,
        durationSeconds: loadSeconds,
        headers: { 'User-Agent': USER_AGENT, ...PROXY_HEADERS },
      }),
      run(process.execPath, [clickWorker, JSON.stringify(clickSpec)], { maxBuffer: 64 * 1024 * 1024 }).then(
        ({ stdout }) =>
          JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { total: number; statuses: Record<string, number> },
      ),
    ]);
    await sleep(5_000);
    const loaded = residentMegabytes(child.pid ?? 0);
    process.stdout.write(
      `${JSON.stringify({ database: kind, idleRssMb: idle, afterLoadRssMb: loaded, teasers: teasers.total, teaserStatuses: teasers.statuses, clicks: clicks.total, clickStatuses: clicks.statuses })}\n`,
    );
  } finally {
    await stopChild(child, 'SIGTERM');
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
  await postgres?.drop();
}
