import type { ClickOutcome, PendingClick } from './billing.ts';

interface Waiting {
  click: PendingClick;
  resolve(outcome: ClickOutcome): void;
  reject(error: unknown): void;
}

/**
 * Group commit for click billing: clicks that arrive while a batch is being committed wait and go
 * together into the next transaction. Each click's promise settles only after the transaction that
 * holds it has committed, so a redirect is never sent for a click that is not durable, while the
 * database sees a few large transactions instead of thousands of small ones.
 */
export class ClickBatcher {
  private queue: Waiting[] = [];
  private draining: Promise<void> | undefined;
  private readonly bill: (clicks: PendingClick[]) => Promise<ClickOutcome[]>;
  private readonly maxBatch: number;

  constructor(bill: (clicks: PendingClick[]) => Promise<ClickOutcome[]>, maxBatch = 500) {
    this.bill = bill;
    this.maxBatch = maxBatch;
  }

  submit(click: PendingClick): Promise<ClickOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ click, resolve, reject });
      // Started on the next turn of the event loop, so clicks parsed in the same turn share a batch.
      this.draining ??= new Promise<void>((started) => setImmediate(started)).then(() => this.drain());
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const outcomes = await this.bill(batch.map((waiting) => waiting.click));
          batch.forEach((waiting, index) => {
            waiting.resolve(outcomes[index] ?? 'duplicate');
          });
        } catch (error) {
          for (const waiting of batch) waiting.reject(error);
        }
      }
    } finally {
      this.draining = undefined;
    }
  }

  /** Waits until every submitted click is settled. */
  async close(): Promise<void> {
    while (this.draining) await this.draining;
  }
}
