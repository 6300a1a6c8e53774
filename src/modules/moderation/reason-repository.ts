import type { Db } from '../../db/database.ts';

export async function listReasons(db: Db) {
  return db.selectFrom('moderation_reasons').select(['id', 'text']).orderBy('text').orderBy('id').execute();
}

export async function insertReason(trx: Db, text: string, now: Date) {
  return trx
    .insertInto('moderation_reasons')
    .values({ text, created_at: now, updated_at: now })
    .returning(['id', 'text'])
    .executeTakeFirstOrThrow();
}

export async function findReasonForUpdate(trx: Db, id: number) {
  return trx.selectFrom('moderation_reasons').select(['id', 'text']).where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function updateReason(trx: Db, id: number, text: string, now: Date) {
  return trx
    .updateTable('moderation_reasons')
    .set({ text, updated_at: now })
    .where('id', '=', id)
    .returning(['id', 'text'])
    .executeTakeFirst();
}

export async function deleteReason(trx: Db, id: number) {
  return trx.deleteFrom('moderation_reasons').where('id', '=', id).returning(['id', 'text']).executeTakeFirst();
}
