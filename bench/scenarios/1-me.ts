import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { createAccount } from '../../src/modules/accounts/account-service.ts';
import { generateToken, hashToken } from '../../src/modules/accounts/tokens.ts';
import { startServer } from '../../src/server.ts';
import { generateSelfSigned } from '../../src/tls.ts';
import { withCpu } from '../lib/cpu.ts';
import { withBenchDatabase } from '../lib/database.ts';
import { LOAD_TOOL, load } from '../lib/load.ts';
import { withCpuProfile } from '../lib/profile.ts';
import { type BenchRow, judgedAgainstBare } from '../lib/report.ts';
import type { BenchContext, Scenario } from '../run.ts';

// Enough tokens that the load stays well under 5 requests per second per token up to ~50,000 req/s.
const TOKEN_COUNT = Number(process.env.BENCH_TOKENS ?? 16000);

const scenario: Scenario = {
  name: 'GET /api/me, authenticated (PostgreSQL)',
  async run(context: BenchContext): Promise<BenchRow[]> {
    return withBenchDatabase(async (databaseUrl) => {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-bench-'));
      const config = loadConfig({
        DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      });
      const database = await openDatabase({ databaseUrl, dataDir });
      const tls = await generateSelfSigned();
      const server = await startServer(config, { database, tls });
      try {
        const db = server.context.db;
        const advertiser = await db
          .transaction()
          .execute((trx) =>
            createAccount(trx, { kind: 'advertiser', username: 'bench', email: 'bench@example.test' }, new Date()),
          );
        const tokens = Array.from({ length: TOKEN_COUNT }, () => generateToken());
        await db
          .insertInto('api_tokens')
          .values(
            tokens.map((token, index) => ({
              account_id: advertiser.id,
              name: `bench ${index}`,
              token_hash: hashToken(token),
              revoked_at: null,
            })),
          )
          .execute();
        const rows: BenchRow[] = [];
        for (const [format, accept, goal] of [
          ['JSON', 'application/json', 0.75],
          ['XML', 'application/xml', 0.7],
        ] as const) {
          const spec = {
            url: `${server.url.replace('localhost', '127.0.0.1')}/api/me`,
            connections: context.connections,
            durationSeconds: context.durationSeconds,
            headers: { Accept: accept },
            tokens,
          };
          // Warm-up: every token used once (then cached), however fast or slow the machine is today.
          await load({ ...spec, amount: tokens.length }, 'autocannon');
          const { result, cpu } = await withCpuProfile(`me-${format}-${LOAD_TOOL}`, () => withCpu(() => load(spec), databaseUrl));
          const non2xx = result.total - (result.statuses['2xx'] ?? 0);
          rows.push(
            judgedAgainstBare(
              {
                scenario: `GET /api/me ${format}, ${TOKEN_COUNT} tokens, limit ${config.rateLimitPerSecond}/s per token`,
                result,
                goal: 'all 2xx',
                met: non2xx === 0,
                cpu,
              },
              context.bare,
              { serverCpuRatio: goal },
            ),
          );
        }
        return rows;
      } finally {
        await server.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  },
};

export default scenario;
