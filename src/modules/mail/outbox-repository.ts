import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { type ListWithTotal, listWithTotal } from '../../db/list.ts';
import type { MailOutboxTable, OutboxStatus } from '../../db/schema.ts';

export type OutboxRow = Selectable<MailOutboxTable>;
export type NewOutboxMessage = Insertable<MailOutboxTable>;

export async function insertOutboxMessage(trx: Db, message: NewOutboxMessage): Promise<OutboxRow> {
  return trx.insertInto('mail_outbox').values(message).returningAll().executeTakeFirstOrThrow();
}

export async function findOutboxMessage(db: Db, id: number): Promise<OutboxRow | undefined> {
  return db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Records a delivery; a message that carried a credential keeps its metadata but loses its body. */
export async function markOutboxSent(db: Db, id: number, at: Date): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set((eb) => ({
      status: 'sent',
      sent_at: at,
      last_error: '',
      attempts: eb('attempts', '+', 1),
      body_text: eb.case().when('sensitive', '=', true).then('').else(eb.ref('body_text')).end(),
      body_html: eb.case().when('sensitive', '=', true).then('').else(eb.ref('body_html')).end(),
    }))
    .where('id', '=', id)
    .execute();
}

export async function markOutboxFailed(db: Db, id: number, error: string): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set((eb) => ({ status: 'failed', last_error: error.slice(0, 1000), attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .execute();
}

export async function listOutbox(
  db: Db,
  filter: { status?: OutboxStatus; accountId?: number },
  limit: number,
  offset: number,
): Promise<ListWithTotal<OutboxRow>> {
  let query = db.selectFrom('mail_outbox');
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.accountId !== undefined) query = query.where('account_id', '=', filter.accountId);
  return listWithTotal(query, (filtered) => filtered.selectAll().orderBy('id', 'desc').limit(limit).offset(offset));
}
