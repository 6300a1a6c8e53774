import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { type Db, openDatabase } from '../../../src/db/database.ts';
import { cleanEnv } from '../../helpers/clean-env.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf } from '../../helpers/serving.ts';

const execFileAsync = promisify(execFile);
const BIN = path.join(import.meta.dirname, '..', '..', '..', 'bin', 'nativa.js');
const postgresUrl = process.env.TEST_DATABASE_URL;

/** Everything a restore must bring back: accounts, the ledger, statistics, and what they came from. */
async function contents(db: Db): Promise<Record<string, unknown[]>> {
  const tables = ['accounts', 'api_tokens', 'ledger_entries', 'campaigns', 'offers', 'sites', 'blocks', 'clicks'];
  const result: Record<string, unknown[]> = {};
  for (const table of tables) {
    result[table] = (await sql`SELECT * FROM ${sql.table(table)} ORDER BY 1`.execute(db)).rows;
  }
  result.stats_daily = (
    await sql`SELECT * FROM stats_daily ORDER BY day, campaign_id, offer_id, site_id, block_id, device, country`.execute(db)
  ).rows;
  return result;
}

describe(`nativa backup and restore (${postgresUrl ? 'PostgreSQL: pg_dump, pg_restore' : 'PGlite'})`, () => {
  let server: TestServer;
  let workDir: string;
  let expected: Record<string, unknown[]>;

  async function nativa(args: string[], env: Record<string, string>): Promise<string> {
    const { stdout } = await execFileAsync(process.execPath, [BIN, ...args], {
      env: cleanEnv({ ...env }),
    });
    return stdout;
  }

  before(async () => {
    server = await startTestServer();
    workDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-backup-'));
    // Accounts, a top-up (ledger), a served block and a billed click (ledger, clicks, statistics).
    const world = await createWorld(server);
    const desktop = { headers: { 'User-Agent': DESKTOP_UA } };
    const teasers = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, desktop);
    const url = new URL(teasers.json().teasers[0].url);
    assert.equal((await server.anonymous.get(url.pathname, desktop)).status, 302);
    await engineOf(server).settled();
    await engineOf(server).impressions.flush();
    expected = await contents(server.server.context.db);
    assert.ok(expected.accounts && expected.accounts.length >= 4, 'operator, platform, advertiser, publisher');
    assert.ok(expected.ledger_entries && expected.ledger_entries.length >= 4, 'top-up and click billing');
    assert.ok(expected.stats_daily && expected.stats_daily.length >= 1, 'a statistics row');
  });
  after(async () => {
    await server.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  if (postgresUrl) {
    it('restores a pg_dump backup into a fresh database with every row', async () => {
      const current = await sql<{ name: string }>`SELECT current_database() AS name`.execute(server.server.context.db);
      const source = new URL(postgresUrl);
      source.pathname = `/${current.rows[0]?.name}`;
      const file = path.join(workDir, 'nativa.dump');
      await nativa(['backup', file], { DATABASE_URL: source.toString(), DATA_DIR: workDir });

      const name = `nativa_restore_${process.pid}_${Date.now()}`;
      const admin = new pg.Client({ connectionString: postgresUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      const target = new URL(postgresUrl);
      target.pathname = `/${name}`;
      try {
        await nativa(['restore', file], { DATABASE_URL: target.toString(), DATA_DIR: workDir });
        const restored = await openDatabase({ databaseUrl: target.toString(), dataDir: workDir });
        try {
          assert.deepEqual(await contents(restored.db), expected);
        } finally {
          await restored.close();
        }
      } finally {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      }
    });
  } else {
    it('copies the running server’s database and restores it into a fresh data directory with every row', async () => {
      // The CLI reaches the server as an operator would: its URL, the operator token, its certificate.
      const cliDir = path.join(workDir, 'cli');
      mkdirSync(path.join(cliDir, 'tls'), { recursive: true });
      writeFileSync(path.join(cliDir, 'tls', 'cert.pem'), server.tls.cert);
      const file = path.join(workDir, 'running.tar.gz');
      const out = await nativa(['backup', file], {
        DATA_DIR: cliDir,
        NATIVA_URL: server.url,
        NATIVA_TOKEN: server.operator.defaultToken ?? '',
      });
      assert.match(out, /from running server/);

      const fresh = path.join(workDir, 'fresh');
      assert.match(await nativa(['restore', file], { DATA_DIR: fresh }), /restored .* \(\d+ accounts\)/);
      const restored = await openDatabase({ databaseUrl: undefined, dataDir: fresh });
      try {
        assert.deepEqual(await contents(restored.db), expected);
      } finally {
        await restored.close();
      }

      // With no server answering, the CLI copies the data directory itself; that copy restores too.
      const offline = path.join(workDir, 'offline.tar.gz');
      const direct = await nativa(['backup', offline], { DATA_DIR: fresh, NATIVA_URL: 'https://127.0.0.1:9', NATIVA_TOKEN: 'x' });
      assert.match(direct, /no server answered/);
      const again = path.join(workDir, 'again');
      await nativa(['restore', offline], { DATA_DIR: again });
      const second = await openDatabase({ databaseUrl: undefined, dataDir: again });
      try {
        assert.deepEqual(await contents(second.db), expected);
      } finally {
        await second.close();
      }

      // A restore never overwrites a database.
      await assert.rejects(nativa(['restore', file], { DATA_DIR: fresh }), /is not empty: stop the server and move it away/);
    });

    it('takes one backup at a time: requests that arrive together share one dump', async () => {
      const database = server.server.context.database;
      const dump = database.backup;
      assert.ok(dump);
      let dumps = 0;
      database.backup = () => {
        dumps += 1;
        return dump.call(database);
      };
      try {
        const answers = await Promise.all(Array.from({ length: 4 }, () => server.operator.post('/api/admin/backup')));
        assert.deepEqual(
          answers.map((answer) => answer.status),
          [200, 200, 200, 200],
        );
        assert.equal(dumps, 1, 'one dump for four requests');
        assert.equal(new Set(answers.map((answer) => answer.body.toString('base64'))).size, 1, 'the same copy for all');
        // Once it is done, the next request takes a fresh one.
        assert.equal((await server.operator.post('/api/admin/backup')).status, 200);
        assert.equal(dumps, 2);
      } finally {
        database.backup = dump;
      }
    });
  }
});
