import type { PGlite } from '@electric-sql/pglite';
import type { PostgresPool, PostgresPoolClient } from 'kysely';

/**
 * PGlite is one connection. Kysely's Postgres driver expects a pool, and runs a transaction by
 * holding one pooled connection from BEGIN to COMMIT, so this "pool" hands out its single
 * connection to one borrower at a time: a transaction is never interleaved with other queries.
 * The cost is that all database work of an embedded instance is serialized, which is the nature
 * of an embedded single-file database anyway.
 */
export function createPgliteQueue(pglite: PGlite): PostgresPool & { waiting(): number; held(): boolean } {
  let tail: Promise<void> = Promise.resolve();
  // Borrowers that asked for the connection and do not hold it yet (the queue's length).
  let waiting = 0;
  let held = false;

  const client = (release: () => void): PostgresPoolClient =>
    ({
      async query(sql: string, parameters: ReadonlyArray<unknown>) {
        const result = await pglite.query<Record<string, unknown>>(sql, parameters as unknown[], { rowMode: 'object' });
        const command = sql.trimStart().slice(0, 6).toUpperCase();
        return {
          command: command as 'SELECT',
          rowCount: result.affectedRows ?? result.rows.length,
          rows: result.rows,
        };
      },
      release,
    }) as unknown as PostgresPoolClient;

  return {
    options: {},
    waiting: () => waiting,
    held: () => held,
    connect() {
      let release = (): void => {};
      const turn = new Promise<void>((resolve) => {
        release = () => {
          held = false;
          resolve();
        };
      });
      const ready = tail;
      tail = tail.then(() => turn);
      waiting += 1;
      return ready.then(() => {
        waiting -= 1;
        held = true;
        return client(release);
      });
    },
    async end() {
      await tail;
    },
  };
}
