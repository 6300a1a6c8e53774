import type { Clock } from '../../../clock.ts';

/**
 * Settles the clicks this instance accepted, in the background, one settlement at a time. A
 * settlement starts `intervalMs` after the previous one ended, or at once when `maxBatch` clicks
 * are waiting, and takes every click accepted meanwhile: under load settlements grow instead of
 * multiplying, and each account and rollup row is written once per settlement, which is why a
 * pause between settlements bills more clicks than settling continuously (docs/adr/0007 has the
 * runs). `settled()` settles what is waiting without that pause.
 *
 * It also sweeps up accepted clicks that no instance is settling: all of them when it starts
 * (those of a process that stopped before settling them), later those older than `leftoverAgeMs`
 * (an instance that died, or a settlement that failed).
 */
export class ClickSettler {
  private queue: string[] = [];
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private hurry = 0;
  private wake: (() => void) | undefined;
  private waitingForInterval = false;
  private readonly settle: (clickIds: string[]) => Promise<number>;
  private readonly findLeftovers: (beforeMs: number | undefined, limit: number) => Promise<string[]>;
  private readonly clock: Clock;
  private readonly onError: (error: unknown) => void;
  private readonly intervalMs: number;
  private readonly maxBatch: number;
  private readonly leftoverAgeMs: number;
  /** Settlements run and the clicks they took, since start. */
  readonly counts = { settlements: 0, clicks: 0 };

  constructor(options: {
    /** Settles these clicks (those still accepted); returns how many it took. */
    settle(clickIds: string[]): Promise<number>;
    /** Accepted click ids older than `beforeMs` (any age when undefined), at most `limit`, oldest first. */
    findLeftovers(beforeMs: number | undefined, limit: number): Promise<string[]>;
    /** The source of time for the age of leftovers (the application's clock). */
    clock: Clock;
    onError(error: unknown): void;
    intervalMs?: number;
    maxBatch?: number;
    leftoverAgeMs?: number;
  }) {
    this.settle = options.settle;
    this.findLeftovers = options.findLeftovers;
    this.clock = options.clock;
    this.onError = options.onError;
    this.intervalMs = options.intervalMs ?? 100;
    this.maxBatch = options.maxBatch ?? 2000;
    this.leftoverAgeMs = options.leftoverAgeMs ?? 10_000;
  }

  /** Settles every accepted click left over from before, then sweeps every `sweepMs`. */
  async start(sweepMs: number): Promise<void> {
    for (;;) {
      const leftovers = await this.findLeftovers(undefined, this.maxBatch);
      const before = this.counts.clicks;
      this.add(leftovers);
      await this.settled();
      // Fewer than a batch: that was all. None taken: they fail to settle; the sweeps try again.
      if (leftovers.length < this.maxBatch || this.counts.clicks === before) break;
    }
    this.timer = setInterval(() => {
      this.findLeftovers(this.clock.now() - this.leftoverAgeMs, this.maxBatch).then(
        (leftovers) => this.add(leftovers),
        this.onError,
      );
    }, sweepMs);
    this.timer.unref();
  }

  /** Whether queued clicks wait for the interval before they are settled (tests look at it). */
  get pausing(): boolean {
    return this.waitingForInterval;
  }

  /** Queues clicks this instance has just accepted. */
  add(clickIds: readonly string[]): void {
    if (clickIds.length === 0) return;
    for (const id of clickIds) this.queue.push(id);
    if (this.queue.length >= this.maxBatch) this.wake?.();
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      await this.pause();
      const clickIds = this.queue.splice(0, this.maxBatch);
      try {
        const taken = await this.settle(clickIds);
        this.counts.settlements += 1;
        this.counts.clicks += taken;
      } catch (error) {
        // The clicks stay accepted in the database; a later sweep settles them.
        this.onError(error);
      }
    }
  }

  /** Waits `intervalMs`, unless a full settlement is waiting or someone waits for `settled()`. */
  private pause(): Promise<void> {
    if (this.hurry > 0 || this.queue.length >= this.maxBatch || this.intervalMs <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        this.waitingForInterval = false;
        resolve();
      };
      const timer = setTimeout(done, this.intervalMs);
      this.wake = done;
      this.waitingForInterval = true;
    });
  }

  /** Settles every queued click now and waits until that is done. */
  async settled(): Promise<void> {
    this.hurry += 1;
    this.wake?.();
    try {
      while (this.running !== undefined) await this.running;
    } finally {
      this.hurry -= 1;
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.settled();
  }
}
