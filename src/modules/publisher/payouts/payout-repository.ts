import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import { type ListWithTotal, listWithTotal } from '../../../db/list.ts';
import type { PayoutStatus } from '../../../db/schema.ts';
import { containsPattern, type SortOrder } from '../../../shared/list-query.ts';
import type { PayoutMethod, PayoutRow } from './payout-schema.ts';

export interface PayoutFilter {
  publisherId?: number;
  status?: PayoutStatus;
  /** Only payouts whose destination (wallet) contains this text, in any letter case. */
  search?: string;
  /** The order of the list; newest first when not given. */
  sort?: SortOrder<PayoutSortField>;
}

/** The column behind each sortable field of a payout list (the `sort` parameter). */
const SORT_COLUMNS = { id: 'id', amount: 'amount_micros', created: 'created_at' } as const;
export type PayoutSortField = keyof typeof SORT_COLUMNS;
export const PAYOUT_SORT_FIELDS = Object.keys(SORT_COLUMNS) as PayoutSortField[];

/** A payout with its publisher's login, as lists show it. */
export type NamedPayoutRow = PayoutRow & { publisher_username: string };

/** Payouts in the asked order (newest first by default), ties by id, each with its publisher's login. */
export async function listPayouts(
  db: Db,
  filter: PayoutFilter,
  limit: number,
  offset: number,
): Promise<ListWithTotal<NamedPayoutRow>> {
  let query = db.selectFrom('payouts').innerJoin('accounts', 'accounts.id', 'payouts.publisher_id');
  if (filter.publisherId !== undefined) query = query.where('payouts.publisher_id', '=', filter.publisherId);
  if (filter.status !== undefined) query = query.where('payouts.status', '=', filter.status);
  if (filter.search) query = query.where('payouts.wallet', 'ilike', containsPattern(filter.search));
  const sort = filter.sort ?? { field: 'id', descending: true };
  const direction = sort.descending ? 'desc' : 'asc';
  return listWithTotal(query, (filtered) =>
    filtered
      .selectAll('payouts')
      .select('accounts.username as publisher_username')
      .orderBy(`payouts.${SORT_COLUMNS[sort.field]}`, direction)
      .orderBy('payouts.id', direction)
      .limit(limit)
      .offset(offset),
  );
}

/** The login of the publisher a payout is to. */
export async function publisherUsername(db: Db, publisherId: number): Promise<string> {
  const row = await db.selectFrom('accounts').select('username').where('id', '=', publisherId).executeTakeFirstOrThrow();
  return row.username;
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
    .leftJoin('payout_details', 'payout_details.account_id', 'accounts.id')
    .where('accounts.kind', '=', 'publisher')
    .where((eb) => eb.or([eb('accounts.balance_micros', '>', 0), eb('pending.pending_micros', 'is not', null)]));
  return listWithTotal(owed, (filtered) =>
    filtered
      .select([
        'accounts.id',
        'accounts.username',
        'accounts.email',
        'accounts.balance_micros',
        'pending.pending_micros',
        'payout_details.method',
        'payout_details.holder',
        'payout_details.account',
      ])
      .orderBy('accounts.balance_micros', 'desc')
      .orderBy('accounts.id')
      .limit(limit)
      .offset(offset),
  );
}

export interface PayoutDetails {
  method: PayoutMethod;
  holder: string;
  account: string;
  updated_at: Date;
}

export async function findPayoutDetails(db: Db, accountId: number): Promise<PayoutDetails | undefined> {
  const row = await db
    .selectFrom('payout_details')
    .select(['method', 'holder', 'account', 'updated_at'])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row === undefined ? undefined : { ...row, method: row.method as PayoutMethod };
}

export async function savePayoutDetails(
  trx: Db,
  accountId: number,
  details: { method: PayoutMethod; holder: string; account: string },
  now: Date,
): Promise<void> {
  const values = { ...details, updated_at: now };
  await trx
    .insertInto('payout_details')
    .values({ account_id: accountId, ...values })
    .onConflict((conflict) => conflict.column('account_id').doUpdateSet(values))
    .execute();
}

/** The sum of the publisher's pending payouts, in micros. */
export async function pendingPayoutMicros(db: Db, accountId: number): Promise<number> {
  const pending = await db
    .selectFrom('payouts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('amount_micros'), eb.val('0')).as('pending'))
    .where('publisher_id', '=', accountId)
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(pending.pending);
}
