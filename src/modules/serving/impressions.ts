import type { Db } from '../../db/database.ts';
import { recordEvents, type TrafficEvent } from '../statistics/record-events.ts';

/**
 * Views are counted in memory and written to the rollup in one transaction per flush (at least
 * every second, and on shutdown). A crash loses at most the views of the last interval; money
 * never waits here (clicks are committed before their redirect).
 */
export class ImpressionBuffer {
  private pending = new Map<string, TrafficEvent>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private readonly db: Db;
  private readonly timeZone: string;
  private readonly onError: (error: unknown) => void;

  constructor(db: Db, timeZone: string, onError: (error: unknown) => void) {
    this.db = db;
    this.timeZone = timeZone;
    this.onError = onError;
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => {
      this.flush().catch(this.onError);
    }, intervalMs);
    this.timer.unref();
  }

  /** Counts one view; events with the same rollup key (and day) are summed until the flush. */
  add(event: Omit<TrafficEvent, 'views' | 'served'>, day: string): void {
    // The block determines the site and the ad its campaign: these four and the day make the rollup key.
    const key = `${day}${event.offerId}|${event.blockId}|${event.device}${event.country ?? ''}`;
    const existing = this.pending.get(key);
    if (existing === undefined) this.pending.set(key, { ...event, views: 1, served: 1 });
    else {
      existing.views = (existing.views ?? 0) + 1;
      existing.served = (existing.served ?? 0) + 1;
    }
  }

  get size(): number {
    return this.pending.size;
  }

  /** Writes what is pending; flushes never overlap, and a failed batch is put back. */
  flush(): Promise<void> {
    this.flushing = this.flushing
      .catch(() => undefined)
      .then(async () => {
        if (this.pending.size === 0) return;
        const batch = this.pending;
        this.pending = new Map();
        try {
          await this.db.transaction().execute((trx) => recordEvents(trx, [...batch.values()], this.timeZone));
        } catch (error) {
          for (const [key, event] of batch) {
            const existing = this.pending.get(key);
            if (existing === undefined) this.pending.set(key, event);
            else {
              existing.views = (existing.views ?? 0) + (event.views ?? 0);
              existing.served = (existing.served ?? 0) + (event.served ?? 0);
            }
          }
          throw error;
        }
      });
    return this.flushing;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
