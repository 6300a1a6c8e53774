// The cost of an Idempotency-Key (docs/adr/0012) on the request it guards: client balance moves
// (PUT /api/advertiser/users/{id}), each advertiser moving 0.0001 to its own client, with and without
// a fresh key per request, alternated and measured against the bare route in the same run.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { createAccount } from '../../src/modules/accounts/account-service.ts';
import { generateToken, hashToken } from '../../src/modules/accounts/tokens.ts';
import { applyLedgerChange } from '../../src/modules/ledger/ledger.ts';
import { startServer } from '../../src/server.ts';
import { generateSelfSigned } from '../../src/tls.ts';
import { startBareServer } from '../lib/bare-server.ts';
import { withBenchDatabase } from '../lib/database.ts';
import { type LoadResult, load } from '../lib/load.ts';
import { withCpuProfile } from '../lib/profile.ts';
import type { BenchRow } from '../lib/report.ts';
import type { BenchContext, Scenario } from '../run.ts';

/** Pairs of advertiser and client: each request moves money between one pair, so pairs do not wait for each other's rows. */
const PAIRS = Number(process.env.BENCH_IDEMPOTENCY_PAIRS ?? 200);
const WARM_UP_SECONDS = 3;
const ROUNDS = 2;
const GOAL = 0.9;

interface MoveSpec {
  baseUrl: string;
  connections: number;
  durationSeconds: number;
  pairs: { token: string; clientId: number }[];
  keyed: boolean;
  label: string;
}

const run = promisify(execFile);

/** Loads the balance moves from a separate process, as bench/lib/load.ts does for GETs. */
async function loadMoves(spec: MoveSpec): Promise<LoadResult> {
  const { stdout } = await run(process.execPath, [fileURLToPath(import.meta.url), 'worker', JSON.stringify(spec)], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as LoadResult;
}

async function worker(spec: MoveSpec): Promise<void> {
  let next = 0;
  const result = await autocannon({
    url: spec.baseUrl,
    connections: spec.connections,
    duration: spec.durationSeconds,
    requests: [
      {
        method: 'PUT',
        setupRequest: (request) => {
          next += 1;
          const pair = spec.pairs[next % spec.pairs.length] ?? { token: '', clientId: 0 };
          const headers: Record<string, string> = { 'Content-Type': 'application/json', 'Auth-Token': pair.token };
          if (spec.keyed) headers['Idempotency-Key'] = `${spec.label}-${process.pid}-${next}`;
          return {
            ...request,
            method: 'PUT',
            path: `/api/advertiser/users/${pair.clientId}`,
            headers,
            body: '{"balance":0.0001}',
          };
        },
      },
    ],
  });
  const statuses: Record<string, number> = {};
  for (const key of ['1xx', '2xx', '3xx', '4xx', '5xx'] as const) statuses[key] = result[key];
  process.stdout.write(
    `${JSON.stringify({
      requestsPerSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      total: result.requests.total,
      errors: result.errors,
      timeouts: result.timeouts,
      statuses,
    })}\n`,
  );
}

const mean = (results: LoadResult[]): LoadResult => {
  const average = (pick: (result: LoadResult) => number) =>
    results.reduce((sum, result) => sum + pick(result), 0) / results.length;
  const statuses: Record<string, number> = {};
  for (const result of results)
    for (const [key, count] of Object.entries(result.statuses)) statuses[key] = (statuses[key] ?? 0) + count;
  return {
    tool: 'node',
    requestsPerSecond: average((result) => result.requestsPerSecond),
    p50: average((result) => result.p50),
    p99: average((result) => result.p99),
    total: results.reduce((sum, result) => sum + result.total, 0),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
    timeouts: results.reduce((sum, result) => sum + result.timeouts, 0),
    statuses,
  };
};

const scenario: Scenario = {
  name: 'PUT /api/advertiser/users/{id} (client balance move) with and without Idempotency-Key (PostgreSQL)',
  async run(context: BenchContext): Promise<BenchRow[]> {
    return withBenchDatabase(async (databaseUrl) => {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-bench-'));
      const config = loadConfig({
        DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        RATE_LIMIT_RPS: '1000000',
      });
      const database = await openDatabase({ databaseUrl, dataDir });
      const tls = await generateSelfSigned();
      const server = await startServer(config, { database, tls });
      const bare = await startBareServer(tls);
      try {
        const db = server.context.db;
        const pairs: MoveSpec['pairs'] = [];
        for (let index = 0; index < PAIRS; index += 1) {
          const token = generateToken();
          const clientId = await db.transaction().execute(async (trx) => {
            const now = new Date();
            const parent = await createAccount(
              trx,
              { kind: 'advertiser', username: `bench${index}`, email: `bench${index}@example.test` },
              now,
            );
            await applyLedgerChange(trx, { accountId: parent.id, amountMicros: 1_000_000_000_000, kind: 'deposit' });
            const client = await createAccount(
              trx,
              {
                kind: 'advertiser',
                username: `benchclient${index}`,
                email: `benchclient${index}@example.test`,
                parentId: parent.id,
              },
              now,
            );
            await trx
              .insertInto('api_tokens')
              .values({ account_id: parent.id, name: 'bench', token_hash: hashToken(token), revoked_at: null })
              .execute();
            return client.id;
          });
          pairs.push({ token, clientId });
        }
        const spec = (keyed: boolean, durationSeconds: number): MoveSpec => ({
          baseUrl: server.url.replace('localhost', '127.0.0.1'),
          connections: context.connections,
          durationSeconds,
          pairs,
          keyed,
          label: keyed ? 'keyed' : 'plain',
        });
        await loadMoves(spec(false, WARM_UP_SECONDS));
        await loadMoves(spec(true, WARM_UP_SECONDS));
        const bareResults: LoadResult[] = [];
        const plain: LoadResult[] = [];
        const keyed: LoadResult[] = [];
        // Alternated, so a drift of the machine's speed during the run weighs on both alike.
        for (let round = 0; round < ROUNDS; round += 1) {
          bareResults.push(
            await load({ url: bare.url, connections: context.connections, durationSeconds: context.durationSeconds }),
          );
          const profiled = (name: string) => (round === 0 ? name : '');
          plain.push(await withCpuProfile(profiled('idempotency-plain'), () => loadMoves(spec(false, context.durationSeconds))));
          keyed.push(await withCpuProfile(profiled('idempotency-keyed'), () => loadMoves(spec(true, context.durationSeconds))));
        }
        const yardstick = mean(bareResults);
        const withoutKey = mean(plain);
        const withKey = mean(keyed);
        const ok = (result: LoadResult) => result.total === (result.statuses['2xx'] ?? 0);
        const ratio = withKey.requestsPerSecond / withoutKey.requestsPerSecond;
        return [
          { scenario: '  bare route, mean of the rounds', result: yardstick },
          {
            scenario: `client balance move, no key (${PAIRS} advertisers)`,
            result: withoutKey,
            ratio: withoutKey.requestsPerSecond / yardstick.requestsPerSecond,
            met: ok(withoutKey),
          },
          {
            scenario: 'client balance move, a new Idempotency-Key each (ratio: to the move without key)',
            result: withKey,
            ratio,
            goal: `ratio ≥ ${GOAL}`,
            met: ratio >= GOAL && ok(withKey),
          },
        ];
      } finally {
        await bare.app.close();
        await server.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  },
};

export default scenario;

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'worker') {
  await worker(JSON.parse(process.argv[3] ?? '{}') as MoveSpec);
}
