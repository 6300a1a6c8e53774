/** How often a log found unavailable is asked whether it answers again. */
export const LOG_PROBE_INTERVAL_MS = 1000;

export interface LogAvailabilityOptions {
  /** Resolves when JetStream answers for the stream (a leader can store), rejects otherwise. */
  probe(): Promise<void>;
  intervalMs?: number;
  /** The log went away, or came back after `downForMs`. */
  onChange(available: boolean, downForMs: number): void;
  now(): number;
}

/**
 * Whether the event log takes events now. Once a publish fails or the connection to NATS is lost,
 * the requests that follow go straight to the database path instead of each waiting for its
 * PubAck's timeout (seconds, for every click and beacon of a whole outage); a probe in the
 * background brings the log back as soon as JetStream answers for the stream. Events that were
 * already on their way keep their own timeout and fall back as before.
 */
export class LogAvailability {
  private readonly options: LogAvailabilityOptions;
  private downSince: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private probing = false;

  constructor(options: LogAvailabilityOptions) {
    this.options = options;
  }

  get available(): boolean {
    return this.downSince === undefined;
  }

  /** A publish failed or the connection was lost: stop sending to the log and start probing it. */
  markDown(): void {
    if (this.downSince !== undefined) return;
    this.downSince = this.options.now();
    this.options.onChange(false, 0);
    this.timer = setInterval(() => void this.probeNow(), this.options.intervalMs ?? LOG_PROBE_INTERVAL_MS);
    this.timer.unref();
  }

  /** Asks the log at once (the connection came back); the log is used again when it answers. */
  async probeNow(): Promise<void> {
    if (this.downSince === undefined || this.probing) return;
    this.probing = true;
    let timeout: NodeJS.Timeout | undefined;
    try {
      // A probe that hangs (a request buffered while the client reconnects) must not stop the next.
      const deadline = new Promise<never>((_, reject) => {
        timeout = setTimeout(() => reject(new Error('probe timed out')), this.options.intervalMs ?? LOG_PROBE_INTERVAL_MS);
      });
      await Promise.race([this.options.probe(), deadline]);
      const downForMs = this.options.now() - this.downSince;
      this.downSince = undefined;
      clearInterval(this.timer);
      this.options.onChange(true, downForMs);
    } catch {
      // Still away: the next probe asks again.
    } finally {
      clearTimeout(timeout);
      this.probing = false;
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}
