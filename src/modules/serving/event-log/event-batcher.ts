import { randomBytes } from 'node:crypto';

/** How long, how many and how big: a batch goes out when the first of these is reached. */
export interface BatchWindow {
  /** Longest an event waits for others to join its batch (a lone click waits this much extra). */
  maxWaitMs: number;
  /** Events in one batch, at most. */
  maxEvents: number;
  /** Bytes of event text in one batch, at most (well under NATS's max_payload, 1 MiB by default). */
  maxBytes: number;
}

export const DEFAULT_BATCH_WINDOW: BatchWindow = { maxWaitMs: 2, maxEvents: 1000, maxBytes: 512 * 1024 };

/** Runs `flush` after `ms`; returns what cancels it. Tests pass their own to hold a window open. */
export type Schedule = (flush: () => void, ms: number) => () => void;

const timerSchedule: Schedule = (flush, ms) => {
  const timer = setTimeout(flush, ms);
  return () => clearTimeout(timer);
};

/** Sends one batch as one message under `messageId`; resolves on its PubAck. */
export type SendBatch = (body: string, messageId: string) => Promise<void>;

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Gathers the events of concurrent requests into one message (docs/adr/0036): each request adds
 * its events (already JSON text) and waits; the batch is sent when the window closes or it is full,
 * and every request in it is released by the batch's one PubAck, or fails with the batch's error.
 * The body is `{"events":[…]}`; its message id is this batcher's random id and a sequence number,
 * so a publish the client retries is stored once, while the events in it are told apart by their
 * own ids at settlement.
 */
export class EventBatcher {
  private parts: string[] = [];
  private bytes = 0;
  private waiters: Waiter[] = [];
  private cancel: (() => void) | undefined;
  private sequence = 0;
  private readonly prefix: string;
  private readonly send: SendBatch;
  private readonly window: BatchWindow;
  private readonly schedule: Schedule;
  /** Batches sent and the events in them, since start. */
  readonly counts = { batches: 0, events: 0 };

  constructor(kind: string, send: SendBatch, window: BatchWindow = DEFAULT_BATCH_WINDOW, schedule: Schedule = timerSchedule) {
    this.prefix = `${kind}s:${randomBytes(9).toString('base64url')}.`;
    this.send = send;
    this.window = window;
    this.schedule = schedule;
  }

  /** Adds one request's events (JSON texts); resolves once the batch holding them is stored. */
  add(events: readonly string[]): Promise<void> {
    let size = 0;
    for (const event of events) size += event.length + 1;
    if (this.parts.length > 0 && this.bytes + size > this.window.maxBytes) this.flush();
    for (const event of events) this.parts.push(event);
    this.bytes += size;
    const stored = new Promise<void>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
    });
    if (this.parts.length >= this.window.maxEvents || this.bytes >= this.window.maxBytes) this.flush();
    else this.cancel ??= this.schedule(() => this.flush(), this.window.maxWaitMs);
    return stored;
  }

  /** Sends what is gathered now (the window's end, a full batch, or shutdown). */
  flush(): void {
    this.cancel?.();
    this.cancel = undefined;
    if (this.parts.length === 0) return;
    const body = `{"events":[${this.parts.join(',')}]}`;
    const waiters = this.waiters;
    this.counts.batches += 1;
    this.counts.events += this.parts.length;
    this.parts = [];
    this.bytes = 0;
    this.waiters = [];
    this.sequence += 1;
    this.send(body, this.prefix + this.sequence).then(
      () => {
        for (const waiter of waiters) waiter.resolve();
      },
      (error: unknown) => {
        for (const waiter of waiters) waiter.reject(error);
      },
    );
  }
}

/**
 * The events of one message: a batch's (`{"events":[…]}`), or the one event of a message published
 * before batches (an upgrade finds those still in the stream). Events that fail `isEvent`, and
 * text that is not JSON, are left out.
 */
export function decodeEvents<T>(data: Uint8Array, isEvent: (value: Record<string, unknown>) => boolean): T[] {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));
  } catch {
    return [];
  }
  if (!isObject(value)) return [];
  const candidates = Array.isArray(value.events) ? (value.events as unknown[]) : [value];
  return candidates.filter((event): event is T => isObject(event) && isEvent(event));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
