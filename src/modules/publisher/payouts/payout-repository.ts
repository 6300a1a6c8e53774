import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import { type ListWithTotal, listWithTotal } from '../../../db/list.ts';
import type { PayoutStatus } from '../../../db/schema.ts';
import type { PayoutRow } from './payout-schema.ts';

export interface PayoutFilter {
  publisherId?: number;
  status?: PayoutStatus;
}

/** Payouts, newest first. */
export async function listPayouts(
  db: Db,
  filter: PayoutFilter,
  limit: number,
  offset: number,
): Promise<ListWithTotal<PayoutRow>> {
  let query = db.selectFrom('payouts');
  if (filter.publisherId !== undefined) query = query.where('publisher_id', '=', filter.publisherId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  return listWithTotal(query, (filtered) => filtered.selectAll().orderBy('id', 'desc').limit(limit).offset(offset));
}

export async function findPayout(
  db: Db,
  id: number,
  options: { publisherId?: number; lock?: boolean } = {},
): Promise<PayoutRow | undefined> {
  let query = db.selectFrom('payouts').selectAll().where('id', '=', id);
  if (options.publisherId !== undefined) query = query.where('publisher_id', '=', options.publisherId);
  if (options.lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function insertPayout(
  db: Db,
  values: { publisherId: number; amountMicros: number; wallet: string; status: PayoutStatus; createdBy: number; now: Date },
): Promise<PayoutRow> {
  return db
    .insertInto('payouts')
    .values({
      publisher_id: values.publisherId,
      amount_micros: values.amountMicros,
      wallet: values.wallet,
      status: values.status,
      created_by: values.createdBy,
      created_at: values.now,
      updated_at: values.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updatePayoutStatus(db: Db, id: number, status: PayoutStatus, now: Date): Promise<PayoutRow> {
  return db.updateTable('payouts').set({ status, updated_at: now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/**
 * Publishers who hold money: their balance (what the platform owes them and has not paid out)
 * and what is reserved in pending payouts. Largest balance first.
 */
export async function listPublisherBalances(db: Db, limit: number, offset: number) {
  const pending = db
    .selectFrom('payouts')
    .select(['publisher_id', sql<string>`sum(amount_micros)`.as('pending_micros')])
    .where('status', '=', 'pending')
    .groupBy('publisher_id')
    .as('pending');
  const owed = db
    .selectFrom('accounts')
    .leftJoin(pending, 'pending.publisher_id', 'accounts.id')
    .where('accounts.kind', '=', 'publisher')
    .where((eb) => eb.or([eb('accounts.balance_micros', '>', 0), eb('pending.pending_micros', 'is not', null)]));
  return listWithTotal(owed, (filtered) =>
    filtered
      .select(['accounts.id', 'accounts.username', 'accounts.email', 'accounts.balance_micros', 'pending.pending_micros'])
      .orderBy('accounts.balance_micros', 'desc')
      .orderBy('accounts.id')
      .limit(limit)
      .offset(offset),
  );
}
