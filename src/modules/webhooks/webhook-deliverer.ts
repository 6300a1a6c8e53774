import http from 'node:http';
import https from 'node:https';
import { rootCertificates } from 'node:tls';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/database.ts';
import type { WebhookDeliveryStatus } from '../../db/schema.ts';
import { OutboxWorker } from '../../outbox-worker.ts';
import { recordAudit, SYSTEM_ACTOR } from '../audit/index.ts';
import { notifyInTheirLanguage } from '../notifications/index.ts';
import { guardedLookup, urlRefusal } from './address-guard.ts';
import { SIGNATURE_HEADER, signatureHeader } from './signature.ts';
import {
  type ClaimedDelivery,
  claimDelivery,
  claimDueDeliveries,
  disableFailingEndpoint,
  insertAttempt,
  settleDelivery,
} from './webhook-repository.ts';

/** The part of a pino logger the deliverer writes to. */
export interface DeliveryLog {
  warn(object: object, message: string): void;
}

/** How many due deliveries one round claims; a round repeats while it finds a full batch. */
const BATCH = 50;
/** How many requests the worker has in flight at once. */
const CONCURRENCY = 16;
/** How often the worker looks for due deliveries when nothing woke it (retries, other instances' events). */
const POLL_MS = 1_000;
/** How much of an endpoint's answer the delivery log keeps. */
export const EXCERPT_BYTES = 1_024;
/** Retries after a failed attempt: 1 min, 2, 4, … at most 3 h apart, the last one 24 h after the event. */
const FIRST_RETRY_MS = 60_000;
const LONGEST_RETRY_MS = 3 * 3_600_000;
export const RETRY_WINDOW_MS = 24 * 3_600_000;

/**
 * When to try again after the `attempts`-th failed attempt of a delivery created at `createdAt`,
 * or null when the 24 hours are over (the delivery is then failed).
 */
export function nextRetry(attempts: number, createdAt: number, now: number): Date | null {
  const deadline = createdAt + RETRY_WINDOW_MS;
  if (now >= deadline) return null;
  const delay = Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1));
  return new Date(Math.min(now + delay, deadline));
}

export interface DelivererOptions {
  allowPrivate: boolean;
  /** Extra trusted CA certificates (PEM), besides the public roots. */
  ca: string | undefined;
  timeoutMs: number;
}

interface AttemptResult {
  statusCode: number | null;
  latencyMs: number;
  error: string;
  excerpt: string;
}

/**
 * Delivers webhook events from the outbox tables. Each instance runs one worker; a delivery is
 * claimed with a lease (three times the request timeout) before it is sent, so instances sharing a
 * database never send it at once. A process that dies after the endpoint answered but before the
 * answer was recorded sends it again once the lease is over: delivery is at least once, and
 * receivers deduplicate by event id.
 */
export class WebhookDeliverer {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly options: DelivererOptions;
  /** Connections are kept alive between deliveries; each was opened to an address the guard checked. */
  private readonly agents: { https: https.Agent; http: http.Agent };
  private log: DeliveryLog | undefined;
  private readonly worker: OutboxWorker;

  constructor(db: Db, clock: Clock, options: DelivererOptions) {
    this.db = db;
    this.clock = clock;
    this.options = options;
    const lookup = guardedLookup(options.allowPrivate) as never;
    const common = { keepAlive: true, maxSockets: CONCURRENCY, lookup, timeout: options.timeoutMs };
    this.agents = {
      https: new https.Agent({ ...common, ca: options.ca ? [...rootCertificates, options.ca] : undefined }),
      http: new http.Agent(common),
    };
    this.worker = new OutboxWorker({
      pollMs: POLL_MS,
      runBatch: () => this.deliverBatch(),
      onError: (error) => this.log?.warn({ err: (error as Error).message }, 'the webhook worker could not read its deliveries'),
      // A batch can take the request timeout: a closing instance leaves the rest to the next one.
      finishRoundOnStop: false,
    });
  }

  private get leaseMs(): number {
    return 3 * this.options.timeoutMs;
  }

  start(log: DeliveryLog): void {
    this.log = log;
    this.worker.start();
  }

  /** Asks for a round soon (after a commit that wrote deliveries). */
  wake(): void {
    this.worker.wake();
  }

  /** Resolves when the worker has nothing in hand (tests; shutdown). */
  idle(): Promise<void> {
    return this.worker.idle();
  }

  async close(): Promise<void> {
    await this.worker.stop();
    this.agents.https.destroy();
    this.agents.http.destroy();
  }

  /** One attempt of a delivery now, due or not (a redelivery); undefined when another instance holds it. */
  async deliver(id: number): Promise<WebhookDeliveryStatus | undefined> {
    const now = this.clock.now();
    const delivery = await claimDelivery(this.db, id, new Date(now), new Date(now + this.leaseMs));
    if (delivery === undefined) return undefined;
    return this.attempt(delivery);
  }

  private async deliverBatch(): Promise<boolean> {
    const now = this.clock.now();
    const claimed = await claimDueDeliveries(this.db, new Date(now), new Date(now + this.leaseMs), BATCH);
    await inParallel(claimed, CONCURRENCY, (delivery) => this.attempt(delivery));
    return claimed.length === BATCH;
  }

  private async attempt(delivery: ClaimedDelivery): Promise<WebhookDeliveryStatus> {
    const result = await this.send(delivery);
    const now = this.clock.now();
    const delivered = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const retryAt = delivered ? null : nextRetry(delivery.attempts + 1, delivery.created_at.getTime(), now);
    const status: WebhookDeliveryStatus = delivered ? 'delivered' : retryAt === null ? 'failed' : 'pending';
    // The log line and the outcome are one commit: the fewer commits, the less the worker holds an embedded database.
    await this.db.transaction().execute(async (trx) => {
      await insertAttempt(trx, {
        deliveryId: delivery.id,
        endpointId: delivery.endpoint_id,
        at: new Date(now),
        statusCode: result.statusCode,
        latencyMs: result.latencyMs,
        error: result.error,
        responseExcerpt: result.excerpt,
      });
      await settleDelivery(trx, delivery.id, { status, at: new Date(now), nextAttemptAt: retryAt });
      if (status === 'failed') await this.disableEndpoint(trx, delivery, new Date(now));
    });
    if (!delivered) {
      this.log?.warn(
        { deliveryId: delivery.id, eventId: delivery.event_id, status: result.statusCode, err: result.error, retryAt },
        'a webhook delivery failed',
      );
    }
    return status;
  }

  /**
   * A delivery that failed for a whole day of retries switches its endpoint off (it gets no new
   * events) and tells the endpoint's owner, in the transaction that records the failure; the owner
   * switches it back on after fixing it (docs/webhooks.md).
   */
  private async disableEndpoint(trx: Db, delivery: ClaimedDelivery, now: Date): Promise<void> {
    const endpoint = await disableFailingEndpoint(trx, delivery.endpoint_id, now);
    if (endpoint === undefined) return;
    const change = {
      action: 'webhook.disable',
      objectType: 'webhook',
      objectId: endpoint.id,
      subjectAccountId: endpoint.account_id,
      before: { active: true },
      after: { active: false },
    };
    await recordAudit(trx, SYSTEM_ACTOR, change, now);
    await notifyInTheirLanguage(trx, [
      {
        accountId: endpoint.account_id,
        kind: 'webhook.disabled',
        text: (words) => words('notice.webhookDisabled', { url: endpoint.url }),
        data: { endpointId: endpoint.id, eventId: delivery.event_id },
        now,
      },
    ]);
  }

  private secretsOf(delivery: ClaimedDelivery): string[] {
    const previousInForce =
      delivery.previous_secret !== null &&
      delivery.previous_secret_until !== null &&
      delivery.previous_secret_until.getTime() > this.clock.now();
    return previousInForce && delivery.previous_secret ? [delivery.secret, delivery.previous_secret] : [delivery.secret];
  }

  /** One POST to the endpoint: checked address, no redirects followed, bounded in time and in what is read. */
  private async send(delivery: ClaimedDelivery): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const url = new URL(delivery.url);
    const refusal = await urlRefusal(url, this.options.allowPrivate);
    if (refusal) return { statusCode: null, latencyMs: elapsed(), error: refusal, excerpt: '' };
    const timestamp = Math.floor(this.clock.now() / 1000);
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': 'Nativa-Webhooks/1',
      'Nativa-Event-Id': delivery.event_id,
      'Nativa-Event-Type': delivery.event_type,
      [SIGNATURE_HEADER]: signatureHeader(this.secretsOf(delivery), timestamp, delivery.payload),
    };
    const secure = url.protocol === 'https:';
    const transport = secure ? https : http;
    return new Promise((resolve) => {
      let settled = false;
      // A complete answer leaves its connection to the agent for the next delivery; any other end closes it.
      const finish = (result: Omit<AttemptResult, 'latencyMs'>, complete = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        if (!complete) outgoing.destroy();
        resolve({ ...result, latencyMs: elapsed() });
      };
      const outgoing = transport.request(
        url,
        {
          method: 'POST',
          headers,
          agent: secure ? this.agents.https : this.agents.http,
          timeout: this.options.timeoutMs,
        },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const answer = (complete: boolean) =>
            finish(
              {
                statusCode: response.statusCode ?? null,
                error: statusError(response.statusCode ?? 0),
                excerpt: Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8'),
              },
              complete,
            );
          response.on('data', (chunk: Buffer) => {
            chunks.push(chunk);
            size += chunk.length;
            // Only the excerpt is read: a longer answer is cut off here.
            if (size >= EXCERPT_BYTES) answer(false);
          });
          response.on('end', () => answer(true));
          response.on('error', () => answer(false));
        },
      );
      const deadline = setTimeout(() => finish({ statusCode: null, error: 'timed out', excerpt: '' }), this.options.timeoutMs);
      outgoing.on('timeout', () => finish({ statusCode: null, error: 'timed out', excerpt: '' }));
      outgoing.on('error', (error) => finish({ statusCode: null, error: error.message || String(error), excerpt: '' }));
      outgoing.end(delivery.payload);
    });
  }
}

function statusError(status: number): string {
  if (status >= 200 && status < 300) return '';
  if (status >= 300 && status < 400) return `answered ${status}: redirects are not followed`;
  return `answered ${status}`;
}

/** Runs `work` over `items` with at most `limit` at once. */
async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next];
      next += 1;
      if (item !== undefined) await work(item);
    }
  });
  await Promise.all(lanes);
}
