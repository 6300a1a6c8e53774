import type { Db } from '../../db/database.ts';
import { invalidField, notFound } from '../../errors.ts';
import type { Mailer, MailLog } from './mailer.ts';
import type { ComposedMessage } from './messages.ts';
import { findOutboxMessage, insertOutboxMessage, type OutboxRow } from './outbox-repository.ts';

export type { OutboxRow };

/** Queues a composed e-mail about an account to its mailbox, inside the caller's transaction. */
export async function queueAccountMessage(
  trx: Db,
  email: {
    kind: string;
    account: { id: number; email: string };
    message: ComposedMessage;
    now: Date;
    /** It carries a secret (a password or a link that sets one): its text is erased once delivered. */
    sensitive?: boolean;
  },
): Promise<OutboxRow> {
  return insertOutboxMessage(trx, {
    kind: email.kind,
    account_id: email.account.id,
    recipient: email.account.email,
    subject: email.message.subject,
    body_text: email.message.text,
    body_html: email.message.html,
    sensitive: email.sensitive ?? false,
    sent_at: null,
    // Scheduled, so that a failed first attempt is retried in the background.
    next_attempt_at: email.now,
    created_at: email.now,
  });
}

export async function getOutboxMessage(db: Db, id: number): Promise<OutboxRow> {
  const message = await findOutboxMessage(db, id);
  if (message === undefined) throw notFound('Message');
  return message;
}

/** Tries to deliver a committed message now; answers the message as it is after the attempt. */
export async function deliverNow(db: Db, mailer: Mailer, id: number, log: MailLog): Promise<OutboxRow> {
  await mailer.deliver(id, log);
  return getOutboxMessage(db, id);
}

/** Tries to deliver a queued or failed message again; one already sent is a 422. Answers the message after the attempt. */
export async function deliverAgain(db: Db, mailer: Mailer, id: number, log: MailLog): Promise<OutboxRow> {
  const message = await getOutboxMessage(db, id);
  if (message.status === 'sent') throw invalidField('id', 'This message has been sent already.');
  return deliverNow(db, mailer, id, log);
}
