import type { Db } from '../../db/database.ts';
import { invalidField } from '../../http/errors.ts';
import { getAccount } from '../accounts/account-service.ts';
import { createEmailConfirmation } from './email-confirmation.ts';
import type { Mailer, MailLog } from './mailer.ts';
import { confirmationMessage } from './messages.ts';
import { insertOutboxMessage, type OutboxRow } from './outbox-repository.ts';
import { getOutboxMessage } from './outbox-service.ts';

/**
 * Sends an account a new confirmation link (the operator's answer to "my link expired"). Earlier
 * links keep working until they expire. The message is queued with the link in one transaction
 * and delivered after it commits; the message is answered as it is after the attempt.
 */
export async function resendConfirmation(
  dependencies: { db: Db; mailer: Mailer; now: Date; log: MailLog },
  accountId: number,
  confirmationUrl: (token: string) => string,
): Promise<OutboxRow> {
  const { db, mailer, now, log } = dependencies;
  const queued: OutboxRow = await db.transaction().execute(async (trx) => {
    const account = await getAccount(trx, accountId);
    if (account.email_confirmed_at !== null) throw invalidField('id', 'The e-mail of this account is confirmed already.');
    const token = await createEmailConfirmation(trx, account, now);
    const message = confirmationMessage({ username: account.username, link: confirmationUrl(token) });
    return insertOutboxMessage(trx, {
      kind: 'email_confirmation',
      account_id: account.id,
      recipient: account.email,
      subject: message.subject,
      body_text: message.text,
      body_html: message.html,
      sent_at: null,
      // Scheduled, so that a failed first attempt is retried in the background.
      next_attempt_at: now,
      created_at: now,
    });
  });
  await mailer.deliver(queued.id, log);
  return getOutboxMessage(db, queued.id);
}
