import type { Db } from '../../../db/database.ts';
import type { DeviceId, TrafficEvent } from '../../statistics/index.ts';
import { recordEvents } from '../../statistics/index.ts';
import { claimImpressions, forgetExpiredImpressions } from './tracking-repository.ts';
import { VIEW_TOKEN_SKEW_MS, type ViewClaims } from './view-token.ts';

/** Expired ids are deleted from the seen-set at most this often (one indexed DELETE). */
const PURGE_EVERY_MS = 60_000;
/**
 * Every time zone's offset from UTC is a whole number of quarter hours, so teasers served within
 * one UTC quarter hour share their local day and hour: their views go to the same rollup rows.
 */
const QUARTER_HOUR_MS = 15 * 60_000;

export interface ImpressionBufferOptions {
  db: Db;
  timeZone: string;
  /** Lifetime of an impression token: its id is kept in the seen-set that long (plus the skew allowed). */
  tokenTtlMs: number;
  now(): number;
  /**
   * Called after each committed flush with the views it counted (each token once, ever) and how
   * many beacons' tokens were found already counted; the flush waits for it (frequency caps).
   */
  onFlushed(counted: readonly ViewClaims[], replayed: number): Promise<void>;
  /**
   * A flush failed after the last one succeeded (the database went away): called once per run of
   * failures, not on each flush of it, so an outage is one warning.
   */
  onError(error: unknown): void;
  /** Every failed flush, counted (the metric), whether or not it was reported. */
  onFailedFlush?(): void;
  /** The first flush that succeeded after failures: how many failed and for how long. */
  onRecovered?(recovery: FlushRecovery): void;
}

export interface FlushRecovery {
  failedFlushes: number;
  /** From the first failure to the success. */
  failingForMs: number;
  /** Distinct served-teaser rows and views this flush wrote, held in memory meanwhile. */
  written: number;
}

/**
 * Served teasers and viewable views are counted in memory and written to the rollup in one
 * transaction per flush (at least every second, and on shutdown). A crash loses at most the counts
 * of the last interval; money never waits here (clicks are committed before their redirect).
 *
 * A view is a verified impression token from a beacon. The flush claims the tokens' ids in the
 * seen-set (`viewed_impressions`, unique key) in the same transaction as it adds their views, so a
 * token counts once across every instance sharing the database, and a failed flush neither counts
 * nor claims anything (its batch is put back and tried again). Only the views so claimed are
 * handed on (onFlushed) to count toward frequency caps, so a replayed beacon never counts twice.
 */
export class ImpressionBuffer {
  private served = new Map<string, TrafficEvent>();
  private views = new Map<string, ViewClaims>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private purgedAt = Number.NEGATIVE_INFINITY;
  /** The current run of failed flushes: when it began and how long it is; undefined while flushes succeed. */
  private failing: { since: number; flushes: number } | undefined;
  private readonly options: ImpressionBufferOptions;

  constructor(options: ImpressionBufferOptions) {
    this.options = options;
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => {
      this.flush().catch(() => undefined);
    }, intervalMs);
    this.timer.unref();
  }

  /** Counts one served teaser; events with the same rollup key (and day) are summed until the flush. */
  add(event: Omit<TrafficEvent, 'views' | 'served'>, day: string): void {
    // The block determines the site and the ad its campaign: these four and the day make the rollup key.
    const key = `${day}${event.offerId}|${event.blockId}|${event.device}${event.country ?? ''}`;
    const existing = this.served.get(key);
    if (existing === undefined) this.served.set(key, { ...event, served: 1 });
    else existing.served = (existing.served ?? 0) + 1;
  }

  /**
   * Queues the view of a verified token. False when the same token already waits in this buffer
   * (a replay caught before the database sees it).
   */
  addView(claims: ViewClaims): boolean {
    if (this.views.has(claims.impressionId)) return false;
    this.views.set(claims.impressionId, claims);
    return true;
  }

  get size(): number {
    return this.served.size + this.views.size;
  }

  /**
   * Writes what is pending; flushes never overlap, and a failed batch is put back. A failure is
   * reported (onError) when it starts a run of failures, and the run's end (onRecovered) once.
   */
  flush(): Promise<void> {
    this.flushing = this.flushing
      .catch(() => undefined)
      .then(async () => {
        if (this.served.size === 0 && this.views.size === 0) return;
        const served = this.served;
        const views = this.views;
        this.served = new Map();
        this.views = new Map();
        let counted: ViewClaims[];
        try {
          counted = await this.write(served, views);
        } catch (error) {
          this.putBack(served, views);
          this.options.onFailedFlush?.();
          if (this.failing === undefined) {
            this.failing = { since: this.options.now(), flushes: 0 };
            this.options.onError(error);
          }
          this.failing.flushes += 1;
          throw error;
        }
        if (this.failing !== undefined) {
          const { since, flushes } = this.failing;
          this.failing = undefined;
          this.options.onRecovered?.({
            failedFlushes: flushes,
            failingForMs: this.options.now() - since,
            written: served.size + views.size,
          });
        }
        // After the commit, never put back: what onFlushed does with a view happens once at most.
        await this.options.onFlushed(counted, views.size - counted.length);
      });
    return this.flushing;
  }

  /** One transaction: claim the views' ids, then add the served teasers and the claimed views. Returns the views counted. */
  private async write(served: Map<string, TrafficEvent>, views: Map<string, ViewClaims>): Promise<ViewClaims[]> {
    const now = this.options.now();
    const purge = now - this.purgedAt >= PURGE_EVERY_MS;
    const expiresAt = seenUntil(now, this.options.tokenTtlMs);
    const counted = await this.options.db.transaction().execute(async (trx) => {
      if (purge) await forgetExpiredImpressions(trx, new Date(now));
      return countViews(trx, [...views.values()], [...served.values()], { timeZone: this.options.timeZone, expiresAt });
    });
    if (purge) this.purgedAt = now;
    return counted;
  }

  private putBack(served: Map<string, TrafficEvent>, views: Map<string, ViewClaims>): void {
    for (const [key, event] of served) {
      const existing = this.served.get(key);
      if (existing === undefined) this.served.set(key, event);
      else existing.served = (existing.served ?? 0) + (event.served ?? 0);
    }
    for (const [id, claims] of views) this.views.set(id, claims);
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}

/**
 * An id must be kept while its token still verifies: until it was issued plus the TTL, where a
 * token may be stamped up to the skew ahead of this clock, and the purging instance's clock may run
 * up to the skew ahead as well. One expiry for a whole batch covers all of them.
 */
export function seenUntil(nowMs: number, tokenTtlMs: number): Date {
  return new Date(nowMs + tokenTtlMs + 2 * VIEW_TOKEN_SKEW_MS);
}

/**
 * Counts views once each, in the caller's transaction: claims their ids in the seen-set and adds
 * the views of the ids it claimed (with `served`, the served teasers' counts) to the rollup.
 * Returns the views counted. Both paths use it: the buffer's flush, and the settlement of views
 * from the event log, where a batch delivered again after its commit finds every id claimed.
 */
export async function countViews(
  trx: Db,
  views: readonly ViewClaims[],
  served: readonly TrafficEvent[],
  options: { timeZone: string; expiresAt: Date },
): Promise<ViewClaims[]> {
  // One view per id: a batch of logged events may hold an event twice (delivered again while its
  // first delivery still waited), and the claim reports an id given twice as seen for both.
  const unique = [...new Map(views.map((view) => [view.impressionId, view])).values()];
  const replayed = await claimImpressions(
    trx,
    unique.map((view) => view.impressionId),
    options.expiresAt,
  );
  const fresh = unique.filter((view) => !replayed.has(view.impressionId));
  // A view is counted on the day its teaser was served, in the place it was served, so that a
  // day's views never exceed its served teasers.
  const events = [...served, ...viewEvents(fresh)];
  if (events.length > 0) await recordEvents(trx, events, options.timeZone);
  return fresh;
}

/**
 * The views of claimed tokens as rollup events, one per place and quarter hour they were served
 * in rather than one per view: the rollup rows they add to are the same, and a flush of thousands
 * of views then costs the statistics' key building (per event and summary shape) a few times over,
 * not thousands of times, while the beacons it holds up wait.
 */
function viewEvents(claims: readonly ViewClaims[]): TrafficEvent[] {
  const events = new Map<string, TrafficEvent>();
  for (const claim of claims) {
    const key = `${Math.floor(claim.issuedAt / QUARTER_HOUR_MS)}|${claim.offerId}|${claim.blockId}|${claim.device}|${claim.country}`;
    const event = events.get(key);
    if (event !== undefined) event.views = (event.views ?? 0) + 1;
    else
      events.set(key, {
        at: claim.issuedAt,
        campaignId: claim.campaignId,
        offerId: claim.offerId,
        siteId: claim.siteId,
        blockId: claim.blockId,
        device: claim.device as DeviceId,
        country: claim.country,
        views: 1,
      });
  }
  return [...events.values()];
}
