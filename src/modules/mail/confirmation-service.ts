import type { Db } from '../../db/database.ts';
import { createEmailConfirmation } from './email-confirmation.ts';
import type { Language } from './languages.ts';
import { confirmationMessage } from './messages.ts';
import type { OutboxRow } from './outbox-repository.ts';
import { queueAccountMessage } from './outbox-service.ts';

/**
 * Queues a new confirmation link for an account's mailbox, inside the caller's transaction
 * (accounts decide who gets one), in the language of `account` as that transaction read it.
 * Earlier links keep working until they expire.
 */
export async function queueEmailConfirmation(
  trx: Db,
  account: { id: number; username: string; email: string; language: Language },
  now: Date,
  confirmationUrl: (token: string) => string,
): Promise<OutboxRow> {
  const token = await createEmailConfirmation(trx, account, now);
  const message = confirmationMessage({
    language: account.language,
    username: account.username,
    link: confirmationUrl(token),
  });
  return queueAccountMessage(trx, { kind: 'email_confirmation', account, message, now });
}
