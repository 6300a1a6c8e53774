import { DatabaseUnavailableError } from '../../../db/availability.ts';
import type { AcceptanceVerdict, IncomingClick } from './acceptance.ts';

interface Waiting {
  click: IncomingClick;
  resolve(verdict: AcceptanceVerdict): void;
  reject(error: unknown): void;
  /** Ends the wait when the acceptance takes longer than its bound. */
  timer: NodeJS.Timeout | undefined;
  /** Its redirect went out without it while its statement was on its way (see `submit`). */
  abandoned: boolean;
}

/**
 * A click whose acceptance did not commit within its bound (CLICK_ACCEPT_TIMEOUT_MS): to its
 * redirect, the database is as good as away, and the click goes unrecorded.
 */
export class ClickAcceptanceTimeout extends DatabaseUnavailableError {
  constructor(timeoutMs: number) {
    super(new Error(`the click's acceptance did not commit within ${timeoutMs} ms (CLICK_ACCEPT_TIMEOUT_MS)`));
    this.name = 'ClickAcceptanceTimeout';
  }
}

/** What became of a batch's clicks whose redirects did not wait for it (ClickBilling withdraws them). */
export interface BatchOutcomes {
  /** Written and still awaited: they are settled. */
  committed(clicks: IncomingClick[], verdicts: AcceptanceVerdict[]): void;
  /** Written after their redirects went out without them (late commits): they must not be billed. */
  committedLate(clicks: IncomingClick[]): void;
  /** The statement failed: whether it committed is unknown when the connection was lost under it. */
  failed(clicks: IncomingClick[]): void;
}

/**
 * Group commit for click acceptance: clicks that arrive while batches are being committed wait and
 * go together into the next statement. Each click's promise settles only after the statement that
 * holds it has committed, so a redirect is never sent for a click that is not durable, while the
 * database sees a few large transactions instead of thousands of small ones.
 *
 * Two batches are in flight at most. Acceptance waits on no row lock, so a second batch commits
 * while the first one's redirects are written; more only split the same clicks into more
 * statements, and measured no faster (docs/adr/0007 has the runs).
 *
 * A click waits at most its bound: a click still queued then is taken out (never written), and
 * one whose statement is already on its way is abandoned, and its batch's outcome reported to
 * `outcomes` so that a late commit is withdrawn rather than billed.
 */
export class ClickBatcher {
  private queue: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;
  private idleWaiters: (() => void)[] = [];
  private readonly accept: (clicks: IncomingClick[]) => Promise<AcceptanceVerdict[]>;
  private readonly outcomes: BatchOutcomes | undefined;
  private readonly maxBatch: number;
  private readonly maxInFlight: number;
  /** Batches sent and the clicks in them, since start (how well group commit is grouping). */
  readonly counts = { batches: 0, clicks: 0 };

  constructor(
    accept: (clicks: IncomingClick[]) => Promise<AcceptanceVerdict[]>,
    options: { maxBatch?: number; maxInFlight?: number; outcomes?: BatchOutcomes } = {},
  ) {
    this.accept = accept;
    this.outcomes = options.outcomes;
    this.maxBatch = options.maxBatch ?? 500;
    this.maxInFlight = options.maxInFlight ?? 2;
  }

  /** The click's verdict once committed; past `timeoutMs` (if given), a ClickAcceptanceTimeout. */
  submit(click: IncomingClick, timeoutMs?: number): Promise<AcceptanceVerdict> {
    return new Promise((resolve, reject) => {
      const waiting: Waiting = { click, resolve, reject, timer: undefined, abandoned: false };
      if (timeoutMs !== undefined) waiting.timer = setTimeout(() => this.giveUp(waiting, timeoutMs), timeoutMs);
      this.queue.push(waiting);
      if (this.scheduled || this.inFlight >= this.maxInFlight) return;
      this.scheduled = true;
      // Sent on the next turn of the event loop, so clicks parsed in the same turn share a batch.
      setImmediate(() => {
        this.scheduled = false;
        this.send();
      });
    });
  }

  private giveUp(waiting: Waiting, timeoutMs: number): void {
    const queued = this.queue.indexOf(waiting);
    if (queued >= 0) this.queue.splice(queued, 1);
    else waiting.abandoned = true;
    waiting.reject(new ClickAcceptanceTimeout(timeoutMs));
    if (queued >= 0) this.noteIdle();
  }

  private send(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.inFlight += 1;
      this.counts.batches += 1;
      this.counts.clicks += batch.length;
      this.accept(batch.map((waiting) => waiting.click)).then(
        (verdicts) => {
          this.report(batch, verdicts);
          this.finish(batch, (waiting, index) => waiting.resolve(verdicts[index] ?? 'duplicate'));
        },
        (error: unknown) => {
          this.outcomes?.failed(batch.map((waiting) => waiting.click));
          this.finish(batch, (waiting) => waiting.reject(error));
        },
      );
    }
  }

  /** Tells `outcomes` which clicks were written for waiting redirects and which too late. */
  private report(batch: Waiting[], verdicts: AcceptanceVerdict[]): void {
    if (this.outcomes === undefined) return;
    const kept: IncomingClick[] = [];
    const keptVerdicts: AcceptanceVerdict[] = [];
    const late: IncomingClick[] = [];
    batch.forEach((waiting, index) => {
      const verdict = verdicts[index] ?? 'duplicate';
      if (!waiting.abandoned) {
        kept.push(waiting.click);
        keptVerdicts.push(verdict);
      } else if (verdict !== 'duplicate') late.push(waiting.click);
    });
    this.outcomes.committed(kept, keptVerdicts);
    if (late.length > 0) this.outcomes.committedLate(late);
  }

  private finish(batch: Waiting[], handOut: (waiting: Waiting, index: number) => void): void {
    this.inFlight -= 1;
    // The next batch first: its statement is on its way while this batch's redirects are written.
    this.send();
    batch.forEach((waiting, index) => {
      clearTimeout(waiting.timer);
      // An abandoned click's promise was settled when its redirect stopped waiting.
      if (!waiting.abandoned) handOut(waiting, index);
    });
    this.noteIdle();
  }

  private noteIdle(): void {
    if (this.inFlight === 0 && this.queue.length === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /** Waits until every submitted click has its verdict. */
  idle(): Promise<void> {
    if (this.inFlight === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}
