import type { Db } from '../../../db/database.ts';

/** SQL of postback keys: one per advertiser, stored as its SHA-256. */

export async function findPostbackKey(db: Db, advertiserId: number) {
  return db
    .selectFrom('postback_keys')
    .select(['key_prefix', 'created_at'])
    .where('advertiser_id', '=', advertiserId)
    .executeTakeFirst();
}

/** Sets the advertiser's key, replacing the one before (which stops working at once). */
export async function replacePostbackKey(db: Db, advertiserId: number, keyHash: Buffer, keyPrefix: string, now: Date) {
  await db
    .insertInto('postback_keys')
    .values({ advertiser_id: advertiserId, key_hash: keyHash, key_prefix: keyPrefix, created_at: now })
    .onConflict((conflict) =>
      conflict.column('advertiser_id').doUpdateSet({ key_hash: keyHash, key_prefix: keyPrefix, created_at: now }),
    )
    .execute();
}

export async function deletePostbackKey(db: Db, advertiserId: number): Promise<boolean> {
  const deleted = await db.deleteFrom('postback_keys').where('advertiser_id', '=', advertiserId).executeTakeFirst();
  return deleted.numDeletedRows > 0n;
}
