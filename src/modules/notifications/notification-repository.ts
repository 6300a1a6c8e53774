import type { Db } from '../../db/database.ts';
import { listWithTotal } from '../../db/list.ts';

export interface NewNotification {
  accountId: number;
  kind: string;
  text: string;
  data: Record<string, unknown>;
  now: Date;
  /** Makes the notification exist once per account: a second insert with the key does nothing. */
  onceKey?: string;
}

/** Writes notifications in the caller's transaction (the transaction of what caused them). */
export async function insertNotifications(trx: Db, notifications: readonly NewNotification[]): Promise<void> {
  if (notifications.length === 0) return;
  await trx
    .insertInto('notifications')
    .values(
      notifications.map((notification) => ({
        account_id: notification.accountId,
        kind: notification.kind,
        text: notification.text.slice(0, 2000),
        data: JSON.stringify(notification.data),
        once_key: notification.onceKey ?? null,
        created_at: notification.now,
      })),
    )
    .onConflict((conflict) => conflict.columns(['account_id', 'once_key']).where('once_key', 'is not', null).doNothing())
    .execute();
}

/** An account's notifications, newest first; only the unread ones when asked. */
export async function listNotifications(db: Db, accountId: number, unreadOnly: boolean, limit: number, offset: number) {
  let query = db.selectFrom('notifications').where('account_id', '=', accountId);
  if (unreadOnly) query = query.where('read_at', 'is', null);
  return listWithTotal(query, (filtered) =>
    filtered.select(['id', 'kind', 'text', 'data', 'created_at', 'read_at']).orderBy('id', 'desc').limit(limit).offset(offset),
  );
}

export async function countUnread(db: Db, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('notifications')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('account_id', '=', accountId)
    .where('read_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Marks one notification (or, without an id, every one) of the account read; answers how many changed. */
export async function markRead(db: Db, accountId: number, id: number | undefined, now: Date): Promise<number> {
  let query = db
    .updateTable('notifications')
    .set({ read_at: now })
    .where('account_id', '=', accountId)
    .where('read_at', 'is', null);
  if (id !== undefined) query = query.where('id', '=', id);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function notificationExists(db: Db, accountId: number, id: number): Promise<boolean> {
  const row = await db
    .selectFrom('notifications')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

/** Accounts' own low-balance lines (micros); accounts without one use the default. */
export async function lowBalanceSettings(db: Db, accountIds: readonly number[]): Promise<Map<number, number>> {
  if (accountIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('notification_settings')
    .select(['account_id', 'low_balance_micros'])
    .where('account_id', 'in', [...accountIds])
    .execute();
  return new Map(rows.map((row) => [row.account_id, Number(row.low_balance_micros)]));
}

export async function saveLowBalance(trx: Db, accountId: number, micros: number, now: Date): Promise<void> {
  await trx
    .insertInto('notification_settings')
    .values({ account_id: accountId, low_balance_micros: micros, updated_at: now })
    .onConflict((conflict) => conflict.column('account_id').doUpdateSet({ low_balance_micros: micros, updated_at: now }))
    .execute();
}
