// Memory of a real `nativa serve` process while it streams the export of a year of statistics for
// 500 sites (1,825,000 rollup rows: 365 days × 500 sites × 5 ads × 2 device types; EXPORT_DAYS
// changes the number of days), on the embedded
// PGlite or on PostgreSQL: `node bench/export-memory.ts pglite|postgres [csv|parquet]`. The server
// runs as a child process on a fresh DATA_DIR (PostgreSQL: a fresh database on BENCH_DATABASE_URL).
// RSS is read from /proc/PID/status (VmRSS) before the export and every 50 ms while this process
// reads the whole file (groupBy=day,ad,site,device: every rollup row is a row of the file).
// EXPORT_HEAP_MB caps the server's V8 old space (--max-old-space-size): an export that kept its
// rows would then die of an out-of-memory error instead of finishing.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { issueToken } from '../src/modules/accounts/account-service.ts';
import { createCrashDatabase, freePort, startChildServer, stopChild } from '../test/helpers/child-server.ts';
import { insertAccount, insertCampaign, insertOffer, insertSite } from '../test/helpers/fixtures.ts';

const kind = process.argv[2] === 'postgres' ? 'postgres' : 'pglite';
const format = process.argv[3] === 'parquet' ? 'parquet' : 'csv';
const SITES = 500;
const DAYS = Number(process.env.EXPORT_DAYS ?? 365);
const HEAP_MB = process.env.EXPORT_HEAP_MB;

const residentMegabytes = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB$/m);
  return Math.round(Number(line?.[1] ?? 0) / 1024);
};

if (kind === 'postgres' && !process.env.TEST_DATABASE_URL) {
  process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
}
if (kind === 'pglite') delete process.env.TEST_DATABASE_URL;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-export-memory-'));
const postgres = await createCrashDatabase('nativa_export_memory');
const lastDay = new Date().toISOString().slice(0, 10);
const firstDay = new Date(Date.parse(lastDay) - (DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
try {
  const seed = await openDatabase({ databaseUrl: postgres?.url, dataDir });
  let token: string;
  let rows: number;
  const seedStarted = performance.now();
  try {
    await migrate(seed);
    const advertiser = await insertAccount(seed.db, { kind: 'advertiser', username: 'export-advertiser' });
    const publisher = await insertAccount(seed.db, { kind: 'publisher', username: 'export-publisher' });
    const campaign = await insertCampaign(seed.db, { advertiserId: advertiser.id });
    for (let ad = 0; ad < 5; ad += 1) await insertOffer(seed.db, { campaignId: campaign.id });
    for (let site = 0; site < SITES; site += 1)
      await insertSite(seed.db, { publisherId: publisher.id, url: `https://site${site}.example` });
    // One statement per month keeps each insert's memory moderate on the embedded database.
    for (let month = 0; month < DAYS; month += 31) {
      await sql`
        INSERT INTO stats_daily (day, campaign_id, offer_id, site_id, block_id, device, country, served, views, clicks, spend_micros, publisher_income_micros, conversions_purchase)
        SELECT d::date, ${campaign.id}, o.id, s.id, 0, dev, 'DE', 1000 + s.id % 97, 1000 + s.id % 97, 10 + o.id % 7, (10 + o.id % 7) * 150000, (10 + o.id % 7) * 105000, o.id % 3
        FROM generate_series(${firstDay}::date + ${month}::int, least(${firstDay}::date + ${month + 30}::int, ${lastDay}::date), interval '1 day') AS d,
             (SELECT id FROM offers WHERE campaign_id = ${campaign.id}) AS o,
             (SELECT id FROM sites WHERE publisher_id = ${publisher.id}) AS s,
             generate_series(1, 2) AS dev`.execute(seed.db);
    }
    const counted = await sql<{ count: string }>`SELECT count(*) AS count FROM stats_daily`.execute(seed.db);
    rows = Number(counted.rows[0]?.count ?? 0);
    token = (await issueToken(seed.db, advertiser.id, 'export-bench')).token;
  } finally {
    await seed.close();
  }
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const port = await freePort();
  const child = await startChildServer({
    dataDir,
    port,
    databaseUrl: postgres?.url,
    env: { RATE_LIMIT_RPS: '1000000', ...(HEAP_MB ? { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` } : {}) },
  });
  try {
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const pid = child.pid ?? 0;
    const before = residentMegabytes(pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, residentMegabytes(pid));
    }, 50);
    const started = performance.now();
    const query = `groupBy=day,ad,site,device&dateFrom=${firstDay}&dateTo=${lastDay}&format=${format}`;
    const { bytes, lines, status } = await new Promise<{ bytes: number; lines: number; status: number }>((resolve, reject) => {
      const request = https.get(
        `https://127.0.0.1:${port}/api/advertiser/statistics/export?${query}`,
        { rejectUnauthorized: false, headers: { 'Auth-Token': token } },
        (response) => {
          let bytes = 0;
          let lines = 0;
          response.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, index + 1)) lines += 1;
          });
          response.on('end', () => resolve({ bytes, lines, status: response.statusCode ?? 0 }));
          response.on('error', reject);
        },
      );
      request.on('error', reject);
    });
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, residentMegabytes(pid));
    process.stdout.write(
      `${JSON.stringify({
        database: kind,
        format,
        heapCapMb: HEAP_MB ? Number(HEAP_MB) : undefined,
        status,
        rollupRows: rows,
        fileMb: Math.round(bytes / 1024 / 1024),
        fileRows: format === 'csv' ? lines - 1 : undefined,
        seconds: Math.round(seconds * 10) / 10,
        rowsPerSecond: Math.round(rows / seconds),
        rssBeforeMb: before,
        rssPeakMb: peak,
        rssGrowthMb: peak - before,
        seedSeconds: Math.round(seedSeconds),
      })}\n`,
    );
  } finally {
    await stopChild(child, 'SIGTERM');
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
  await postgres?.drop();
}
