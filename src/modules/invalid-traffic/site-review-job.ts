import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock } from '../../clock.ts';
import { DatabaseUnavailableError } from '../../db/availability.ts';
import type { Db } from '../../db/database.ts';
import { invalidClicksByReason, openReviewEvidence } from './invalid-traffic-repository.ts';
import { type Evidence, flagSites } from './invalid-traffic-service.ts';
import type { SiteReviewRule } from './sivt-rules.ts';

/** A scrape while the database is away answers the rest of the metrics: these are left as they were. */
async function whileAvailable<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof DatabaseUnavailableError) return undefined;
    throw error;
  }
}

/**
 * Runs the review rule on its interval and reports it: sites flagged (by the reason with most of
 * their invalid clicks), the open queue, and the platform's invalid clicks over the rule's window
 * by outcome and reason. Every instance may run it: a site has one open review whoever flags it.
 */
export class SiteReviewJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private readonly flagged = new Map<string, number>();
  private readonly options: { db: Db; clock: Clock; rule: SiteReviewRule; onError(error: unknown): void };

  constructor(options: SiteReviewJob['options']) {
    this.options = options;
  }

  start(): void {
    if (this.options.rule.intervalMs === 0) return;
    this.timer = setInterval(() => {
      this.running ??= this.evaluate()
        .catch(this.options.onError)
        .finally(() => {
          this.running = undefined;
        });
    }, this.options.rule.intervalMs);
    this.timer.unref();
  }

  /** Flags the sites over the rule now; answers the reviews it opened. */
  async evaluate() {
    const reviews = await flagSites(this.options.db, this.options.rule, new Date(this.options.clock.now()));
    for (const review of reviews) this.flagged.set(review.leadingReason, (this.flagged.get(review.leadingReason) ?? 0) + 1);
    return reviews;
  }

  /** nativa_ivt_sites_flagged_total{reason}, nativa_ivt_open_reviews{reason}, nativa_invalid_clicks{outcome,reason}. */
  registerMetrics(registry: Registry): void {
    const flagged = this.flagged;
    const { db, clock, rule } = this.options;
    new Counter({
      name: 'nativa_ivt_sites_flagged_total',
      help: 'Sites this instance put in the invalid-traffic review queue, by the reason with most of their invalid clicks.',
      labelNames: ['reason'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [reason, count] of flagged) this.inc({ reason }, count);
      },
    });
    new Gauge({
      name: 'nativa_ivt_open_reviews',
      help: 'Sites waiting in the invalid-traffic review queue, by the reason with most of their invalid clicks.',
      labelNames: ['reason'],
      registers: [registry],
      async collect() {
        const counts = new Map<string, number>();
        const open = await whileAvailable(() => openReviewEvidence(db));
        if (open === undefined) return;
        for (const text of open) {
          const evidence = JSON.parse(text) as Evidence;
          const leading = [...evidence].sort((a, b) => b.clicks - a.clicks)[0]?.reason ?? 'bot';
          counts.set(leading, (counts.get(leading) ?? 0) + 1);
        }
        this.reset();
        for (const [reason, count] of counts) this.set({ reason }, count);
      },
    });
    new Gauge({
      name: 'nativa_invalid_clicks',
      help: 'Clicks of the review window (IVT_REVIEW_WINDOW_HOURS) refused on arrival or refunded as invalid, by outcome and reason.',
      labelNames: ['outcome', 'reason'],
      registers: [registry],
      async collect() {
        const now = clock.now();
        const rows = await whileAvailable(() =>
          invalidClicksByReason(db, {}, { from: new Date(now - rule.windowMs), to: new Date(now + 1) }),
        );
        if (rows === undefined) return;
        this.reset();
        for (const row of rows) this.set({ outcome: row.outcome, reason: row.reason }, row.clicks);
      },
    });
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
