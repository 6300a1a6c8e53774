import type { Transporter } from 'nodemailer';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/database.ts';
import type { OutboxStatus } from '../../db/schema.ts';
import { OutboxWorker } from '../../outbox-worker.ts';
import {
  claimDueMessages,
  claimMessage,
  findOutboxMessage,
  markOutboxFailed,
  markOutboxSent,
  type OutboxRow,
  unscheduleMessage,
} from './outbox-repository.ts';

/** The part of a pino logger the mailer writes to (a request's logger, usually). */
export interface MailLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

/** Bounds on one delivery attempt, so that a dead SMTP server holds a message for seconds, not minutes. */
const TIMEOUTS = { connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: 10_000 };

/** How many due messages one round claims; a round repeats while it finds a full batch. */
const BATCH = 10;
/** An instance's hold on the messages it claimed: far longer than a batch can take at the timeouts above. */
const LEASE_MS = 10 * 60_000;
/** Retries after a failure: 1 min, 2, 4, … capped at 6 h, and none after the 10th attempt. */
const FIRST_RETRY_MS = 60_000;
const LONGEST_RETRY_MS = 6 * 3_600_000;
const MAX_ATTEMPTS = 10;
/** How often the sender looks for due messages when nothing woke it (retries, other instances' mail). */
const POLL_MS = 5_000;

export function nextAttemptAfterFailure(attempts: number, now: number): Date | null {
  if (attempts >= MAX_ATTEMPTS) return null;
  return new Date(now + Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** (attempts - 1)));
}

/**
 * Delivers messages of the outbox. With `SMTP_URL` a message goes to that server through
 * nodemailer; without one it stays `queued` and is written to the log, which is how a local
 * installation reads its mail. The sender address is the `from` query parameter of SMTP_URL
 * (`smtp://user:pass@mail.example.com:587?from=ads@example.com`), else no-reply at the public host.
 *
 * Messages scheduled in the outbox (`next_attempt_at`) are sent in the background: a request
 * writes its message in its own transaction and calls `wake()` after the commit, without waiting
 * for the SMTP server. Each instance runs one sender; a message is claimed with a lease before it
 * is sent, so instances sharing a database never send it twice at once (a process that dies after
 * the SMTP server accepted a message but before recording it may have it sent again after the lease).
 */
export class Mailer {
  private readonly db: Db;
  private readonly clock: Clock;
  /**
   * Made at the first message sent: nodemailer (~2 MB resident) is loaded only by a server that
   * has SMTP_URL and mail to send (docs/performance.md, "Idle memory").
   */
  private transport: Promise<Transporter> | undefined;
  private readonly transportUrl: string | undefined;
  readonly from: string;
  private log: MailLog | undefined;
  private readonly sender: OutboxWorker;

  constructor(db: Db, clock: Clock, options: { smtpUrl: string | undefined; publicUrl: string | undefined }) {
    this.db = db;
    this.clock = clock;
    const host = options.publicUrl ? new URL(options.publicUrl).hostname : 'localhost';
    let from = `Nativa <no-reply@${host}>`;
    if (options.smtpUrl) {
      const url = new URL(options.smtpUrl);
      from = url.searchParams.get('from') || from;
      url.searchParams.delete('from');
      this.transportUrl = url.toString();
    }
    this.from = from;
    this.sender = new OutboxWorker({
      pollMs: POLL_MS,
      runBatch: () => this.sendBatch(),
      onError: (error) => this.log?.warn({ err: (error as Error).message }, 'the outbox sender could not read the outbox'),
      finishRoundOnStop: true,
    });
  }

  get configured(): boolean {
    return this.transportUrl !== undefined;
  }

  /** Starts this instance's background sender; it sends what is due at once. */
  start(log: MailLog): void {
    this.log = log;
    this.sender.start();
  }

  /** Asks the background sender for a round soon (after a commit that queued a message). */
  wake(): void {
    this.sender.wake();
  }

  /** Resolves when the background sender has nothing in hand (tests; shutdown). */
  idle(): Promise<void> {
    return this.sender.idle();
  }

  /** Stops the background sender after it has sent what it was asked to, then closes SMTP. */
  async close(): Promise<void> {
    await this.sender.stop();
    const transport = await this.transport?.catch(() => undefined);
    transport?.close();
  }

  /**
   * One delivery attempt of an outbox message now, due or not (an operator's "send again"); never
   * throws for a mail failure (the outbox row records it). Call it after the transaction that
   * wrote the message has committed.
   */
  async deliver(id: number, log: MailLog): Promise<OutboxStatus> {
    const now = this.clock.now();
    const message = await claimMessage(this.db, id, new Date(now), new Date(now + LEASE_MS));
    if (message === undefined) return (await findOutboxMessage(this.db, id))?.status ?? 'failed';
    return this.attempt(message, log);
  }

  private async sendBatch(): Promise<boolean> {
    const now = this.clock.now();
    const claimed = await claimDueMessages(this.db, new Date(now), new Date(now + LEASE_MS), BATCH);
    for (const message of claimed) await this.attempt(message, this.log ?? SILENT);
    return claimed.length === BATCH;
  }

  private openTransport(): Promise<Transporter> | undefined {
    const url = this.transportUrl;
    if (url === undefined) return undefined;
    this.transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport({ url, ...TIMEOUTS }));
    return this.transport;
  }

  private async attempt(message: OutboxRow, log: MailLog): Promise<OutboxStatus> {
    const transport = this.openTransport();
    if (transport === undefined) {
      log.info(
        { outboxId: message.id, to: message.recipient, subject: message.subject, text: message.body_text },
        'SMTP_URL is not set: the message stays queued in the outbox',
      );
      await unscheduleMessage(this.db, message.id);
      return 'queued';
    }
    try {
      await (await transport).sendMail({
        from: this.from,
        to: message.recipient,
        subject: message.subject,
        text: message.body_text,
        html: message.body_html || undefined,
      });
      await markOutboxSent(this.db, message.id, new Date(this.clock.now()));
      return 'sent';
    } catch (error) {
      const reason = (error as Error).message || String(error);
      const retryAt = nextAttemptAfterFailure(message.attempts + 1, this.clock.now());
      log.warn(
        { outboxId: message.id, to: message.recipient, err: reason, retryAt: retryAt?.toISOString() ?? null },
        'sending an e-mail failed; it stays in the outbox as failed',
      );
      await markOutboxFailed(this.db, message.id, reason, retryAt);
      return 'failed';
    }
  }
}

const SILENT: MailLog = { info: () => undefined, warn: () => undefined };
