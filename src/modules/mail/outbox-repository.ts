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

/**
 * Takes up to `limit` due messages for this instance until `leaseUntil`. Rows another instance is
 * claiming at the same moment are skipped (SKIP LOCKED), and rows it holds a lease on are not due,
 * so no message is sent by two instances at once.
 */
export async function claimDueMessages(db: Db, now: Date, leaseUntil: Date, limit: number): Promise<OutboxRow[]> {
  return db
    .updateTable('mail_outbox')
    .set({ claimed_until: leaseUntil })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('mail_outbox')
        .select('id')
        .where('next_attempt_at', '<=', now)
        .where('status', '<>', 'sent')
        .where((inner) => inner.or([inner('claimed_until', 'is', null), inner('claimed_until', '<', now)]))
        .orderBy('next_attempt_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .returningAll()
    .execute();
}

/** Takes one unsent message, due or not, unless another instance holds it. */
export async function claimMessage(db: Db, id: number, now: Date, leaseUntil: Date): Promise<OutboxRow | undefined> {
  return db
    .updateTable('mail_outbox')
    .set({ claimed_until: leaseUntil })
    .where('id', '=', id)
    .where('status', '<>', 'sent')
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
    .returningAll()
    .executeTakeFirst();
}

/** Leaves a message queued and unscheduled (no SMTP server: an operator sends it later). */
export async function unscheduleMessage(db: Db, id: number): Promise<void> {
  await db.updateTable('mail_outbox').set({ next_attempt_at: null, claimed_until: null }).where('id', '=', id).execute();
}

/** Records a delivery; a message that carried a credential keeps its metadata but loses its body. */
export async function markOutboxSent(db: Db, id: number, at: Date): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set((eb) => ({
      status: 'sent',
      sent_at: at,
      next_attempt_at: null,
      claimed_until: null,
      last_error: '',
      attempts: eb('attempts', '+', 1),
      body_text: eb.case().when('sensitive', '=', true).then('').else(eb.ref('body_text')).end(),
      body_html: eb.case().when('sensitive', '=', true).then('').else(eb.ref('body_html')).end(),
    }))
    .where('id', '=', id)
    .execute();
}

/** Records a failed attempt and when to try again (null: no more automatic attempts). */
export async function markOutboxFailed(db: Db, id: number, error: string, nextAttemptAt: Date | null): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set((eb) => ({
      status: 'failed',
      last_error: error.slice(0, 1000),
      attempts: eb('attempts', '+', 1),
      next_attempt_at: nextAttemptAt,
      claimed_until: null,
    }))
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

/** How many messages the outbox holds in each status (statuses without any are absent). */
export async function outboxCountsByStatus(db: Db): Promise<{ status: string; count: number }[]> {
  return db
    .selectFrom('mail_outbox')
    .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy('status')
    .execute()
    .then((rows) => rows.map((row) => ({ status: row.status, count: Number(row.count) })));
}
