import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  /** The message as sent, with quoted-printable undone. */
  text: string;
}

/** Undoes quoted-printable soft line breaks and escapes, enough to read links and headers. */
const decodeQuotedPrintable = (text: string): string =>
  text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

/** A real SMTP listener on loopback: every message it accepts is kept per recipient until a test takes it. */
export class Mailbox {
  private server: SMTPServer | undefined;
  private readonly received: ReceivedMail[] = [];
  private readonly waiting: { to: string; resolve: (mail: ReceivedMail) => void }[] = [];
  port = 0;

  async start(): Promise<void> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const mail = {
            to: session.envelope.rcptTo.map((address) => address.address.toLowerCase()),
            text: decodeQuotedPrintable(Buffer.concat(chunks).toString('utf8')),
          };
          const index = this.waiting.findIndex((waiter) => mail.to.includes(waiter.to));
          if (index >= 0) this.waiting.splice(index, 1)[0]?.resolve(mail);
          else this.received.push(mail);
          callback();
        });
      },
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (server.server.address() as AddressInfo).port;
  }

  /** The next message to `address`, now or when it arrives. */
  next(address: string): Promise<ReceivedMail> {
    const to = address.toLowerCase();
    const index = this.received.findIndex((mail) => mail.to.includes(to));
    if (index >= 0) return Promise.resolve(this.received.splice(index, 1)[0] as ReceivedMail);
    return new Promise((resolve) => this.waiting.push({ to, resolve }));
  }

  /** Whether a message to `address` has arrived and not been taken. */
  has(address: string): boolean {
    return this.received.some((mail) => mail.to.includes(address.toLowerCase()));
  }

  stop(): Promise<void> {
    const server = this.server;
    return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}
