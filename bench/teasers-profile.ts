// Where the teasers answer's CPU goes under each load tool: the bare route, its answer from
// node:https with no framework, the bare route with an answer of the teasers answer's size, a real
// teasers answer (its bytes and headers, captured once) sent by node:https with no work behind it,
// the same answer sent by a route of the server's fast path, and the teasers route (10,000 ads, as 5-serving.ts) in this one process, each loaded in turn by each
// tool of BENCH_TOOLS (default autocannon,wrk; a name twice alternates them) for BENCH_SECONDS.
// Prints server CPU µs per response (and the main thread's part, GC pauses per response) with the
// load average; writes a V8 profile of each load to BENCH_PROFILE_DIR (BENCH_PROFILE=0: none).
// `node bench/teasers-profile.ts` (docs/performance.md, "Teasers: why wrk's ratio is lower").
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import { generateSelfSigned } from '../src/tls.ts';
import { BARE_BODY, startBareServer } from './lib/bare-server.ts';
import { captureAnswer } from './lib/captured-answer.ts';
import { withBenchDatabase } from './lib/database.ts';
import { type LoadTool, load } from './lib/load.ts';
import { seedServing } from './lib/serving-seed.ts';

const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const tools = (process.env.BENCH_TOOLS ?? 'autocannon,wrk').split(',') as LoadTool[];
const directory = process.env.BENCH_PROFILE_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'nativa-profile-'));
const profile = process.env.BENCH_PROFILE !== '0';
/** BENCH_RATE: every target at this many requests a second (autocannon), one load shape for all. */
const overallRate = process.env.BENCH_RATE === undefined ? undefined : Number(process.env.BENCH_RATE);
let gcMillis = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMillis += entry.duration;
}).observe({ entryTypes: ['gc'] });
mkdirSync(directory, { recursive: true });

await withBenchDatabase(async (databaseUrl) => {
  const tls = await generateSelfSigned();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-profile-data-'));
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: databaseUrl,
  });
  const server = await startServer(config, { tls, logger: false });
  const bare = await startBareServer(tls);
  // The bare route with an answer of the teasers answer's size: what the size alone costs.
  const large = Fastify({ https: { cert: tls.cert, key: tls.key }, logger: false });
  const largeBody = JSON.stringify({ teasers: 'x'.repeat(1960) });
  large.get('/large', async (_request, reply) => reply.type('application/json; charset=utf-8').send(largeBody));
  await large.listen({ port: 0, host: '127.0.0.1' });
  const largeAddress = large.server.address();
  // The bare route's answer from node:https with no framework: what Fastify itself costs.
  const plainBody = JSON.stringify(BARE_BODY);
  const plain = https.createServer({ cert: tls.cert, key: tls.key }, (_request, response) => {
    response.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(plainBody),
    });
    response.end(plainBody);
  });
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  const plainAddress = plain.address();
  const plainUrl = `https://127.0.0.1:${typeof plainAddress === 'object' && plainAddress ? plainAddress.port : 0}/plain`;
  const largeUrl = `https://127.0.0.1:${typeof largeAddress === 'object' && largeAddress ? largeAddress.port : 0}/large`;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  let replay: https.Server | undefined;
  try {
    const { blockId } = await seedServing(server.context.db, {
      ads: 10_000,
      advertisers: 50,
      campaignsPerAdvertiser: 10,
      countriesPerCampaign: 0,
      countries: [],
    });
    await server.context.serving?.refresh();
    const captured = await captureAnswer(`${server.url}/api/serve/blocks/${blockId}/teasers`, {
      headers: { 'user-agent': USER_AGENT },
    });
    replay = https.createServer({ cert: tls.cert, key: tls.key }, (_request, response) => {
      response.writeHead(200, captured.headers);
      response.end(captured.body);
    });
    const replaying = replay;
    await new Promise<void>((resolve) => replaying.listen(0, '127.0.0.1', resolve));
    const replayAddress = replay.address();
    const replayUrl = `https://127.0.0.1:${typeof replayAddress === 'object' && replayAddress ? replayAddress.port : 0}/replay`;
    // The same answer from a route of the server's own fast path: what the fast path's dispatch,
    // reply, security headers, answer format and request metrics cost, with no serving behind them.
    server.app.fastPath?.add({
      method: 'GET',
      url: '/bench/replay',
      matches: (requestPath) => requestPath === '/bench/replay',
      take: () => ({
        format: 'json',
        navigation: false,
        answer: async (reply) => {
          for (const [name, value] of Object.entries(captured.headers)) reply.header(name, value);
          reply.send(captured.body);
        },
      }),
    });
    const targets = [
      ['node:https, no framework', plainUrl, {}],
      ['bare', bare.url, {}],
      ['bare, 2 KB', largeUrl, {}],
      ['node:https, a teasers answer replayed', replayUrl, {}],
      ["the server's fast path, a teasers answer replayed", `${server.url}/bench/replay`, {}],
      ['teasers', `${server.url}/api/serve/blocks/${blockId}/teasers`, { 'User-Agent': USER_AGENT }],
    ] as const;
    // A warm-up of each target, so the JIT has compiled the path before anything is counted.
    for (const [, url, headers] of targets) await load({ url, connections: 50, durationSeconds: 2, headers }, 'wrk');
    for (const tool of tools) {
      for (const [name, url, headers] of targets) {
        if (profile) await session.post('Profiler.start');
        const before = process.cpuUsage();
        const threadBefore = process.threadCpuUsage();
        const gcBefore = gcMillis;
        const result = await load({ url, connections: 50, durationSeconds: seconds, headers, overallRate }, tool);
        const used = process.cpuUsage(before);
        const thread = process.threadCpuUsage(threadBefore);
        const gc = gcMillis - gcBefore;
        if (profile) {
          const { profile: data } = await session.post('Profiler.stop');
          writeFileSync(path.join(directory, `${tool}-${name.replace(/\W+/g, '-')}.cpuprofile`), JSON.stringify(data));
        }
        const perResponse = (used.user + used.system) / Math.max(1, result.total);
        process.stdout.write(
          `${tool}\t${name}\t${Math.round(result.requestsPerSecond)} req/s\tp99 ${result.p99} ms\tserver ${perResponse.toFixed(1)} µs (main thread ${((thread.user + thread.system) / Math.max(1, result.total)).toFixed(1)}, GC pauses ${((gc * 1000) / Math.max(1, result.total)).toFixed(1)})\tload tool ${((result.loadToolCpuMicros ?? 0) / Math.max(1, result.total)).toFixed(1)} µs\tload ${os.loadavg()[0]?.toFixed(2)}\n`,
        );
      }
    }
    process.stdout.write(`profiles in ${directory}\n`);
  } finally {
    session.disconnect();
    replay?.close();
    await large.close();
    plain.close();
    await bare.app.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
