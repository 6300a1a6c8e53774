import type { Db } from '../../db/database.ts';
import { invalidField, notFound } from '../../http/errors.ts';
import type { Mailer, MailLog } from './mailer.ts';
import { findOutboxMessage, insertOutboxMessage, type NewOutboxMessage, type OutboxRow } from './outbox-repository.ts';

/** Queues a message in the outbox, inside the caller's transaction; it is delivered after the commit. */
export async function queueOutboxMessage(trx: Db, message: NewOutboxMessage): Promise<OutboxRow> {
  return insertOutboxMessage(trx, message);
}

export async function getOutboxMessage(db: Db, id: number): Promise<OutboxRow> {
  const message = await findOutboxMessage(db, id);
  if (message === undefined) throw notFound('Message');
  return message;
}

/** Tries to deliver a queued or failed message again; one already sent is a 422. Answers the message after the attempt. */
export async function deliverAgain(db: Db, mailer: Mailer, id: number, log: MailLog): Promise<OutboxRow> {
  const message = await getOutboxMessage(db, id);
  if (message.status === 'sent') throw invalidField('id', 'This message has been sent already.');
  await mailer.deliver(id, log);
  return getOutboxMessage(db, id);
}
