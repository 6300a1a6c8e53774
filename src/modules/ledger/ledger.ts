import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { invalidField } from '../../http/errors.ts';

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

/** Applies one change; throws InsufficientFunds when it would leave the balance below zero. */
export async function applyLedgerChange(trx: Db, change: LedgerChange): Promise<number> {
  const updated = await trx
    .updateTable('accounts')
    .set((eb) => ({ balance_micros: eb('balance_micros', '+', change.amountMicros) }))
    .where('id', '=', change.accountId)
    .where((eb) => eb(eb('balance_micros', '+', change.amountMicros), '>=', 0))
    .returning('balance_micros')
    .executeTakeFirst();
  if (updated === undefined) throw new InsufficientFunds(change.accountId);
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

/** Maps InsufficientFunds to the API's 422 on the given field; other errors pass through. */
export function insufficientFundsAsValidation(error: unknown, field: string): never {
  if (error instanceof InsufficientFunds) throw invalidField(field, 'The balance is not sufficient for this change.');
  throw error;
}

export async function listLedgerEntries(db: Db, accountId: number, limit: number, offset: number) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('ledger_entries')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/**
 * Applies many changes in one go (the serving engine's batched click billing): the accounts are
 * locked in id order, each account's balance moves once by the sum of its changes (refused, as a
 * whole, with InsufficientFunds when any would end below zero), and every change still gets its
 * own ledger row with the balance after it, in the order given. Balance = sum of ledger holds.
 */
export async function applyLedgerChanges(trx: Db, changes: readonly LedgerChange[]): Promise<void> {
  if (changes.length === 0) return;
  const totals = new Map<number, number>();
  for (const change of changes) totals.set(change.accountId, (totals.get(change.accountId) ?? 0) + change.amountMicros);
  const ids = [...totals.keys()].sort((a, b) => a - b);
  await trx.selectFrom('accounts').select('id').where('id', 'in', ids).orderBy('id').forUpdate().execute();
  const values = sql.join(ids.map((id) => sql`(${id}::integer, ${totals.get(id) ?? 0}::bigint)`));
  const updated = await sql<{ id: number; balance_micros: number }>`
    UPDATE accounts AS a SET balance_micros = a.balance_micros + v.delta
    FROM (VALUES ${values}) AS v (id, delta)
    WHERE a.id = v.id AND a.balance_micros + v.delta >= 0
    RETURNING a.id, a.balance_micros`.execute(trx);
  if (updated.rows.length !== ids.length) {
    const done = new Set(updated.rows.map((row) => row.id));
    throw new InsufficientFunds(ids.find((id) => !done.has(id)) ?? 0);
  }
  const running = new Map<number, number>();
  for (const row of updated.rows) running.set(row.id, Number(row.balance_micros) - (totals.get(row.id) ?? 0));
  const rows = changes.map((change) => {
    const after = (running.get(change.accountId) ?? 0) + change.amountMicros;
    running.set(change.accountId, after);
    return {
      account_id: change.accountId,
      amount_micros: change.amountMicros,
      balance_after_micros: after,
      kind: change.kind,
      counterparty_id: change.counterpartyId ?? null,
      reference: change.reference ?? null,
      comment: change.comment ?? '',
      created_by: change.createdBy ?? null,
    };
  });
  for (let start = 0; start < rows.length; start += 1000) {
    await trx
      .insertInto('ledger_entries')
      .values(rows.slice(start, start + 1000))
      .execute();
  }
}
