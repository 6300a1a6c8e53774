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
 * Applies many changes in one statement (the serving engine's batched click billing): the accounts
 * are locked in id order, each account's balance moves once by the sum of its changes (refused, as
 * a whole, with InsufficientFunds when any would end below zero), and every change still gets its
 * own ledger row with the balance after it, in the order given. One statement keeps the time the
 * account rows stay locked short. Balance = sum of ledger holds.
 */
export async function applyLedgerChanges(trx: Db, changes: readonly LedgerChange[]): Promise<void> {
  if (changes.length === 0) return;
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
  // Whole columns as array parameters: the statement text (and its plan) does not grow with the batch.
  const result = await sql<{ inserted: number; accounts: number }>`
    WITH locked AS (
      SELECT id FROM accounts WHERE id = ANY(${ids}::integer[]) ORDER BY id FOR UPDATE
    ), moved AS (
      UPDATE accounts AS a SET balance_micros = a.balance_micros + v.delta
      FROM unnest(${ids}::integer[], ${ids.map((id) => totals.get(id) ?? 0)}::bigint[]) AS v (id, delta), locked
      WHERE a.id = v.id AND locked.id = v.id AND a.balance_micros + v.delta >= 0
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
    )
    SELECT (SELECT count(*) FROM entries)::integer AS inserted, (SELECT count(*) FROM moved)::integer AS accounts`.execute(trx);
  const outcome = result.rows[0];
  if (outcome === undefined || Number(outcome.accounts) !== ids.length || Number(outcome.inserted) !== changes.length) {
    // The statement's effects are rolled back with the caller's transaction when this propagates.
    throw new InsufficientFunds(ids[0] ?? 0);
  }
}
