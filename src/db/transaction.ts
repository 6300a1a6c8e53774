import type { Db } from './database.ts';

/**
 * Runs `work` in a transaction: a new one on the database, or the caller's own when `db` already
 * is a transaction. Services write through this, so a route that must add its own rows to the
 * same transaction (an idempotency key, an audit entry) can hand them its transaction.
 */
export function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}
