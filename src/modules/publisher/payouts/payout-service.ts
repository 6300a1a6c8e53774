import type { Db } from '../../../db/database.ts';
import type { PayoutStatus } from '../../../db/schema.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { type FieldError, invalidField, notFound, validationFailed } from '../../../errors.ts';
import { microsToAmount } from '../../../money.ts';
import { isId } from '../../../shared/ids.ts';
import { checkMoney } from '../../../shared/money-input.ts';
import type { Unchecked } from '../../../shared/unchecked.ts';
import { findAccount } from '../../accounts/index.ts';
import { accountBalances, applyLedgerChange, insufficientFundsAsValidation } from '../../ledger/index.ts';
import { emitBalanceDrops, emitWebhookEvent } from '../../webhooks/index.ts';
import {
  findPayout,
  findPayoutDetails,
  insertPayout,
  type PayoutDetails,
  pendingPayoutMicros,
  savePayoutDetails,
  updatePayoutStatus,
} from './payout-repository.ts';
import type { PayoutMethod, PayoutRow } from './payout-schema.ts';

export async function getOwnPayout(db: Db, publisherId: number, payoutId: number): Promise<PayoutRow> {
  const payout = await findPayout(db, payoutId, { publisherId });
  if (payout === undefined) throw notFound('Payout');
  return payout;
}

export async function getPayout(db: Db, payoutId: number): Promise<PayoutRow> {
  const payout = await findPayout(db, payoutId);
  if (payout === undefined) throw notFound('Payout');
  return payout;
}

/**
 * A new payout's rules beyond its schema: a positive amount, a publisher to pay, and a status a
 * payout can start in. Written for input its schema may have refused.
 */
export async function payoutFieldErrors(
  db: Db,
  input: Unchecked<{ userId: number; amount: string | number; status: PayoutStatus }>,
): Promise<FieldError[]> {
  const problems: FieldError[] = [];
  if (input.amount !== undefined) {
    const amount = checkMoney(input.amount, 'amount', { sign: 'positive' });
    if (typeof amount !== 'number') problems.push(amount);
  }
  if (isId(input.userId)) {
    const account = await findAccount(db, input.userId);
    if (account === undefined || account.kind !== 'publisher') {
      problems.push({ field: 'userId', message: 'Must be the id of a publisher account.' });
    }
  }
  if (input.status === 'cancelled') problems.push({ field: 'status', message: 'A new payout is pending or paid.' });
  return problems;
}

/**
 * Records a payout and debits the publisher's balance by its amount in the same transaction
 * (ledger kind `payout`, reference the payout id). More than the balance is a 422 on `amount`,
 * and the rollback leaves neither a payout nor a ledger entry behind.
 */
export async function recordPayout(
  db: Db,
  input: { publisherId: number; amountMicros: number; wallet: string; status: PayoutStatus; operatorId: number },
  now: Date,
): Promise<PayoutRow> {
  return inTransaction(db, async (trx) => {
    const problems = await payoutFieldErrors(trx, { userId: input.publisherId, status: input.status });
    if (problems.length > 0) throw validationFailed(problems);
    const payout = await insertPayout(trx, {
      publisherId: input.publisherId,
      amountMicros: input.amountMicros,
      wallet: input.wallet,
      status: input.status,
      createdBy: input.operatorId,
      now,
    });
    await applyLedgerChange(trx, {
      accountId: input.publisherId,
      amountMicros: -input.amountMicros,
      kind: 'payout',
      reference: String(payout.id),
      comment: `payout to ${input.wallet}`,
      createdBy: input.operatorId,
    }).catch((error: unknown) => insufficientFundsAsValidation(error, 'amount'));
    await emitBalanceDrops(trx, new Map([[input.publisherId, input.amountMicros]]), now);
    await emitPayoutEvent(trx, payout, 'payout.created', now);
    if (payout.status === 'paid') await emitPayoutEvent(trx, payout, 'payout.paid', now);
    return payout;
  });
}

/**
 * Moves a payout along pending → paid or pending → cancelled; both ends are final. Cancelling
 * returns the amount to the publisher's balance (ledger kind `payout_cancel`). Setting the
 * status a payout already has changes nothing.
 */
export async function changePayoutStatus(
  db: Db,
  payoutId: number,
  status: PayoutStatus,
  operatorId: number,
  now: Date,
): Promise<PayoutRow> {
  return inTransaction(db, async (trx) => {
    const payout = await findPayout(trx, payoutId, { lock: true });
    if (payout === undefined) throw notFound('Payout');
    if (payout.status === status) return payout;
    if (payout.status !== 'pending') throw invalidField('status', `A ${payout.status} payout cannot change any more.`);
    if (status === 'cancelled') {
      await applyLedgerChange(trx, {
        accountId: payout.publisher_id,
        amountMicros: payout.amount_micros,
        kind: 'payout_cancel',
        reference: String(payout.id),
        comment: 'payout cancelled',
        createdBy: operatorId,
        // Money given back may meet the largest balance (a 422 on the status asked for).
      }).catch((error: unknown) => insufficientFundsAsValidation(error, 'status'));
    }
    const changed = await updatePayoutStatus(trx, payoutId, status, now);
    await emitPayoutEvent(trx, changed, status === 'paid' ? 'payout.paid' : 'payout.cancelled', now);
    return changed;
  });
}

function emitPayoutEvent(trx: Db, payout: PayoutRow, type: 'payout.created' | 'payout.paid' | 'payout.cancelled', now: Date) {
  const data = {
    payoutId: payout.id,
    amount: microsToAmount(payout.amount_micros),
    status: payout.status,
    wallet: payout.wallet,
  };
  return emitWebhookEvent(trx, { type, accountId: payout.publisher_id, data, now });
}

/**
 * The publisher's payout figures: its balance, what is pending, the platform's minimum and what
 * the next payout will pay — the whole balance once it reaches the minimum and the publisher has
 * said where to pay, nothing before.
 */
export async function payoutSummary(db: Db, publisherId: number, minimumMicros: number) {
  const [balances, pendingMicros, details] = await Promise.all([
    accountBalances(db, [publisherId]),
    pendingPayoutMicros(db, publisherId),
    findPayoutDetails(db, publisherId),
  ]);
  const balanceMicros = balances[0]?.balance_micros ?? 0;
  const payableMicros = details !== undefined && balanceMicros >= minimumMicros && balanceMicros > 0 ? balanceMicros : 0;
  return {
    balance: microsToAmount(balanceMicros),
    minimum: microsToAmount(minimumMicros),
    payable: microsToAmount(payableMicros),
    pending: microsToAmount(pendingMicros),
    details: toPayoutDetails(details),
  };
}

export const toPayoutDetails = (details: PayoutDetails | undefined) =>
  details === undefined
    ? null
    : { method: details.method, holder: details.holder, account: details.account, updated: details.updated_at.toISOString() };

/** Replaces where the publisher is paid; answers the details before and after (the audit's). */
export async function changePayoutDetails(
  trx: Db,
  publisherId: number,
  details: { method: PayoutMethod; holder: string; account: string },
  now: Date,
) {
  const trimmed = { method: details.method, holder: details.holder.trim(), account: details.account.trim() };
  const problems: FieldError[] = [];
  if (trimmed.holder === '') problems.push({ field: 'holder', message: 'Write whose account it is.' });
  if (trimmed.account === '') problems.push({ field: 'account', message: 'Write where to pay.' });
  if (problems.length > 0) throw validationFailed(problems);
  const before = await findPayoutDetails(trx, publisherId);
  await savePayoutDetails(trx, publisherId, trimmed, now);
  const after = await findPayoutDetails(trx, publisherId);
  return { before: toPayoutDetails(before), after: toPayoutDetails(after) };
}
