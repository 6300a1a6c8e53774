// The floor under the OpenRTB auction's CPU: the bare route, then a real bid response (its bytes
// and headers, captured once) sent by node:https to the same POST of the tests' bid request, its
// body read and nothing done with it, then the auction route itself (1,000 ads, as 6-openrtb.ts),
// each loaded in turn by each tool of BENCH_TOOLS (default autocannon) for BENCH_SECONDS, in this
// one process. The replay costs what the request's and the answer's sizes cost over TLS and
// loopback TCP with no work behind them: the auction's ratio cannot go above bare / replay. The
// replay after BENCH_BUSY_US (default 100) µs of busy work shows what a slower answer costs
// besides its own work: the load tool, waiting on it, is woken for each one. BENCH_RATE=N loads
// every target at N requests a second instead, so that all pay the same wake-ups.
// `node bench/openrtb-profile.ts` (docs/performance.md, "Where the time goes").
import https from 'node:https';
import os from 'node:os';
import { startBareServer } from './lib/bare-server.ts';
import { bidRequestBody } from './lib/bid-request.ts';
import { captureAnswer } from './lib/captured-answer.ts';
import { type LoadTool, load } from './lib/load.ts';
import { withSeededServingServer } from './lib/serving-server.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const tools = (process.env.BENCH_TOOLS ?? 'autocannon').split(',') as LoadTool[];
const busyMicros = Number(process.env.BENCH_BUSY_US ?? 100);
/** BENCH_RATE: every target at this many requests a second (one load shape for all), not as fast as each answers. */
const overallRate = process.env.BENCH_RATE === undefined ? undefined : Number(process.env.BENCH_RATE);

await withSeededServingServer(
  { name: 'openrtb-profile', ads: 1000, advertisers: 10 },
  async ({ server, tls, siteId, blockId }) => {
    const body = await bidRequestBody(server.context.db, siteId, blockId);
    const headers = { 'Content-Type': 'application/json' };
    const auctionUrl = `${server.url}/api/openrtb2/auction`;
    const captured = await captureAnswer(auctionUrl, { headers, body });
    const replay = https.createServer({ cert: tls.cert, key: tls.key }, (request, response) => {
      request.resume();
      request.on('end', () => {
        // /busy: the thread kept busy first, as long as the auction's own work (BENCH_BUSY_US); by
        // the clock, since the thread's CPU time is counted in whole scheduler ticks (4 ms).
        if (request.url === '/busy') {
          const until = performance.now() + busyMicros / 1000;
          while (performance.now() < until);
        }
        response.writeHead(200, captured.headers);
        response.end(captured.body);
      });
    });
    await new Promise<void>((resolve) => replay.listen(0, '127.0.0.1', resolve));
    const replayAddress = replay.address();
    const replayBase = `https://127.0.0.1:${typeof replayAddress === 'object' && replayAddress ? replayAddress.port : 0}`;
    const bare = await startBareServer(tls);
    try {
      const targets = [
        ['bare', bare.url, undefined],
        [
          `node:https, the bid request read, a bid response of ${captured.body.length} bytes replayed`,
          `${replayBase}/replay`,
          body,
        ],
        [`the same after ${busyMicros} µs of busy work`, `${replayBase}/busy`, body],
        ['the auction', auctionUrl, body],
      ] as const;
      // A warm-up of each target, so the JIT has compiled the path before anything is counted.
      for (const [, url, payload] of targets) await load({ url, connections: 50, durationSeconds: 2, headers, body: payload });
      for (const tool of tools) {
        for (const [name, url, payload] of targets) {
          const before = process.cpuUsage();
          const result = await load(
            { url, connections: 50, durationSeconds: seconds, headers, body: payload, overallRate },
            tool,
          );
          const used = process.cpuUsage(before);
          const perResponse = (used.user + used.system) / Math.max(1, result.total);
          process.stdout.write(
            `${tool}\t${name}\t${Math.round(result.requestsPerSecond)} req/s\tp99 ${result.p99} ms\tserver ${perResponse.toFixed(1)} µs (in the kernel ${(used.system / Math.max(1, result.total)).toFixed(1)})\tload tool ${((result.loadToolCpuMicros ?? 0) / Math.max(1, result.total)).toFixed(1)} µs\tload ${os.loadavg()[0]?.toFixed(2)}\n`,
          );
        }
      }
    } finally {
      replay.close();
      await bare.app.close();
    }
  },
);
