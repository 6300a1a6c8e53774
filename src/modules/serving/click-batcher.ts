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
  private readonly workers = new Set<Promise<void>>();
  private readonly bill: (clicks: PendingClick[]) => Promise<ClickOutcome[]>;
  private readonly maxBatch: number;
  private readonly parallel: number;

  /** `parallel` batches may be in flight at once (useful with a pool of connections). */
  constructor(bill: (clicks: PendingClick[]) => Promise<ClickOutcome[]>, options: { maxBatch?: number; parallel?: number } = {}) {
    this.bill = bill;
    this.maxBatch = options.maxBatch ?? 500;
    this.parallel = options.parallel ?? 1;
  }

  submit(click: PendingClick): Promise<ClickOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ click, resolve, reject });
      if (this.workers.size < this.parallel) {
        // Started on the next turn of the event loop, so clicks parsed in the same turn share a batch.
        const worker: Promise<void> = new Promise<void>((started) => setImmediate(started))
          .then(() => this.drain())
          .finally(() => this.workers.delete(worker));
        this.workers.add(worker);
      }
    });
  }

  private async drain(): Promise<void> {
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
  }

  /** Waits until every submitted click is settled. */
  async close(): Promise<void> {
    while (this.workers.size > 0) await Promise.all(this.workers);
  }
}
