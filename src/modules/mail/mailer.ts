import nodemailer, { type Transporter } from 'nodemailer';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/database.ts';
import type { OutboxStatus } from '../../db/schema.ts';
import { findOutboxMessage, markOutboxFailed, markOutboxSent } from './outbox-repository.ts';

/** The part of a pino logger the mailer writes to (a request's logger, usually). */
export interface MailLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

/** Bounds on one delivery attempt, so that a dead SMTP server delays a request by seconds, not minutes. */
const TIMEOUTS = { connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: 10_000 };

/**
 * Delivers messages of the outbox. With `SMTP_URL` a message goes to that server through
 * nodemailer; without one it stays `queued` and is written to the log, which is how a local
 * installation reads its mail. The sender address is the `from` query parameter of SMTP_URL
 * (`smtp://user:pass@mail.example.com:587?from=ads@example.com`), else no-reply at the public host.
 */
export class Mailer {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly transport: Transporter | undefined;
  readonly from: string;

  constructor(db: Db, clock: Clock, options: { smtpUrl: string | undefined; publicUrl: string | undefined }) {
    this.db = db;
    this.clock = clock;
    const host = options.publicUrl ? new URL(options.publicUrl).hostname : 'localhost';
    let from = `Nativa <no-reply@${host}>`;
    if (options.smtpUrl) {
      const url = new URL(options.smtpUrl);
      from = url.searchParams.get('from') || from;
      url.searchParams.delete('from');
      this.transport = nodemailer.createTransport({ url: url.toString(), ...TIMEOUTS });
    }
    this.from = from;
  }

  get configured(): boolean {
    return this.transport !== undefined;
  }

  /**
   * One delivery attempt of an outbox message; never throws for a mail failure (the outbox row
   * records it). Call it after the transaction that wrote the message has committed.
   */
  async deliver(id: number, log: MailLog): Promise<OutboxStatus> {
    const message = await findOutboxMessage(this.db, id);
    if (message === undefined || message.status === 'sent') return message?.status ?? 'failed';
    if (this.transport === undefined) {
      log.info(
        { outboxId: id, to: message.recipient, subject: message.subject, text: message.body_text },
        'SMTP_URL is not set: the message stays queued in the outbox',
      );
      return 'queued';
    }
    try {
      await this.transport.sendMail({
        from: this.from,
        to: message.recipient,
        subject: message.subject,
        text: message.body_text,
        html: message.body_html || undefined,
      });
      await markOutboxSent(this.db, id, new Date(this.clock.now()));
      return 'sent';
    } catch (error) {
      const reason = (error as Error).message || String(error);
      log.warn(
        { outboxId: id, to: message.recipient, err: reason },
        'sending an e-mail failed; it stays in the outbox as failed',
      );
      await markOutboxFailed(this.db, id, reason);
      return 'failed';
    }
  }

  close(): void {
    this.transport?.close();
  }
}
