import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { IdempotencyStore } from '../../shared/idempotency-store.ts';

/**
 * Idempotency keys in the database (migration 0430, docs/adr/0012). The lock is a transaction-level
 * advisory lock on the account and key, so two instances of the server can never run the same
 * keyed request at once: the second does not wait, it learns the key is busy and answers 409.
 */
export const idempotencyStore: IdempotencyStore = {
  async lockAndFind(trx, accountId, key, notBefore) {
    const result = await sql<{
      locked: boolean;
      request_hash: string | null;
      status: number | null;
      headers: Record<string, string> | null;
      body: unknown;
    }>`
      SELECT lock.locked, k.request_hash, k.status, k.headers, k.body
      FROM (SELECT pg_try_advisory_xact_lock(hashtextextended(${`idempotency:${accountId}:${key}`}, 0)) AS locked) AS lock
      LEFT JOIN idempotency_keys AS k
        ON lock.locked AND k.account_id = ${accountId} AND k.key = ${key} AND k.created_at >= ${notBefore}`.execute(trx);
    const row = result.rows[0];
    if (row?.locked !== true) return { locked: false };
    if (row.request_hash === null || row.status === null) return { locked: true };
    return {
      locked: true,
      stored: { requestHash: row.request_hash, status: row.status, headers: row.headers ?? {}, body: row.body },
    };
  },

  async save(trx, accountId, key, answer, now, notBefore) {
    const values = {
      account_id: accountId,
      key,
      request_hash: answer.requestHash,
      status: answer.status,
      headers: JSON.stringify(answer.headers) as unknown as Record<string, string>,
      body: JSON.stringify(answer.body),
      created_at: now,
    };
    // A key whose answer expired is a new request: its row is replaced.
    const saved = await trx
      .insertInto('idempotency_keys')
      .values(values)
      .onConflict((conflict) =>
        conflict
          .columns(['account_id', 'key'])
          .doUpdateSet(({ ref }) => ({
            request_hash: ref('excluded.request_hash'),
            status: ref('excluded.status'),
            headers: ref('excluded.headers'),
            body: ref('excluded.body'),
            created_at: ref('excluded.created_at'),
          }))
          .where('idempotency_keys.created_at', '<', notBefore),
      )
      .returning('key')
      .executeTakeFirst();
    return saved !== undefined;
  },

  sweep: (db, notBefore) => deleteExpiredKeys(db, notBefore),
};

/** Deletes the keys stored before `notBefore` (they are answered no more); returns how many went. */
export async function deleteExpiredKeys(db: Db, notBefore: Date): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', notBefore).executeTakeFirst();
  return Number(result.numDeletedRows);
}
