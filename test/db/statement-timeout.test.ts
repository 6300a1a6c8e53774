// DATABASE_STATEMENT_TIMEOUT_MS on PostgreSQL: a statement of the server's pool that runs past it
// (here: waiting on a lock another session holds, as behind a long migration or a stuck
// transaction) is cancelled by the server and the request answers 503 in the envelope with
// Retry-After, rather than hanging with its connection; once the lock is gone the same request
// works. Migrations (withSession) run without the timeout, and give their connection its timeout
// back. A transaction left idle between two statements is ended by the server
// (DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS). PGlite runs in this process and has no statement
// timeout: the test says so and skips.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { DatabaseUnavailableError } from '../../src/db/availability.ts';
import type { Database } from '../../src/db/database.ts';
import { ERRORS } from '../../src/errors.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const TIMEOUT_MS = 300;
const IDLE_TIMEOUT_MS = 400;

describe('DATABASE_STATEMENT_TIMEOUT_MS', () => {
  it('is 10 s unless set, 0 turns it off, and a bad value is reported by name', () => {
    assert.equal(loadConfig({}).databaseStatementTimeoutMs, 10_000);
    assert.equal(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '0' }).databaseStatementTimeoutMs, 0);
    assert.equal(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '2500' }).databaseStatementTimeoutMs, 2500);
    assert.throws(
      () => loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: 'soon' }),
      (error: unknown) =>
        error instanceof ConfigError && error.problems.some((line) => line.startsWith('DATABASE_STATEMENT_TIMEOUT_MS')),
    );
  });

  it('comes with the connect, idle-in-transaction and click acceptance bounds (docs/configuration.md)', () => {
    const defaults = loadConfig({});
    assert.deepEqual(
      [defaults.databaseConnectTimeoutMs, defaults.databaseIdleInTransactionTimeoutMs, defaults.clickAcceptTimeoutMs],
      [2000, 30_000, 1000],
    );
    const set = loadConfig({
      DATABASE_CONNECT_TIMEOUT_MS: '500',
      DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '0',
      CLICK_ACCEPT_TIMEOUT_MS: '250',
    });
    assert.deepEqual(
      [set.databaseConnectTimeoutMs, set.databaseIdleInTransactionTimeoutMs, set.clickAcceptTimeoutMs],
      [500, 0, 250],
    );
    assert.throws(
      () => loadConfig({ CLICK_ACCEPT_TIMEOUT_MS: '0', DATABASE_CONNECT_TIMEOUT_MS: 'soon' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.problems.some((line) => line.startsWith('CLICK_ACCEPT_TIMEOUT_MS')) &&
        error.problems.some((line) => line.startsWith('DATABASE_CONNECT_TIMEOUT_MS')),
    );
  });
});
const serverUrl = process.env.TEST_DATABASE_URL;

describe('the statement timeout', {
  skip: serverUrl ? false : 'PGlite has no statement timeout (TEST_DATABASE_URL runs it)',
}, () => {
  let database: Database;
  let server: TestServer;
  let locker: pg.Client;

  before(async () => {
    database = await openTestDatabase({ statementTimeoutMs: TIMEOUT_MS, idleInTransactionTimeoutMs: IDLE_TIMEOUT_MS });
    server = await startTestServer({ database });
    const { rows } = await sql<{ name: string }>`SELECT current_database() AS name`.execute(database.db);
    const url = new URL(serverUrl ?? '');
    url.pathname = `/${rows[0]?.name}`;
    locker = new pg.Client({ connectionString: url.toString() });
    await locker.connect();
  });

  after(async () => {
    await locker?.end().catch(() => undefined);
    await server?.close();
    await database?.close();
  });

  it('answers 503 with Retry-After when a statement waits past the timeout, and works again after', async () => {
    const advertiser = await server.createAccount('advertiser');
    assert.equal((await advertiser.client.get('/api/advertiser/campaigns')).status, 200);
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE campaigns IN ACCESS EXCLUSIVE MODE');
    try {
      const response = await advertiser.client.get('/api/advertiser/campaigns');
      assert.equal(response.status, 503, response.text);
      assert.equal(response.json<{ code: number }>().code, ERRORS.database_unavailable.code);
      assert.ok(Number(response.header('retry-after')) > 0, 'Retry-After is set');
    } finally {
      await locker.query('ROLLBACK');
    }
    assert.equal((await advertiser.client.get('/api/advertiser/campaigns')).status, 200, 'the pool works again');
  });

  it('ends a transaction whose client stops between two statements, and the pool works again', async () => {
    await assert.rejects(
      database.db.transaction().execute(async (trx) => {
        await sql`SELECT 1`.execute(trx);
        // The client stops between two statements (frozen, or its network gone), with the transaction open.
        await new Promise((resolve) => setTimeout(resolve, IDLE_TIMEOUT_MS * 3));
        await sql`SELECT 1`.execute(trx);
      }),
      DatabaseUnavailableError,
    );
    assert.deepEqual((await sql<{ one: number }>`SELECT 1 AS one`.execute(database.db)).rows, [{ one: 1 }]);
  });

  it('lets migrations run longer, and gives their connection the timeout back', async () => {
    await database.withSession(async (run) => {
      assert.deepEqual(await run('SHOW statement_timeout'), [{ statement_timeout: '0' }]);
      assert.deepEqual(await run('SHOW idle_in_transaction_session_timeout'), [{ idle_in_transaction_session_timeout: '0' }]);
      // Longer than the pool's own wait for an answer too (the statement timeout plus a second).
      await run(`SELECT pg_sleep(${(TIMEOUT_MS + 1200) / 1000})`);
    });
    // The pool has a few connections: every one of them has the timeout.
    const shown = await Promise.all(
      Array.from({ length: 4 }, () =>
        database.db.transaction().execute(async (trx) => {
          const { rows } = await sql<{ statement_timeout: string }>`SHOW statement_timeout`.execute(trx);
          await sql`SELECT pg_sleep(0.05)`.execute(trx);
          return rows[0]?.statement_timeout;
        }),
      ),
    );
    assert.deepEqual(shown, Array(4).fill(`${TIMEOUT_MS}ms`));
    await assert.rejects(sql`SELECT pg_sleep(${(TIMEOUT_MS * 3) / 1000})`.execute(database.db), { code: '57014' });
  });
});
