// Resident memory of a real `nativa serve` process as `npm start` runs it (the environment variables
// and node options of package.json's start script), on the embedded PGlite or on PostgreSQL:
// `node bench/memory.ts pglite|postgres`. RSS is VmRSS of /proc/PID/status, what `ps` and `top`
// show. Three readings:
// - first start: the server on an empty DATA_DIR (PostgreSQL: an empty database) runs every
//   migration itself, then MEMORY_IDLE_SECONDS (default 30) without a request;
// - restart: the server on a migrated DATA_DIR seeded with one block of 200 ads, the same idle time;
// - after load: 5 s after MEMORY_LOAD_SECONDS (default 30) of teasers and clicks from two
//   autocannon processes (8 connections each) with a public client address, so the country
//   database is in use.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildServer, SERVER_BUILD } from '../scripts/build-server.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { newClickId } from '../src/modules/serving/tracking/click-token.ts';
import { TeaserSigner } from '../src/modules/serving/tracking/teaser-token.ts';
import { createCrashDatabase, freePort, startChildServer, stopChild } from '../test/helpers/child-server.ts';
import { insertAccount, insertBlock, insertCampaign, insertOffer, insertSite } from '../test/helpers/fixtures.ts';
import { load } from './lib/load.ts';

const kind = process.argv[2] === 'postgres' ? 'postgres' : 'pglite';
const loadSeconds = Number(process.env.MEMORY_LOAD_SECONDS ?? 30);
const idleSeconds = Number(process.env.MEMORY_IDLE_SECONDS ?? 30);
const USER_AGENT = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
const SECRET = 'memory-bench-signing-secret-0123456789abcdef';
const PROXY_HEADERS = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': '8.8.8.8' };

const statusMegabytes = (pid: number, field: 'VmRSS' | 'VmHWM'): number => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm'));
  return Math.round(Number(line?.[1] ?? 0) / 1024);
};
const residentMegabytes = (pid: number): number => statusMegabytes(pid, 'VmRSS');

/**
 * Where the resident memory is, from the mappings of /proc/PID/smaps, in MB: `file` the node
 * binary and shared libraries (read-only, shared with other node processes), `wasm` anonymous
 * mappings of 100 MB and more (PGlite's WebAssembly memory, 128 MB reserved and partly touched),
 * `mallocHeap` glibc's main arena ([heap]), `jitCode` executable anonymous mappings (V8's and
 * WebAssembly's compiled code), `otherAnon` the rest: V8's heap pages, PGlite's wasm bytes and
 * file bundle, malloc's other arena and its blocks of 128 kB and more. `peak` is VmHWM.
 */
function residentBreakdown(pid: number): Record<string, number> {
  const parts = { file: 0, wasm: 0, mallocHeap: 0, jitCode: 0, otherAnon: 0 };
  let part: keyof typeof parts = 'otherAnon';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const mapping = line.match(/^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/);
    if (mapping !== null) {
      const [, start = '0', end = '0', permissions = '', name = ''] = mapping;
      const size = Number.parseInt(end, 16) - Number.parseInt(start, 16);
      if (name.startsWith('/')) part = 'file';
      else if (name === '[heap]') part = 'mallocHeap';
      else if (name === '' && size >= 100 * 2 ** 20) part = 'wasm';
      else if (permissions.includes('x')) part = 'jitCode';
      else part = 'otherAnon';
      continue;
    }
    const rss = line.match(/^Rss:\s+(\d+) kB$/);
    if (rss !== null) parts[part] += Number(rss[1]);
  }
  const megabytes = Object.fromEntries(Object.entries(parts).map(([key, kb]) => [key, Math.round(kb / 1024)]));
  return { ...megabytes, peak: statusMegabytes(pid, 'VmHWM') };
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `npm start`'s environment variables, node options and script, so that the bench runs what a user runs. */
function startCommand(): { env: Record<string, string>; nodeArgs: string[]; entry: string } {
  const manifest = JSON.parse(readFileSync(path.join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const words = manifest.scripts.start.split(/\s+/);
  const node = words.indexOf('node');
  const env = Object.fromEntries(words.slice(0, node).map((word) => word.split('=', 2) as [string, string]));
  const entry = words.slice(node + 1).find((word) => !word.startsWith('--'));
  if (entry === undefined) throw new Error('npm start names no script');
  return { env, nodeArgs: words.slice(node + 1).filter((word) => word.startsWith('--')), entry };
}
const start = startCommand();
// What npm start's prestart does for the server (the web app's build is not needed to measure memory).
if (start.entry === path.relative(path.join(import.meta.dirname, '..'), SERVER_BUILD)) await buildServer();

/** Starts the server on `dataDir` (or `databaseUrl`), waits idle, returns its RSS and the child. */
async function idleServer(dataDir: string, databaseUrl: string | undefined, env: Record<string, string> = {}) {
  const port = await freePort();
  const child = await startChildServer({
    dataDir,
    port,
    databaseUrl,
    nodeArgs: start.nodeArgs,
    entry: start.entry,
    // A first start runs every migration: ~15 s on a quiet machine, minutes on a loaded one.
    startTimeoutMs: 600_000,
    env: { ...start.env, ...env },
  });
  await sleep(idleSeconds * 1000);
  return { child, port, idle: residentMegabytes(child.pid ?? 0), parts: residentBreakdown(child.pid ?? 0) };
}

if (kind === 'postgres' && !process.env.TEST_DATABASE_URL) {
  process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
}
if (kind === 'pglite') delete process.env.TEST_DATABASE_URL;
let firstStartIdle = 0;
let firstStartParts: Record<string, number> = {};
const emptyDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-memory-first-'));
const empty = await createCrashDatabase('nativa_memory_first');
try {
  const first = await idleServer(emptyDir, empty?.url);
  firstStartIdle = first.idle;
  firstStartParts = first.parts;
  await stopChild(first.child, 'SIGTERM');
} finally {
  rmSync(emptyDir, { recursive: true, force: true });
  await empty?.drop();
}

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
  const { child, port, idle, parts } = await idleServer(dataDir, postgres?.url, {
    TRUST_PROXY: 'true',
    SIGNING_SECRET: SECRET,
    RATE_LIMIT_RPS: '1000000',
  });
  try {
    const base = `https://127.0.0.1:${port}`;
    // Fresh signed click links, as the teasers answers would hand them out (a link is accepted once).
    const signer = new TeaserSigner(SECRET);
    const issuedAt = Date.now();
    const paths = Array.from({ length: 400_000 }, (_, index) => {
      const ad = ads[index % ads.length] ?? ads[0];
      if (ad === undefined) throw new Error('no ads to click');
      const claims = { ...ad, clickId: newClickId(), device: 1 as const, country: 'US', issuedAt };
      return `/api/serve/click/${signer.sign(claims).click}`;
    });
    const [teasers, clicks] = await Promise.all([
      load({
        url: `${base}/api/serve/blocks/${blockId}/teasers`,
        connections: 8,
        durationSeconds: loadSeconds,
        headers: { 'User-Agent': USER_AGENT, ...PROXY_HEADERS },
      }),
      load({
        url: `${base}/`,
        connections: 8,
        durationSeconds: loadSeconds,
        headers: { 'User-Agent': USER_AGENT, ...PROXY_HEADERS },
        paths,
      }),
    ]);
    await sleep(5_000);
    const loaded = residentMegabytes(child.pid ?? 0);
    process.stdout.write(
      `${JSON.stringify({ database: kind, idleSeconds, firstStartIdleRssMb: firstStartIdle, idleRssMb: idle, firstStartParts, idleParts: parts, afterLoadRssMb: loaded, teasers: teasers.total, teaserStatuses: teasers.statuses, clicks: clicks.total, clickStatuses: clicks.statuses })}\n`,
    );
  } finally {
    await stopChild(child, 'SIGTERM');
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
  await postgres?.drop();
}
