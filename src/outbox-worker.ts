export interface OutboxWorkerOptions {
  /** How often a round starts when nothing woke the worker (retries, other instances' rows). */
  pollMs: number;
  /** Claims one batch of due rows and handles it; true when the batch was full, so more may be due. */
  runBatch: () => Promise<boolean>;
  /** A round that threw (the database unreachable for a moment): the next poll tries again. */
  onError: (error: unknown) => void;
  /** Whether a stopped worker still works through the batches of its round in flight. */
  finishRoundOnStop: boolean;
}

/**
 * The background loop of an outbox (mail, webhook deliveries): one round at a time, a round repeats
 * batches while they come back full, `wake()` during a round asks for one more round rather than a
 * second one at once, a timer wakes it every `pollMs` without keeping the process alive, and `stop()`
 * waits for the round in flight.
 */
export class OutboxWorker {
  private readonly options: OutboxWorkerOptions;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private wanted = false;
  private stopped = true;

  constructor(options: OutboxWorkerOptions) {
    this.options = options;
  }

  /** Starts polling; the first round starts at once. */
  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), this.options.pollMs);
    this.timer.unref();
    this.wake();
  }

  /** Asks for a round soon (after a commit that wrote rows to the outbox). */
  wake(): void {
    if (this.stopped) return;
    this.wanted = true;
    if (this.running) return;
    this.running = this.roundsWhileWanted().finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves when the worker has nothing in hand (tests; shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stops polling and waking, then waits for the round in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.idle();
  }

  private async roundsWhileWanted(): Promise<void> {
    while (this.wanted) {
      this.wanted = false;
      try {
        let full: boolean;
        do {
          full = await this.options.runBatch();
        } while (full && (this.options.finishRoundOnStop || !this.stopped));
      } catch (error) {
        this.options.onError(error);
      }
    }
  }
}
