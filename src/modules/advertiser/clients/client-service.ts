import type { Db } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { DomainError, type FieldError, invalidField, validationFailed } from '../../../errors.ts';
import type { Unchecked } from '../../../shared/unchecked.ts';
import {
  type AccountRow,
  createAccount,
  createPasswordToken,
  getAccount,
  getReferral,
  identityFieldErrors,
} from '../../accounts/index.ts';
import { insufficientFundsAsValidation, transfer } from '../../ledger/index.ts';
import type { Mailer } from '../../mail/index.ts';
import { createEmailConfirmation, queueAccountMessage, registrationMessage } from '../../mail/index.ts';
import { emitBalanceDrops, emitWebhookEvent } from '../../webhooks/index.ts';

export interface NewClientInput {
  username: string;
  email: string;
  name?: string;
  url?: string;
  whatsapp?: string;
  telegram?: string;
  skype?: string;
  phone?: string;
}

export interface CreatedClient {
  account: AccountRow;
  outboxId: number;
}

/** The API calls the login `user`; the accounts module names it `username`. */
function renameUsernameField(error: unknown): never {
  if (error instanceof DomainError && error.fieldErrors) {
    throw validationFailed(error.fieldErrors.map((entry) => (entry.field === 'username' ? { ...entry, field: 'user' } : entry)));
  }
  throw error;
}

/** A new client's rules beyond its schema: a login (`user`) and an e-mail nobody has. */
export function clientFieldErrors(db: Db, input: Unchecked<{ user: string; email: string }>): Promise<FieldError[]> {
  return identityFieldErrors(db, { username: input.user, email: input.email }, 'user');
}

/**
 * Registers an advertiser as a referral of `parentId`: no password yet, an unconfirmed mailbox, and
 * an e-mail with a confirmation link and a single-use link to choose a password (an invitation).
 * No password is ever generated or mailed: nobody needs to see one. The account, the links and the
 * queued e-mail are one transaction; the e-mail is delivered after it commits, and a delivery
 * failure does not undo the registration (the message stays `failed` in the outbox for the
 * operator to see and resend).
 */
export async function createClient(
  dependencies: { db: Db; mailer: Mailer; now: Date },
  parentId: number,
  input: NewClientInput,
  links: { confirmation: (token: string) => string; password: (token: string) => string },
): Promise<CreatedClient> {
  const { db, mailer, now } = dependencies;
  const problems = await clientFieldErrors(db, { user: input.username, email: input.email });
  if (problems.length > 0) throw validationFailed(problems);

  const created = await inTransaction(db, async (trx) => {
    const parent = await getAccount(trx, parentId);
    const account = await createAccount(
      trx,
      // A client starts in its advertiser's language: its first e-mail is written before it can choose.
      { ...input, kind: 'advertiser', parentId, emailConfirmed: false, language: parent.language },
      now,
    ).catch(renameUsernameField);
    const token = await createEmailConfirmation(trx, account, now);
    const message = registrationMessage({
      language: account.language,
      username: account.username,
      link: links.confirmation(token),
      invitedBy: parent.name || parent.username,
      passwordLink: links.password(await createPasswordToken(trx, account.id, 'invitation', now)),
    });
    const outbox = await queueAccountMessage(trx, { kind: 'email_confirmation', account, message, now, sensitive: true });
    const data = { clientId: account.id, user: account.username, email: account.email };
    await emitWebhookEvent(trx, { type: 'client.created', accountId: parentId, data, now });
    return { account, outboxId: outbox.id };
  });
  // The background sender delivers it: the request does not wait for the SMTP server.
  mailer.wake();
  return created;
}

export async function getClient(db: Db, parentId: number, id: number): Promise<AccountRow> {
  return getReferral(db, parentId, id);
}

/**
 * Moves `amountMicros` from the parent's balance to the client's (a negative amount moves money
 * back), as two ledger entries in one transaction. A move that would leave either balance below
 * zero is a 422 on `balance` and changes nothing.
 */
export async function moveClientBalance(
  db: Db,
  move: { parentId: number; clientId: number; amountMicros: number },
  now: Date,
): Promise<AccountRow> {
  if (move.amountMicros === 0) throw invalidField('balance', 'Must not be zero.');
  return inTransaction(db, async (trx) => {
    await getClient(trx, move.parentId, move.clientId);
    const outgoing = move.amountMicros > 0;
    await transfer(trx, {
      fromId: outgoing ? move.parentId : move.clientId,
      toId: outgoing ? move.clientId : move.parentId,
      amountMicros: Math.abs(move.amountMicros),
      kind: 'client_transfer',
      comment: outgoing ? 'to a client account' : 'back from a client account',
      createdBy: move.parentId,
    }).catch((error: unknown) => insufficientFundsAsValidation(error, 'balance'));
    const payer = outgoing ? move.parentId : move.clientId;
    await emitBalanceDrops(trx, new Map([[payer, Math.abs(move.amountMicros)]]), now);
    return getClient(trx, move.parentId, move.clientId);
  });
}
