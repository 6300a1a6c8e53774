import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import {
  DatabaseUnavailableError,
  databaseHost,
  isConnectionFailure,
  redactedUrl,
  reportingPool,
  waitForDatabase,
} from '../../src/db/availability.ts';

const systemError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code });
const sqlError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('connection failures', () => {
  it('recognises what says the database is away, and nothing a statement did wrong', () => {
    const away = [
      systemError('ECONNREFUSED'),
      systemError('ECONNRESET'),
      new AggregateError([systemError('ECONNREFUSED'), systemError('ECONNREFUSED')], ''),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      sqlError('57P01', 'terminating connection due to administrator command'),
      sqlError('57P03', 'the database system is starting up'),
      sqlError('08006', 'connection failure'),
      new DatabaseUnavailableError(systemError('ECONNREFUSED')),
    ];
    for (const error of away) assert.equal(isConnectionFailure(error), true, error.message);
    const statementErrors = [
      sqlError('23505', 'duplicate key value violates unique constraint'),
      sqlError('40001', 'could not serialize access'),
      sqlError('57014', 'canceling statement due to statement timeout'),
      new Error('something else'),
      'not an error',
    ];
    for (const error of statementErrors) assert.equal(isConnectionFailure(error), false, String(error));
  });

  it('names a database without its password', () => {
    assert.equal(redactedUrl('postgres://nativa:s3cret@db.example:6543/prod'), 'postgres://nativa:***@db.example:6543/prod');
    assert.equal(redactedUrl('postgres://nativa@db.example/prod'), 'postgres://nativa@db.example/prod');
    assert.equal(databaseHost('postgres://nativa:s3cret@db.example:6543/prod'), 'db.example:6543');
    assert.equal(databaseHost('postgres://nativa@db.example/prod'), 'db.example:5432');
  });
});

describe('a standby behind the address', () => {
  /** A pool of one connection whose statements fail with `error`; what it was told is recorded. */
  function poolFailingWith(error: Error) {
    const released: unknown[] = [];
    const failures: unknown[] = [];
    const client = {
      query: async () => {
        throw error;
      },
      release: (reason?: unknown) => released.push(reason),
    } as unknown as PostgresPoolClient;
    const pool = { connect: async () => client, end: async () => undefined } as unknown as PostgresPool;
    const events = { connectionFailed: (cause: unknown) => failures.push(cause), connectionMade: () => undefined };
    return { pool: reportingPool(pool, events), released, failures };
  }

  it('answers a write refused by a read-only server or a recovery conflict as unavailable, and drops that connection', async () => {
    const refusals = [
      sqlError('25006', 'cannot execute INSERT in a read-only transaction'),
      sqlError('40001', 'canceling statement due to conflict with recovery'),
    ];
    for (const refusal of refusals) {
      const { pool, released, failures } = poolFailingWith(refusal);
      const client = await pool.connect();
      await assert.rejects(client.query('INSERT INTO t VALUES (1)', []), DatabaseUnavailableError, refusal.message);
      client.release();
      assert.deepEqual(released, [refusal], 'the connection is closed, not handed to the next borrower');
      assert.deepEqual(failures, [refusal], 'and the event is reported');
    }
  });

  it("leaves a statement's own error alone, and the connection in the pool", async () => {
    const duplicate = sqlError('23505', 'duplicate key value violates unique constraint');
    const { pool, released, failures } = poolFailingWith(duplicate);
    const client = await pool.connect();
    await assert.rejects(client.query('INSERT INTO t VALUES (1)', []), (error) => error === duplicate);
    client.release();
    assert.deepEqual(released, [undefined]);
    assert.deepEqual(failures, []);
  });
});

describe('waiting for the database at start', () => {
  const url = 'postgres://nativa:s3cret@db.example:6543/prod';

  /** A clock that moves only when the wait sleeps, and the log lines written. */
  function harness() {
    let now = 0;
    const lines: string[] = [];
    return {
      lines,
      wait: (maxWaitMs: number) => ({
        maxWaitMs,
        now: () => now,
        sleep: async (ms: number) => {
          now += ms;
        },
        log: { warn: (line: string) => lines.push(`warn ${line}`), info: (line: string) => lines.push(`info ${line}`) },
      }),
    };
  }

  it('backs off from 0.25 s to 5 s, saying each time what it waits for, until the database answers', async () => {
    const { lines, wait } = harness();
    let attempts = 0;
    await waitForDatabase(
      url,
      async () => {
        attempts += 1;
        if (attempts < 8) throw systemError('ECONNREFUSED');
      },
      wait(60_000),
    );
    assert.equal(attempts, 8);
    const delays = lines.filter((line) => line.startsWith('warn')).map((line) => /next attempt in ([\d.]+) s/.exec(line)?.[1]);
    assert.deepEqual(delays, ['0.25', '0.50', '1.00', '2.00', '4.00', '5.00', '5.00']);
    assert.match(
      lines[0] ?? '',
      /^warn waiting for the database at db\.example:6543 \(DATABASE_URL=postgres:\/\/nativa:\*\*\*@db\.example:6543\/prod\): connect ECONNREFUSED/,
    );
    assert.ok(!lines.some((line) => line.includes('s3cret')), 'the password is never written');
    assert.equal(
      lines.at(-1),
      'info the database at db.example:6543 (DATABASE_URL=postgres://nativa:***@db.example:6543/prod) answers after 17.8 s',
    );
  });

  it('gives up after DATABASE_WAIT_SECONDS, naming the host and DATABASE_URL', async () => {
    const { wait } = harness();
    await assert.rejects(
      waitForDatabase(url, () => Promise.reject(systemError('ECONNREFUSED')), wait(3000)),
      /^Error: cannot reach the database at db\.example:6543 \(DATABASE_URL=postgres:\/\/nativa:\*\*\*@db\.example:6543\/prod\) after 1\.8 s \(DATABASE_WAIT_SECONDS\): connect ECONNREFUSED/,
    );
    await assert.rejects(
      waitForDatabase(url, () => Promise.reject(systemError('ECONNREFUSED')), wait(0)),
      /cannot reach the database at db\.example:6543 .* after 0\.0 s/,
    );
  });

  it('does not wait for what waiting cannot fix (a wrong password)', async () => {
    const { lines, wait } = harness();
    await assert.rejects(
      waitForDatabase(
        url,
        () => Promise.reject(sqlError('28P01', 'password authentication failed for user "nativa"')),
        wait(60_000),
      ),
      /^Error: cannot use the database at db\.example:6543 \(DATABASE_URL=postgres:\/\/nativa:\*\*\*@db\.example:6543\/prod\): 28P01 password authentication failed/,
    );
    assert.deepEqual(lines, []);
  });
});
