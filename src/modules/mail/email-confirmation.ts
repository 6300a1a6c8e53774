import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { DomainError, notFound } from '../../errors.ts';

/** How long a confirmation link works. */
export const CONFIRMATION_TTL_MS = 7 * 24 * 3600 * 1000;

const hashConfirmationToken = (token: string): Buffer => createHash('sha256').update(token).digest();

/** Stores a new confirmation for the account's current e-mail and returns the token for the link. */
export async function createEmailConfirmation(trx: Db, account: { id: number; email: string }, now: Date): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await trx
    .insertInto('email_confirmations')
    .values({
      token_hash: hashConfirmationToken(token),
      account_id: account.id,
      email: account.email,
      expires_at: new Date(now.getTime() + CONFIRMATION_TTL_MS),
      used_at: null,
      created_at: now,
    })
    .execute();
  return token;
}

/** Marks an account's mailbox confirmed if the account still has that address (the accounts module's write). */
export type ConfirmMailbox = (trx: Db, accountId: number, email: string, now: Date) => Promise<boolean>;

/**
 * Uses a confirmation token: marks the mailbox confirmed (through `confirmMailbox`, which the
 * accounts module provides) and the token spent, in one transaction.
 * Unknown and spent tokens are 404; an expired one is 410. The UPDATE that spends the token
 * checks that it is unspent, so two clicks at once confirm once.
 */
export async function confirmEmail(
  db: Db,
  confirmMailbox: ConfirmMailbox,
  token: string,
  now: Date,
): Promise<{ accountId: number; email: string }> {
  if (token.length > 100) throw notFound('Confirmation link');
  return inTransaction(db, async (trx) => {
    const spent = await trx
      .updateTable('email_confirmations')
      .set({ used_at: now })
      .where('token_hash', '=', hashConfirmationToken(token))
      .where('used_at', 'is', null)
      .returning(['account_id', 'email', 'expires_at'])
      .executeTakeFirst();
    if (spent === undefined) throw notFound('Confirmation link');
    if (spent.expires_at.getTime() <= now.getTime()) {
      throw new DomainError('link_expired', 'This confirmation link has expired. Ask the support team for a new one.');
    }
    // A link confirms the address it was sent to; if the account's e-mail changed since, it confirms nothing.
    if (!(await confirmMailbox(trx, spent.account_id, spent.email, now))) throw notFound('Confirmation link');
    return { accountId: spent.account_id, email: spent.email };
  });
}
