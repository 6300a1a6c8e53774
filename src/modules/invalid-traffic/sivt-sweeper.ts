import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/database.ts';
import { MAX_REFUND_CLICK_IDS as MAX_REFUND_CLICKS, refundClicks } from '../refunds/index.ts';
import { dayOf } from '../statistics/index.ts';
import {
  blockTrafficOn,
  type ClickRange,
  clickGroups,
  findNetworkMismatches,
  findNoOpportunityClicks,
  findRepeatClicks,
  groupClicks,
  type NetworkGroup,
} from './sivt-repository.ts';
import type { SivtRules } from './sivt-rules.ts';

/**
 * How far back each sweep looks (at least): clicks settle within seconds, or after a crash within
 * minutes; an already refunded click is left out, so overlapping sweeps cost a query, not a refund.
 */
const LOOKBACK_MS = 10 * 60_000;

export type SweptReason = 'no_opportunity' | 'repeat_click' | 'concentration' | 'network_mismatch';

/** What one sweep refunded, by reason. */
export type SweepResult = Record<SweptReason, number>;

export interface SivtSweeperOptions {
  db: Db;
  clock: Clock;
  timeZone: string;
  rules: SivtRules;
  /** Told what each refund took back (the metric nativa_invalid_clicks_total). */
  onRefunded?(reason: SweptReason, clicks: number): void;
  onError(error: unknown): void;
}

/**
 * The after-the-fact rules of invalid traffic (docs/invalid-traffic.md, docs/adr/0050): every
 * `sweepMs` each instance looks at the billed clicks settled since the last sweeps, waits
 * `settleMs` for their views, and refunds those a rule finds invalid through the refund path (so
 * ledgers, statistics and webhooks follow), one refund per rule with its reason. A click is
 * refunded once whichever instance or rule finds it first; the click flood rule runs beside these
 * (refunds/click-flood-detector.ts).
 */
export class SivtSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private readonly options: SivtSweeperOptions;

  constructor(options: SivtSweeperOptions) {
    this.options = options;
  }

  start(): void {
    if (this.options.rules.sweepMs === 0) return;
    this.timer = setInterval(() => {
      this.running ??= this.sweep()
        .catch(this.options.onError)
        .finally(() => {
          this.running = undefined;
        });
    }, this.options.rules.sweepMs);
    this.timer.unref();
  }

  /** Runs every rule over the recent clicks once; returns how many clicks each refunded. */
  async sweep(): Promise<SweepResult> {
    const { clock, rules } = this.options;
    const now = clock.now();
    const until = new Date(now - rules.settleMs);
    const since = new Date(until.getTime() - Math.max(3 * rules.sweepMs, LOOKBACK_MS));
    const range = { since, until };
    const result: SweepResult = { no_opportunity: 0, network_mismatch: 0, repeat_click: 0, concentration: 0 };
    if (rules.noOpportunityMs > 0) {
      const ids = await findNoOpportunityClicks(this.options.db, range, rules.noOpportunityMs, MAX_REFUND_CLICKS);
      result.no_opportunity = await this.refund(
        ids,
        'no_opportunity',
        `clicked within ${rules.noOpportunityMs} ms of being served, never viewable`,
        now,
      );
    }
    if (rules.networkMismatch) {
      const ids = await findNetworkMismatches(this.options.db, range, MAX_REFUND_CLICKS);
      result.network_mismatch = await this.refund(
        ids,
        'network_mismatch',
        'clicked from another country and network than served to',
        now,
      );
    }
    if (rules.repeatClickMax > 0) {
      const rule = { maxClicks: rules.repeatClickMax, windowMs: rules.repeatClickWindowMs };
      const ids = await findRepeatClicks(this.options.db, range, rule, MAX_REFUND_CLICKS);
      result.repeat_click = await this.refund(
        ids,
        'repeat_click',
        `more than ${rules.repeatClickMax} clicks of one visitor on one advertiser within ${rules.repeatClickWindowMs / 1000} s`,
        now,
      );
    }
    if (rules.concentrationZ > 0) result.concentration = await this.concentration(until, now);
    return result;
  }

  /**
   * concentration: a block whose CTR today stands `concentrationZ` standard deviations above the
   * rest of the network's (a binomial z-score: the block's served teasers as trials, the network's
   * CTR as the chance) and whose recent clicks come for `concentrationShare` or more from one /24
   * (/48) or one network: that network's clicks on the block are refunded. Both conditions are
   * needed: a block popular with one ISP's customers is normal, and so is a block with a good CTR.
   */
  private async concentration(until: Date, now: number): Promise<number> {
    const { db, rules, timeZone } = this.options;
    const traffic = await blockTrafficOn(db, dayOf(now, timeZone));
    const totalClicks = traffic.reduce((sum, block) => sum + block.clicks, 0);
    const totalServed = traffic.reduce((sum, block) => sum + block.served, 0);
    const suspicious = traffic.filter((block) => {
      const otherServed = totalServed - block.served;
      if (block.clicks < rules.concentrationMinClicks || block.served === 0 || otherServed <= 0) return false;
      const baseline = Math.max((totalClicks - block.clicks) / otherServed, 1 / otherServed);
      if (baseline >= 1) return false;
      const expected = block.served * baseline;
      const z = (block.clicks - expected) / Math.sqrt(expected * (1 - baseline));
      return z >= rules.concentrationZ;
    });
    if (suspicious.length === 0) return 0;
    const range: ClickRange = { since: new Date(until.getTime() - rules.concentrationWindowMs), until };
    const groups = await clickGroups(
      db,
      range,
      suspicious.map((block) => block.blockId),
    );
    const flagged = groups.filter(
      (group: NetworkGroup) =>
        group.blockClicks >= rules.concentrationMinClicks && group.clicks / group.blockClicks >= rules.concentrationShare,
    );
    let refunded = 0;
    for (const group of flagged) {
      const ids = await groupClicks(db, range, group, MAX_REFUND_CLICKS);
      const what = group.kind === 'address' ? `the network ${group.key}` : `AS${group.key}`;
      refunded += await this.refund(
        ids,
        'concentration',
        `${group.clicks} of block ${group.blockId}'s ${group.blockClicks} clicks from ${what}, CTR far above the network's`,
        now,
      );
    }
    return refunded;
  }

  private async refund(clickIds: string[], reason: SweptReason, comment: string, now: number): Promise<number> {
    if (clickIds.length === 0) return 0;
    const result = await refundClicks(
      this.options.db,
      { selection: { clickIds }, reason, comment, operatorId: null, dryRun: false },
      { timeZone: this.options.timeZone, now: new Date(now) },
    );
    const clicks = result.clickCount;
    if (clicks > 0) this.options.onRefunded?.(reason, clicks);
    return clicks;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
