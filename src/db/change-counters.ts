import type { Db } from './database.ts';

/**
 * Counters in the database that triggers move whenever something instances cache has changed
 * (migration 0330): `serving`, what the serving index is built from; `tokens`, token revocations.
 * An instance polls the one it needs and drops what it cached when the number moved.
 */
export type ChangeCounter = 'serving' | 'tokens';

export async function readChangeCounter(db: Db, name: ChangeCounter): Promise<number> {
  const row = await db.selectFrom('change_counters').select('version').where('name', '=', name).executeTakeFirst();
  return row?.version ?? 0;
}
