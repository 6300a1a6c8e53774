import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/database.ts';
import type { ClickFloodRule } from './click-flood-rule.ts';
import { findClickFloods } from './refund-repository.ts';
import { MAX_REFUND_CLICKS, type RefundResult, refundClicks } from './refund-service.ts';

/**
 * The automatic refund of click floods, after billing: every `sweepMs` it looks at the billed
 * clicks of the last three sweep intervals (clicks settle within a second, or after a crash within
 * about ten; each sweep overlaps the last two, and clicks refunded already are left out), and
 * refunds the clicks beyond the rule's allowance with reason `click_flood`, through the same
 * refund as an operator's. Every instance may run it: a click is refunded once whoever finds it.
 */
export class ClickFloodDetector {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private readonly options: {
    db: Db;
    clock: Clock;
    timeZone: string;
    rule: ClickFloodRule;
    onError(error: unknown): void;
  };

  constructor(options: ClickFloodDetector['options']) {
    this.options = options;
  }

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.sweep()
        .catch(this.options.onError)
        .finally(() => {
          this.running = undefined;
        });
    }, this.options.rule.sweepMs);
    this.timer.unref();
  }

  /** Refunds the click floods of the recent past; undefined when there were none. */
  async sweep(): Promise<RefundResult | undefined> {
    const { db, clock, rule } = this.options;
    const now = clock.now();
    const since = new Date(now - 3 * rule.sweepMs);
    const clickIds = await findClickFloods(db, { since, until: new Date(now + 1) }, rule, MAX_REFUND_CLICKS);
    if (clickIds.length === 0) return undefined;
    return refundClicks(
      db,
      {
        selection: { clickIds },
        reason: 'click_flood',
        comment: `more than ${rule.maxClicks} clicks from one address on one block within ${rule.windowMs / 1000} s`,
        operatorId: null,
        dryRun: false,
      },
      { timeZone: this.options.timeZone, now: new Date(now) },
    );
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
