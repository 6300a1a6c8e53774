import type { ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { durableOf, type EventKind } from './event-stream.ts';

/** A settlement that failed (database away) returns its events for redelivery after this long at most. */
const MAX_RETRY_DELAY_MS = 10_000;
const FAILURE_PAUSE_MS = 500;
const PULL_EXPIRES_MS = 5_000;

export interface EventConsumerOptions<T> {
  js: JetStreamClient;
  stream: string;
  kind: EventKind;
  /** Reads a message's events (a batch's, or an older message's one); none when it is not ours (it is then dropped). */
  decode(data: Uint8Array): T[];
  /** Writes a batch of events to the database in its own transactions; resolves after the commit. */
  settle(events: T[]): Promise<void>;
  /** Called between a batch's commit and its acknowledgement (the crash test kills the process there). */
  afterCommit?(): void;
  onError(error: unknown): void;
  /** Events per settlement, at most (unless one message holds more). */
  maxBatch?: number;
  /** How long a settlement waits for more events to join it, unless a full batch is waiting. */
  gatherMs?: number;
}

/** Bytes of messages pulled ahead of the settlements: thousands of events, batched or not. */
const PULL_MAX_BYTES = 4 * 1024 * 1024;

interface Delivered<T> {
  message: JsMsg;
  events: T[];
}

/**
 * Settles one kind of logged event from its durable pull consumer: messages (each a batch of
 * events, or one event) are pulled continuously, their events gathered into settlements, settled,
 * and the messages acknowledged only after the settlement committed. A process
 * that dies between the commit and the acknowledgement has its events delivered again (after the
 * consumer's ack wait) to whichever instance pulls next, and the settlement, idempotent by each
 * event's id, changes nothing the second time. A failed settlement hands its events back with a
 * delay that grows with their deliveries.
 */
export class EventConsumer<T> {
  private queue: Delivered<T>[] = [];
  private queuedEvents = 0;
  private messages: ConsumerMessages | undefined;
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private stopped = false;
  private readonly options: EventConsumerOptions<T>;
  private readonly maxBatch: number;
  private readonly gatherMs: number;
  /** Settlements committed and the events in them, since start. */
  readonly counts = { settlements: 0, events: 0 };

  constructor(options: EventConsumerOptions<T>) {
    this.options = options;
    this.maxBatch = options.maxBatch ?? 2000;
    this.gatherMs = options.gatherMs ?? 20;
  }

  async start(): Promise<void> {
    const { js, stream, kind } = this.options;
    const consumer = await js.consumers.get(stream, durableOf(kind));
    this.messages = await consumer.consume({
      max_bytes: PULL_MAX_BYTES,
      // A pull waits at most this long: when the consumer's leader is lost (a NATS node dies), the
      // client notices missed heartbeats (half of this) and pulls again from the new leader within
      // seconds, not the library's default 30 s during which nothing would settle.
      expires: PULL_EXPIRES_MS,
      callback: (message) => this.add(message),
    });
  }

  private add(message: JsMsg): void {
    if (this.stopped) {
      // Delivered while the instance shuts down: handed back at once, so another instance (or this
      // one after its restart) settles it now rather than after the ack wait.
      try {
        message.nak();
      } catch (error) {
        this.options.onError(error);
      }
      return;
    }
    const events = this.options.decode(message.data);
    if (events.length === 0) {
      message.term();
      return;
    }
    this.queue.push({ message, events });
    this.queuedEvents += events.length;
    if (this.queuedEvents >= this.maxBatch) this.wake?.();
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      await this.gather();
      const { events, kept } = this.take();
      try {
        await this.options.settle(events);
      } catch (error) {
        this.options.onError(error);
        for (const message of kept) message.nak(Math.min(1000 * message.info.deliveryCount, MAX_RETRY_DELAY_MS));
        // Not a loop of failures while the database is away: the next batch waits a little.
        await new Promise((resolve) => setTimeout(resolve, FAILURE_PAUSE_MS));
        continue;
      }
      this.options.afterCommit?.();
      try {
        for (const message of kept) message.ack();
      } catch (error) {
        // The connection closed under the batch: its events come again after the ack wait, and
        // their second settlement changes nothing.
        this.options.onError(error);
      }
      this.counts.settlements += 1;
      this.counts.events += events.length;
    }
  }

  /** Takes whole messages from the queue, up to `maxBatch` events (at least one message). */
  private take(): { events: T[]; kept: JsMsg[] } {
    let count = 0;
    let size = 0;
    for (const next of this.queue) {
      if (count > 0 && size + next.events.length > this.maxBatch) break;
      count += 1;
      size += next.events.length;
    }
    const events: T[] = [];
    const kept: JsMsg[] = [];
    for (const taken of this.queue.splice(0, count)) {
      kept.push(taken.message);
      for (const event of taken.events) events.push(event);
    }
    this.queuedEvents -= size;
    return { events, kept };
  }

  /** Waits `gatherMs` for more events, unless a full batch is already waiting or the consumer stops. */
  private gather(): Promise<void> {
    if (this.queuedEvents >= this.maxBatch || this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.gatherMs);
      this.wake = done;
    });
  }

  /** Stops pulling and settles what was delivered; what is left unacknowledged is delivered again later. */
  async close(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.messages?.close().catch(this.options.onError);
    while (this.running !== undefined) await this.running;
  }
}
