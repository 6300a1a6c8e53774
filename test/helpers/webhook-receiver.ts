import https from 'node:https';
import type { TlsMaterial } from '../../src/tls.ts';

/** One request a receiver got. */
export interface ReceivedWebhook {
  /** The path the request was sent to. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  event: { id: string; type: string; created: string; userId: number | null; data: Record<string, unknown> };
}

/** How the receiver answers a request: a status (and body), after an optional hold. */
export type Answer = { status: number; body?: string; holdMs?: number };

/**
 * A real HTTPS webhook receiver on loopback (the tests' self-signed certificate), recording every
 * request. `answer` decides each response; by default 200.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  answer: (webhook: ReceivedWebhook) => Answer = () => ({ status: 200, body: 'ok' });
  private readonly server: https.Server;
  url = '';

  constructor(tls: TlsMaterial) {
    this.server = https.createServer({ cert: tls.cert, key: tls.key }, (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let event: ReceivedWebhook['event'];
        try {
          event = JSON.parse(body) as ReceivedWebhook['event'];
        } catch {
          response.writeHead(400).end('not JSON');
          return;
        }
        const webhook = { path: request.url ?? '', headers: request.headers, body, event };
        this.received.push(webhook);
        const { status, body: answerBody = '', holdMs = 0 } = this.answer(webhook);
        const reply = () => response.writeHead(status, { 'Content-Type': 'text/plain' }).end(answerBody);
        if (holdMs > 0) setTimeout(reply, holdMs).unref();
        else reply();
      });
    });
  }

  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    const address = this.server.address();
    const actual = typeof address === 'object' && address ? address.port : port;
    this.url = `https://127.0.0.1:${actual}`;
    return this;
  }

  /** The requests that carried events of `type`. */
  ofType(type: string): ReceivedWebhook[] {
    return this.received.filter((webhook) => webhook.event.type === type);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
