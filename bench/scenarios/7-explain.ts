// The explain endpoints with 10,000 active ads: every request walks the whole serving index
// (every ad scored or skipped with its reason) and reads the campaign's or block's rows.
// Goal: p99 < 50 ms (docs/performance.md) at the concurrency of people asking (LATENCY_CONNECTIONS);
// a row at the run's full concurrency shows throughput, where latency is queueing (connections / req/s).
import type { Db } from '../../src/db/database.ts';
import { generateToken, hashToken } from '../../src/modules/accounts/tokens.ts';
import { withCpu } from '../lib/cpu.ts';
import { failedResponses, load } from '../lib/load.ts';
import type { BenchRow } from '../lib/report.ts';
import { type SeededServingServer, withSeededServingServer } from '../lib/serving-server.ts';
import type { BenchContext, Scenario } from '../run.ts';

/** Tokens per account, so that the per-token rate limit admits the load. */
const TOKEN_COUNT = 2000;
const P99_GOAL_MS = 50;
/** Explanations are asked for by people in the web app, a few at a time, not by every page view. */
const LATENCY_CONNECTIONS = 4;
const DEVICES = ['desktop', 'mobile', 'tablet'];

const scenario: Scenario = {
  name: 'explain (PostgreSQL, 10,000 active ads)',
  run(context: BenchContext): Promise<BenchRow[]> {
    return withSeededServingServer({ name: 'explain', ads: 10_000, advertisers: 50 }, (seeded) => measure(context, seeded));
  },
};

async function measure(
  context: BenchContext,
  { server, databaseUrl, siteId, blockId }: SeededServingServer,
): Promise<BenchRow[]> {
  const db = server.context.db;
  const campaign = await db.selectFrom('campaigns').select(['id', 'advertiser_id']).orderBy('id').executeTakeFirstOrThrow();
  const site = await db.selectFrom('sites').select('publisher_id').where('id', '=', siteId).executeTakeFirstOrThrow();
  const targets = [
    {
      label: `GET /api/advertiser/campaigns/{id}/explain, 10,000 ads`,
      path: `/api/advertiser/campaigns/${campaign.id}/explain?block=${blockId}&device=`,
      accountId: campaign.advertiser_id,
    },
    {
      label: 'GET /api/webmaster/blocks/{id}/explain, 10,000 ads',
      path: `/api/webmaster/blocks/${blockId}/explain?device=`,
      accountId: site.publisher_id,
    },
  ];
  const rows: BenchRow[] = [];
  for (const target of targets) {
    const tokens = await issueTokens(db, target.accountId);
    const base = {
      url: `${server.url.replace('localhost', '127.0.0.1')}/`,
      durationSeconds: context.durationSeconds,
      tokens,
      paths: DEVICES.map((device) => `${target.path}${device}`),
    };
    // Warm-up: every token used once (then cached).
    await load({ ...base, connections: context.connections, amount: tokens.length }, 'autocannon');
    for (const connections of [LATENCY_CONNECTIONS, context.connections]) {
      const { result, cpu } = await withCpu(() => load({ ...base, connections }), databaseUrl);
      const allAnswered = failedResponses(result) === 0 && (result.statuses['2xx'] ?? 0) === result.total;
      const goal = connections === LATENCY_CONNECTIONS;
      rows.push({
        scenario: `${target.label}, ${connections} connections`,
        result,
        ratio: result.requestsPerSecond / context.bare.result.requestsPerSecond,
        goal: goal ? `p99 < ${P99_GOAL_MS} ms` : 'all 2xx',
        met: goal ? result.p99 < P99_GOAL_MS && allAnswered : allAnswered,
        cpu,
      });
    }
  }
  return rows;
}

async function issueTokens(db: Db, accountId: number): Promise<string[]> {
  const tokens = Array.from({ length: TOKEN_COUNT }, () => generateToken());
  await db
    .insertInto('api_tokens')
    .values(
      tokens.map((token, index) => ({
        account_id: accountId,
        name: `bench ${index}`,
        token_hash: hashToken(token),
        revoked_at: null,
      })),
    )
    .execute();
  return tokens;
}

export default scenario;
