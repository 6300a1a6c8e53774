import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { Db, NamedWrite } from '../../db/database.ts';
import { listWithTotal } from '../../db/list.ts';
import { prepared } from '../../db/prepared.ts';
import type { AccountKind } from '../../db/schema.ts';
import { invalidField } from '../../errors.ts';
import { MAX_BALANCE_MICROS, MAX_BALANCE_UNITS } from '../../money.ts';

/**
 * The only way a balance changes: the account row and its ledger entry are written together,
 * inside the caller's transaction. The balance check is part of the UPDATE, so concurrent
 * changes can never take a balance below zero.
 */
export interface LedgerChange {
  accountId: number;
  amountMicros: number;
  kind: string;
  counterpartyId?: number | null;
  reference?: string | null;
  comment?: string;
  createdBy?: number | null;
}

export class InsufficientFunds extends Error {
  readonly accountId: number;
  constructor(accountId: number) {
    super(`account ${accountId} has insufficient funds`);
    this.accountId = accountId;
  }
}

/** A credit would take a balance past MAX_BALANCE_UNITS. */
export class BalanceCapExceeded extends Error {
  readonly accountId: number;
  constructor(accountId: number) {
    super(`account ${accountId} would pass the largest balance`);
    this.accountId = accountId;
  }
}

/**
 * Applies one change; throws InsufficientFunds when it would leave the balance below zero, and
 * BalanceCapExceeded when a credit would take it past MAX_BALANCE_MICROS (a debit is always
 * allowed to lower a balance). Both checks are part of the UPDATE, so concurrent credits cannot
 * pass the cap together.
 */
export async function applyLedgerChange(trx: Db, change: LedgerChange): Promise<number> {
  const credit = change.amountMicros > 0;
  const updated = await trx
    .updateTable('accounts')
    .set((eb) => ({ balance_micros: eb('balance_micros', '+', change.amountMicros) }))
    .where('id', '=', change.accountId)
    .where((eb) =>
      credit
        ? eb(eb('balance_micros', '+', change.amountMicros), '<=', MAX_BALANCE_MICROS)
        : eb(eb('balance_micros', '+', change.amountMicros), '>=', 0),
    )
    .returning('balance_micros')
    .executeTakeFirst();
  if (updated === undefined) {
    throw credit ? new BalanceCapExceeded(change.accountId) : new InsufficientFunds(change.accountId);
  }
  await trx
    .insertInto('ledger_entries')
    .values({
      account_id: change.accountId,
      amount_micros: change.amountMicros,
      balance_after_micros: updated.balance_micros,
      kind: change.kind,
      counterparty_id: change.counterpartyId ?? null,
      reference: change.reference ?? null,
      comment: change.comment ?? '',
      created_by: change.createdBy ?? null,
    })
    .execute();
  return updated.balance_micros;
}

/**
 * Moves money between two accounts as two ledger entries. Both rows are locked in id order first,
 * so two opposite moves running at once cannot deadlock.
 */
export async function transfer(
  trx: Db,
  move: {
    fromId: number;
    toId: number;
    amountMicros: number;
    kind: string;
    comment?: string;
    createdBy?: number;
    reference?: string;
  },
): Promise<void> {
  await trx.selectFrom('accounts').select('id').where('id', 'in', [move.fromId, move.toId]).orderBy('id').forUpdate().execute();
  const common = { kind: move.kind, comment: move.comment, createdBy: move.createdBy, reference: move.reference };
  await applyLedgerChange(trx, {
    ...common,
    accountId: move.fromId,
    amountMicros: -move.amountMicros,
    counterpartyId: move.toId,
  });
  await applyLedgerChange(trx, { ...common, accountId: move.toId, amountMicros: move.amountMicros, counterpartyId: move.fromId });
}

/** Maps InsufficientFunds and BalanceCapExceeded to the API's 422 on the given field; other errors pass through. */
export function insufficientFundsAsValidation(error: unknown, field: string): never {
  if (error instanceof InsufficientFunds) throw invalidField(field, 'The balance is not sufficient for this change.');
  if (error instanceof BalanceCapExceeded) {
    throw invalidField(field, `This would take a balance past ${MAX_BALANCE_UNITS}, the largest balance an account may hold.`);
  }
  throw error;
}

/** The period parameters of the ledger's lists and files. */
export const ledgerPeriodParameters = {
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Only moves at or after this time (ISO 8601).' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Only moves before this time (ISO 8601).' })),
};

/** The period of a query with ledgerPeriodParameters. */
export const ledgerPeriod = (query: { from?: string; to?: string }): LedgerPeriod => ({
  ...(query.from === undefined ? {} : { from: new Date(query.from) }),
  ...(query.to === undefined ? {} : { to: new Date(query.to) }),
});

/** When entries were made: at or after `from`, before `to` (either may be open). */
export interface LedgerPeriod {
  from?: Date;
  to?: Date;
}

/** An account's entries of a period, newest first (or oldest first: files read like a statement). */
export async function listLedgerEntries(
  db: Db,
  accountId: number,
  limit: number,
  offset: number,
  period: LedgerPeriod = {},
  order: 'asc' | 'desc' = 'desc',
) {
  let query = db.selectFrom('ledger_entries').where('account_id', '=', accountId);
  if (period.from !== undefined) query = query.where('created_at', '>=', period.from);
  if (period.to !== undefined) query = query.where('created_at', '<', period.to);
  return listWithTotal(query, (filtered) => filtered.selectAll().orderBy('id', order).limit(limit).offset(offset));
}

/**
 * Applies many changes in one statement, together with writes that must happen only when the money
 * moves (the serving engine's batched click billing: click rows and their rollup lines). One
 * statement is one round trip and its own transaction, so the account rows stay locked for the
 * shortest time. The accounts are locked in id order; each account's balance moves once by the sum
 * of its changes; every change still gets its own ledger row with the balance after it, in the
 * order given. Nothing at all is written (and `false` is returned) when any balance would end below
 * zero. Balance = sum of ledger holds.
 *
 * `alongside` are data-modifying statements, added as CTEs under the names the caller gives (so
 * one may read another), that the caller guards with `WHERE EXISTS (SELECT 1 FROM posted)`;
 * `posted` has its one row only once every balance has moved, so they run after the account rows
 * are locked (one lock order for every writer: accounts, then the rest).
 */
export async function postLedgerChanges(
  db: Db,
  changes: readonly LedgerChange[],
  statement: { alongside?: readonly NamedWrite[] } = {},
): Promise<boolean> {
  if (changes.length === 0) throw new Error('postLedgerChanges needs at least one change');
  const totals = new Map<number, number>();
  for (const change of changes) totals.set(change.accountId, (totals.get(change.accountId) ?? 0) + change.amountMicros);
  const ids = [...totals.keys()].sort((a, b) => a - b);
  // Each row's balance after it = the account's final balance minus the changes that follow it.
  const later = new Map<number, number>();
  const offsets = new Array<number>(changes.length);
  for (let index = changes.length - 1; index >= 0; index -= 1) {
    const change = changes[index] as LedgerChange;
    offsets[index] = -(later.get(change.accountId) ?? 0);
    later.set(change.accountId, (later.get(change.accountId) ?? 0) + change.amountMicros);
  }
  const alongside = (statement.alongside ?? []).map((write) => sql`, ${sql.id(write.name)} AS (${write.statement})`);
  // Whole columns as array parameters: the statement text (and its plan) does not grow with the batch.
  const result = await prepared(sql<{ posted: boolean }>`
    WITH totals AS (
      SELECT * FROM unnest(${ids}::integer[], ${ids.map((id) => totals.get(id) ?? 0)}::bigint[]) AS t (id, delta)
    ), locked AS (
      SELECT a.id, a.balance_micros FROM accounts AS a
      WHERE a.id = ANY(${ids}::integer[]) ORDER BY a.id FOR UPDATE OF a
    ), verdict AS (
      SELECT count(*) = ${ids.length} AS ok FROM locked JOIN totals USING (id) WHERE locked.balance_micros + totals.delta >= 0
    ), moved AS (
      UPDATE accounts AS a SET balance_micros = a.balance_micros + totals.delta
      FROM totals, verdict
      WHERE verdict.ok AND a.id = totals.id
      RETURNING a.id, a.balance_micros
    ), entries AS (
      INSERT INTO ledger_entries (account_id, amount_micros, balance_after_micros, kind, counterparty_id, reference, comment, created_by)
      SELECT c.account_id, c.amount, moved.balance_micros + c.offset_after, c.kind, c.counterparty_id, c.reference, c.comment, c.created_by
      FROM unnest(
        ${changes.map((change) => change.accountId)}::integer[],
        ${changes.map((change) => change.amountMicros)}::bigint[],
        ${offsets.map((offset) => offset ?? 0)}::bigint[],
        ${changes.map((change) => change.kind)}::text[],
        ${changes.map((change) => change.counterpartyId ?? null)}::integer[],
        ${changes.map((change) => change.reference ?? null)}::text[],
        ${changes.map((change) => change.comment ?? '')}::text[],
        ${changes.map((change) => change.createdBy ?? null)}::integer[]
      ) WITH ORDINALITY AS c (account_id, amount, offset_after, kind, counterparty_id, reference, comment, created_by, position)
      JOIN moved ON moved.id = c.account_id
      ORDER BY c.position
      RETURNING 1
    ), posted AS (
      SELECT 1 FROM verdict WHERE verdict.ok AND (SELECT count(*) FROM moved) = ${ids.length}
    )${sql.join(alongside, sql``)}
    SELECT EXISTS (SELECT 1 FROM posted) AS posted`).execute(db);
  return result.rows[0]?.posted === true;
}

/** The platform's own account: the counterparty of every click's margin and of every refund of it. */
export const PLATFORM_USERNAME = 'nativa-platform';

/** The platform account's id, created on first use (concurrent first uses create it once). */
export async function findOrCreatePlatformAccount(db: Db): Promise<number> {
  const existing = await db.selectFrom('accounts').select('id').where('username', '=', PLATFORM_USERNAME).executeTakeFirst();
  if (existing) return existing.id;
  await sql`INSERT INTO accounts (kind, username, email, name, email_confirmed_at)
    VALUES ('operator', ${PLATFORM_USERNAME}, 'platform@nativa.invalid', 'Nativa platform margin', now())
    ON CONFLICT DO NOTHING`.execute(db);
  const created = await db
    .selectFrom('accounts')
    .select('id')
    .where('username', '=', PLATFORM_USERNAME)
    .executeTakeFirstOrThrow();
  return created.id;
}

/**
 * The balances (and kinds) of these accounts, as the caller's transaction sees them: what a
 * movement left (balance webhooks and notices compare it with what it was).
 */
export async function accountBalances(
  db: Db,
  accountIds: readonly number[],
): Promise<{ id: number; balance_micros: number; kind: AccountKind }[]> {
  if (accountIds.length === 0) return [];
  return db
    .selectFrom('accounts')
    .select(['id', 'balance_micros', 'kind'])
    .where('id', 'in', [...accountIds])
    .execute();
}
