import type { Withdrawal } from './acceptance.ts';

/**
 * The clicks this instance redirected unrecorded (their acceptance did not commit within
 * CLICK_ACCEPT_TIMEOUT_MS, or failed) whose statement may have committed anyway: each is withdrawn
 * from `accepted_clicks` before any settlement bills it, retried every `retryMs` while the database
 * does not answer. Until then this instance's sweep leaves them alone (`has`). A click that a
 * settlement took first (another instance's sweep, in the moment between the late commit and the
 * withdrawal) stays settled, once, and is reported to `onSettledFirst`: counted and logged.
 */
export class ClickWithdrawals {
  private readonly pending = new Set<string>();
  /** Of `pending`, those whose statement's fate is unknown (see `add`). */
  private readonly uncertain = new Set<string>();
  /** Withdrawn once, waiting for their second withdrawal. */
  private readonly rechecking = new Set<string>();
  private running: Promise<void> | undefined;
  private readonly withdraw: (clickIds: string[]) => Promise<Withdrawal>;
  private readonly onSettledFirst: (clickId: string, status: string) => void;
  private readonly onWithdrawn: (count: number) => void;
  private readonly onError: (error: unknown) => void;
  private readonly retryMs: number;
  private readonly recheckMs: number;
  private closed = false;

  constructor(options: {
    /** Deletes these accepted clicks; says how many it deleted and which were already settled. */
    withdraw(clickIds: string[]): Promise<Withdrawal>;
    onSettledFirst(clickId: string, status: string): void;
    /** Accepted rows deleted: late commits that would otherwise have been billed. */
    onWithdrawn?(count: number): void;
    onError(error: unknown): void;
    retryMs?: number;
    /** How long after a first withdrawal an uncertain one is withdrawn again (see `add`). */
    recheckMs?: number;
  }) {
    this.withdraw = options.withdraw;
    this.onSettledFirst = options.onSettledFirst;
    this.onWithdrawn = options.onWithdrawn ?? (() => undefined);
    this.onError = options.onError;
    this.retryMs = options.retryMs ?? 1000;
    this.recheckMs = options.recheckMs ?? 15_000;
  }

  /**
   * Withdraws these clicks. `uncertain`: their statement failed, and if it was left unanswered on
   * a connection now closed, the server may still run it when it answers again; so they are
   * withdrawn once more `recheckMs` after the first withdrawal went through, by which time the
   * server has run or cancelled it (the statement timeout).
   */
  add(clickIds: readonly string[], uncertain = false): void {
    if (clickIds.length === 0) return;
    for (const id of clickIds) {
      this.pending.add(id);
      if (uncertain) this.uncertain.add(id);
    }
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
    });
  }

  /** Whether this click is waiting to be withdrawn (no settlement of this instance may take it). */
  has(clickId: string): boolean {
    return this.pending.has(clickId) || this.rechecking.has(clickId);
  }

  /**
   * The click was accepted again for a redirect that waited (its link followed once more): it
   * is no longer this instance's to withdraw.
   */
  keep(clickId: string): void {
    this.pending.delete(clickId);
    this.uncertain.delete(clickId);
    this.rechecking.delete(clickId);
  }

  private async drain(): Promise<void> {
    let failing = false;
    while (this.pending.size > 0 && !this.closed) {
      const clickIds = [...this.pending].slice(0, 1000);
      try {
        const { withdrawn, settled } = await this.withdraw(clickIds);
        failing = false;
        for (const id of clickIds) this.pending.delete(id);
        this.report(withdrawn, settled);
        this.recheck(clickIds.filter((id) => this.uncertain.delete(id) && !settled.some((row) => row.click_id === id)));
      } catch (error) {
        // Reported once while the database stays away, not on every retry.
        if (!failing) this.onError(error);
        failing = true;
        await new Promise((resolve) => setTimeout(resolve, this.retryMs).unref());
      }
    }
  }

  private report(withdrawn: number, settled: Withdrawal['settled']): void {
    if (withdrawn > 0) this.onWithdrawn(withdrawn);
    for (const row of settled) this.onSettledFirst(row.click_id, row.status);
  }

  private recheck(clickIds: string[]): void {
    if (clickIds.length === 0 || this.closed) return;
    for (const id of clickIds) this.rechecking.add(id);
    const timer = setTimeout(() => {
      const again = clickIds.filter((id) => this.rechecking.delete(id));
      if (!this.closed) this.add(again);
    }, this.recheckMs);
    timer.unref();
  }

  /** One last attempt for what is pending, then no more retries (shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    await this.running;
    if (this.pending.size === 0 && this.rechecking.size === 0) return;
    const clickIds = [...this.pending, ...this.rechecking];
    const { withdrawn, settled } = await this.withdraw(clickIds);
    this.pending.clear();
    this.rechecking.clear();
    this.report(withdrawn, settled);
  }
}
