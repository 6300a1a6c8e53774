import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { openTestDatabase } from '../helpers/database.ts';

describe('PostgreSQL sessions of the server (docs/adr/0021)', () => {
  let database: Database;

  before(async () => {
    database = await openTestDatabase();
  });
  after(async () => {
    await database.close();
  });

  it('plan without parallel workers and without JIT', async (t) => {
    if (database.kind !== 'postgres') {
      t.skip('PGlite has neither parallel workers nor JIT');
      return;
    }
    // Several at once, so that more than one connection of the pool is asked.
    const settings = await Promise.all(
      Array.from({ length: 3 }, () =>
        sql<{ parallel: string; jit: string }>`
          SELECT current_setting('max_parallel_workers_per_gather') AS parallel, current_setting('jit') AS jit`.execute(
          database.db,
        ),
      ),
    );
    for (const result of settings) assert.deepEqual(result.rows, [{ parallel: '0', jit: 'off' }]);
  });
});
