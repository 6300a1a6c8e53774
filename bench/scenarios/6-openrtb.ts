// The OpenRTB 2.6 endpoint under load: POST /api/openrtb2/auction with the IAB-shaped native bid
// request of the tests (one native impression of one block of 1,000 active ads), judged against the
// bare route measured at the start of the run (server-CPU ratio, bench/lib/report.ts). Each request
// runs the serving auction for the block, signs a click link and a view token, and writes the
// Native 1.2 markup.
import { bidRequestBody } from '../lib/bid-request.ts';
import { withCpu } from '../lib/cpu.ts';
import { failedResponses, load } from '../lib/load.ts';
import { withCpuProfile } from '../lib/profile.ts';
import { type BenchRow, judgedAgainstBare } from '../lib/report.ts';
import { type SeededServingServer, withSeededServingServer } from '../lib/serving-server.ts';
import type { BenchContext, Scenario } from '../run.ts';

/** The auction's goal: its server-CPU ratio (its p99 is held to twice the bare route's). */
const GOAL_SERVER_CPU_RATIO = 0.4;

const scenario: Scenario = {
  name: 'OpenRTB 2.6 native auction (PostgreSQL, one block, 1,000 active ads)',
  run(context: BenchContext): Promise<BenchRow[]> {
    return withSeededServingServer({ name: 'openrtb', ads: 1000, advertisers: 10 }, (seeded) => measure(context, seeded));
  },
};

async function measure(
  context: BenchContext,
  { server, databaseUrl, siteId, blockId }: SeededServingServer,
): Promise<BenchRow[]> {
  {
    const body = await bidRequestBody(server.context.db, siteId, blockId);
    const { result, cpu } = await withCpuProfile('openrtb-auction', () =>
      withCpu(
        () =>
          load({
            url: `${server.url}/api/openrtb2/auction`,
            connections: context.connections,
            durationSeconds: context.durationSeconds,
            headers: { 'Content-Type': 'application/json' },
            body,
          }),
        databaseUrl,
      ),
    );
    const bids = result.statuses['2xx'] ?? 0;
    return [
      judgedAgainstBare(
        {
          scenario: 'POST /api/openrtb2/auction, 1 native imp, 1,000 ads',
          result,
          cpu,
          goal: 'a bid for every request',
          met: failedResponses(result) === 0 && bids === result.total,
        },
        context.bare,
        { serverCpuRatio: GOAL_SERVER_CPU_RATIO, p99TimesBare: 2 },
      ),
    ];
  }
}

export default scenario;
