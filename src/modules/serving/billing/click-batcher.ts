import type { AcceptanceVerdict, IncomingClick } from './acceptance.ts';

interface Waiting {
  click: IncomingClick;
  resolve(verdict: AcceptanceVerdict): void;
  reject(error: unknown): void;
}

/**
 * Group commit for click acceptance: clicks that arrive while batches are being committed wait and
 * go together into the next statement. Each click's promise settles only after the statement that
 * holds it has committed, so a redirect is never sent for a click that is not durable, while the
 * database sees a few large transactions instead of thousands of small ones.
 *
 * Two batches are in flight at most. Acceptance waits on no row lock, so a second batch commits
 * while the first one's redirects are written; more only split the same clicks into more
 * statements, and measured no faster (docs/adr/0007 has the runs).
 */
export class ClickBatcher {
  private queue: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;
  private idleWaiters: (() => void)[] = [];
  private readonly accept: (clicks: IncomingClick[]) => Promise<AcceptanceVerdict[]>;
  private readonly maxBatch: number;
  private readonly maxInFlight: number;
  /** Batches sent and the clicks in them, since start (how well group commit is grouping). */
  readonly counts = { batches: 0, clicks: 0 };

  constructor(
    accept: (clicks: IncomingClick[]) => Promise<AcceptanceVerdict[]>,
    options: { maxBatch?: number; maxInFlight?: number } = {},
  ) {
    this.accept = accept;
    this.maxBatch = options.maxBatch ?? 500;
    this.maxInFlight = options.maxInFlight ?? 2;
  }

  submit(click: IncomingClick): Promise<AcceptanceVerdict> {
    return new Promise((resolve, reject) => {
      this.queue.push({ click, resolve, reject });
      if (this.scheduled || this.inFlight >= this.maxInFlight) return;
      this.scheduled = true;
      // Sent on the next turn of the event loop, so clicks parsed in the same turn share a batch.
      setImmediate(() => {
        this.scheduled = false;
        this.send();
      });
    });
  }

  private send(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.inFlight += 1;
      this.counts.batches += 1;
      this.counts.clicks += batch.length;
      this.accept(batch.map((waiting) => waiting.click)).then(
        (verdicts) => this.finish(batch, (waiting, index) => waiting.resolve(verdicts[index] ?? 'duplicate')),
        (error: unknown) => this.finish(batch, (waiting) => waiting.reject(error)),
      );
    }
  }

  private finish(batch: Waiting[], handOut: (waiting: Waiting, index: number) => void): void {
    this.inFlight -= 1;
    // The next batch first: its statement is on its way while this batch's redirects are written.
    this.send();
    batch.forEach(handOut);
    if (this.inFlight === 0 && this.queue.length === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /** Waits until every submitted click has its verdict. */
  idle(): Promise<void> {
    if (this.inFlight === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}
