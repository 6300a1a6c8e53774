import type { Clock } from '../../../clock.ts';
import type { Db } from '../../../db/database.ts';
import { findOrCreatePlatformAccount } from '../../ledger/index.ts';
import { type AcceptanceVerdict, acceptClicks, type IncomingClick, withdrawAcceptedClicks } from './acceptance.ts';
import { ClickBatcher } from './click-batcher.ts';
import { ClickSettler } from './click-settler.ts';
import { ClickWithdrawals } from './click-withdrawals.ts';
import { settleLoggedClicks } from './logged-settlement.ts';
import {
  type ClickOutcome,
  type ConversionOutcome,
  findAcceptedClicks,
  type ReportedConversion,
  recordConversion,
  type SettlementSettings,
  settleClicks,
} from './settlement.ts';

/** What a click's redirect meets when its acceptance passes its bound (the engine tells it apart). */
export { ClickAcceptanceTimeout } from './click-batcher.ts';

export interface ClickBillingOptions {
  db: Db;
  clock: Clock;
  timeZone: string;
  revenueSharePercent: number;
  /** Told of every click a settlement recorded, with its outcome (the engine's tally). */
  onSettled(outcome: ClickOutcome): void;
  /**
   * How long a click's redirect waits for its acceptance (CLICK_ACCEPT_TIMEOUT_MS); past it the
   * acceptance fails with ClickAcceptanceTimeout. Undefined: as long as the database takes.
   */
  acceptTimeoutMs?: number;
  /**
   * Told of a click redirected unrecorded whose late acceptance a settlement took before it could
   * be withdrawn, with its status in `clicks` (`billed`: its money moved, once).
   */
  onSettledBeforeWithdrawal(clickId: string, status: string): void;
  /** Told how many late acceptances a withdrawal deleted before any settlement. */
  onWithdrawn?(count: number): void;
  /**
   * How long after a first withdrawal a click whose statement's fate was unknown is withdrawn
   * again: longer than the statement timeout, within which the server runs or cancels it (15 s).
   */
  withdrawalRecheckMs?: number;
  onError(error: unknown, what: string): void;
}

/**
 * Billing of one instance: clicks accepted in group commits on their requests, settled in the
 * background right after (and, at start and on a sweep, those another instance left), and
 * conversions of settled clicks (docs/adr/0031).
 */
export class ClickBilling {
  private readonly options: ClickBillingOptions;
  private readonly acceptance: ClickBatcher;
  private readonly settler: ClickSettler;
  private readonly withdrawals: ClickWithdrawals;
  private platformAccount: Promise<number> | undefined;

  constructor(options: ClickBillingOptions) {
    this.options = options;
    this.settler = new ClickSettler({
      settle: async (clickIds) => {
        const outcomes = await settleClicks(options.db, clickIds, await this.settlementSettings());
        for (const outcome of outcomes.values()) options.onSettled(outcome);
        return outcomes.size;
      },
      // The clicks waiting to be withdrawn are not this instance's to settle.
      findLeftovers: async (beforeMs, limit) =>
        (await findAcceptedClicks(options.db, beforeMs, limit)).filter((id) => !this.withdrawals.has(id)),
      clock: options.clock,
      onError: (error) => options.onError(error, 'settling clicks'),
    });
    this.withdrawals = new ClickWithdrawals({
      withdraw: (clickIds) => withdrawAcceptedClicks(options.db, clickIds),
      onSettledFirst: options.onSettledBeforeWithdrawal,
      onWithdrawn: options.onWithdrawn,
      onError: (error) => options.onError(error, 'withdrawing clicks redirected unrecorded'),
      recheckMs: options.withdrawalRecheckMs,
    });
    const ids = (clicks: readonly IncomingClick[]) => clicks.map((click) => click.claims.clickId);
    this.acceptance = new ClickBatcher((clicks) => acceptClicks(options.db, clicks), {
      outcomes: {
        committed: (clicks, verdicts) => {
          const settle: string[] = [];
          clicks.forEach((click, index) => {
            const id = click.claims.clickId;
            // A link followed again after a redirect that went unrecorded: its redirect now carries
            // the click id, so the row its first acceptance may have written is settled, not withdrawn.
            const withdrawing = this.withdrawals.has(id);
            this.withdrawals.keep(id);
            if (verdicts[index] !== 'duplicate' || withdrawing) settle.push(id);
          });
          this.settler.add(settle);
        },
        committedLate: (clicks) => this.withdrawals.add(ids(clicks)),
        // The connection may have been lost after the commit: what may have been written is withdrawn.
        failed: (clicks) => this.withdrawals.add(ids(clicks), true),
      },
    });
  }

  /** Settles clicks accepted before this start that are still unsettled, then sweeps for them every `sweepMs`. */
  start(sweepMs: number): Promise<void> {
    return this.settler.start(sweepMs);
  }

  /** Accepts a click durably (with the next group commit); its settlement follows in the background. */
  accept(click: IncomingClick): Promise<AcceptanceVerdict> {
    return this.acceptance.submit(click, this.options.acceptTimeoutMs);
  }

  /** Settles a batch of clicks read from the event log (docs/adr/0029), telling onSettled of each. */
  async settleLogged(clicks: readonly IncomingClick[]): Promise<void> {
    const outcomes = await settleLoggedClicks(this.options.db, clicks, await this.settlementSettings());
    for (const outcome of outcomes.values()) this.options.onSettled(outcome);
    // A link followed twice within one settlement is one outcome: the other event is a duplicate.
    for (let repeat = outcomes.size; repeat < clicks.length; repeat += 1) this.options.onSettled('duplicate');
  }

  /** Counts a conversion of a click (settling the click first if it is not yet). */
  async recordConversion(conversion: ReportedConversion): Promise<ConversionOutcome> {
    const { db, clock } = this.options;
    return recordConversion(db, conversion, clock.now(), await this.settlementSettings());
  }

  /** Waits until every click submitted so far is accepted and settled (tests, benchmarks, shutdown). */
  async settled(): Promise<void> {
    await this.acceptance.idle();
    await this.settler.settled();
  }

  /** Acceptance batches and settlements so far, with the clicks in them (group commit at work). */
  get counts(): { acceptance: { batches: number; clicks: number }; settlement: { settlements: number; clicks: number } } {
    return { acceptance: { ...this.acceptance.counts }, settlement: { ...this.settler.counts } };
  }

  /** Settles what was accepted, then stops the sweep. */
  async close(): Promise<void> {
    await this.settled();
    await this.settler.close();
    await this.withdrawals.close().catch((error: unknown) => this.options.onError(error, 'withdrawing clicks at shutdown'));
  }

  private async settlementSettings(): Promise<SettlementSettings> {
    return {
      revenueSharePercent: this.options.revenueSharePercent,
      timeZone: this.options.timeZone,
      platformAccountId: await this.platformAccountId(),
    };
  }

  private platformAccountId(): Promise<number> {
    this.platformAccount ??= findOrCreatePlatformAccount(this.options.db).catch((error: unknown) => {
      this.platformAccount = undefined;
      throw error;
    });
    return this.platformAccount;
  }
}
