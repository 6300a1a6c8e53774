// The OpenRTB 2.6 endpoint under load: POST /api/openrtb2/auction with the IAB-shaped native bid
// request of the tests (one native impression of one block of 1,000 active ads), against the bare
// route measured right before and after. Each request runs the serving auction for the block,
// signs a click link and a view token, and writes the Native 1.2 markup.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startBareServer } from '../lib/bare-server.ts';
import { withCpu } from '../lib/cpu.ts';
import { failedResponses, load } from '../lib/load.ts';
import type { BenchRow } from '../lib/report.ts';
import { type SeededServingServer, withSeededServingServer } from '../lib/serving-server.ts';
import type { BenchContext, Scenario } from '../run.ts';

const FIXTURE = path.join(
  import.meta.dirname,
  '..',
  '..',
  'test',
  'modules',
  'serving',
  'openrtb',
  'fixtures',
  'native-request.json',
);
const GOAL_RATIO = 0.4;

const scenario: Scenario = {
  name: 'OpenRTB 2.6 native auction (PostgreSQL, one block, 1,000 active ads)',
  run(context: BenchContext): Promise<BenchRow[]> {
    return withSeededServingServer({ name: 'openrtb', ads: 1000, advertisers: 10 }, (seeded) => measure(context, seeded));
  },
};

async function measure(
  context: BenchContext,
  { server, databaseUrl, tls, siteId, blockId }: SeededServingServer,
): Promise<BenchRow[]> {
  const bare = await startBareServer(tls);
  try {
    const site = await server.context.db
      .selectFrom('sites')
      .select('publisher_id')
      .where('id', '=', siteId)
      .executeTakeFirstOrThrow();
    const request = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    request.site.publisher.id = String(site.publisher_id);
    request.imp[0].tagid = String(blockId);
    const loadBare = () => load({ url: bare.url, connections: context.connections, durationSeconds: context.durationSeconds });
    const before = await loadBare();
    const { result, cpu } = await withCpu(
      () =>
        load({
          url: `${server.url}/api/openrtb2/auction`,
          connections: context.connections,
          durationSeconds: context.durationSeconds,
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(request),
        }),
      databaseUrl,
    );
    const after = await loadBare();
    const yardstick = (before.requestsPerSecond + after.requestsPerSecond) / 2;
    const ratio = result.requestsPerSecond / yardstick;
    const bids = result.statuses['2xx'] ?? 0;
    return [
      { scenario: '  bare route before and after, mean', result: { ...before, requestsPerSecond: yardstick } },
      {
        scenario: 'POST /api/openrtb2/auction, 1 native imp, 1,000 ads',
        result,
        ratio,
        cpu,
        goal: `ratio ≥ ${GOAL_RATIO}`,
        met: ratio >= GOAL_RATIO && failedResponses(result) === 0 && bids === result.total,
      },
    ];
  } finally {
    await bare.app.close();
  }
}

export default scenario;
