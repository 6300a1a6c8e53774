import type { Db } from '../../db/database.ts';
import { invalidField, notFound } from '../../errors.ts';
import { deleteReason, findReasonForUpdate, insertReason, listReasons, updateReason } from './reason-repository.ts';

/** The operator's list of reasons to reject with, in alphabetical order. */
export const moderationReasons = listReasons;

/** A reason's words without surrounding spaces; 422 when nothing is left. */
function wordsOf(text: string): string {
  const words = text.trim();
  if (words === '') throw invalidField('text', 'Write the reason.');
  return words;
}

export const addReason = (trx: Db, text: string, now: Date) => insertReason(trx, wordsOf(text), now);

/** Rewords a reason; answers it before and after. Decisions already taken keep the words they were given. */
export async function changeReason(trx: Db, id: number, text: string, now: Date) {
  const before = await findReasonForUpdate(trx, id);
  const after = await updateReason(trx, id, wordsOf(text), now);
  if (before === undefined || after === undefined) throw notFound('Reason');
  return { before, after };
}

export async function removeReason(trx: Db, id: number) {
  const removed = await deleteReason(trx, id);
  if (removed === undefined) throw notFound('Reason');
  return removed;
}
