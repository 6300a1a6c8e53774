import type { Clock } from '../../../clock.ts';
import { readChangeCounter } from '../../../db/change-counters.ts';
import type { Db } from '../../../db/database.ts';
import { dayOf } from '../../statistics/index.ts';
import { buildSnapshot, emptySnapshot, refreshSpend } from './build-snapshot.ts';
import type { Snapshot } from './snapshot.ts';

/** A full rebuild at least this often, even when nothing changed: CTR estimates move with traffic. */
const FULL_REBUILD_MS = 30_000;

export interface SnapshotKeeperOptions {
  db: Db;
  clock: Clock;
  timeZone: string;
  onError(error: unknown, what: string): void;
  /**
   * Spend the database does not know yet (the event log's unsettled clicks, docs/adr/0029): told
   * to forget what is settled before a refresh reads, and added to the snapshot after it.
   */
  unsettled?: {
    forgetSettled(db: Db, day: string): Promise<void>;
    applyTo(snapshot: Snapshot): void;
  };
}

/**
 * The snapshot's lifecycle on one instance: the first build, the periodic refresh (a rebuild or
 * only spend), and refreshes asked for by tests and benchmarks, one after another.
 */
export class SnapshotKeeper {
  /** The snapshot serving selects from now; replaced whole by a rebuild, adjusted in place by clicks. */
  snapshot: Snapshot;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private version = -1;
  private busy = false;
  private builtAt = 0;
  private readonly options: SnapshotKeeperOptions;

  constructor(options: SnapshotKeeperOptions) {
    this.options = options;
    this.snapshot = emptySnapshot(dayOf(options.clock.now(), options.timeZone));
  }

  /** Keeps the snapshot fresh on a timer (the first build is refresh()'s). */
  start(refreshMs: number): void {
    this.timer = setInterval(() => {
      this.tick().catch((error: unknown) => this.options.onError(error, 'refreshing the serving index'));
    }, refreshMs);
    this.timer.unref();
  }

  /** Rebuilds the snapshot now (tests call it to see their changes without waiting). */
  refresh(): Promise<void> {
    return this.exclusive(() => this.rebuild());
  }

  private async rebuild(): Promise<void> {
    const version = await readChangeCounter(this.options.db, 'serving');
    const now = this.options.clock.now();
    const { unsettled } = this.options;
    await unsettled?.forgetSettled(this.options.db, dayOf(now, this.options.timeZone));
    this.snapshot = await buildSnapshot(this.options.db, now, this.options.timeZone);
    unsettled?.applyTo(this.snapshot);
    this.version = version;
    this.builtAt = this.options.clock.now();
  }

  /**
   * The periodic refresh: a full rebuild when anything it is built from changed (on any instance),
   * when the day changed, or every FULL_REBUILD_MS for fresh CTR estimates; otherwise only
   * balances and today's spend, which other instances' clicks move.
   */
  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await this.exclusive(() => this.tickOnce());
    } finally {
      this.busy = false;
    }
  }

  /**
   * Runs inside exclusive(), so it decides on the state left by a refresh that ran just before
   * it: a rebuild asked for meanwhile (by a test, by the benchmark) is not repeated.
   */
  private async tickOnce(): Promise<void> {
    const version = await readChangeCounter(this.options.db, 'serving');
    const now = this.options.clock.now();
    if (
      version !== this.version ||
      dayOf(now, this.options.timeZone) !== this.snapshot.day ||
      now - this.builtAt >= FULL_REBUILD_MS
    ) {
      await this.rebuild();
      return;
    }
    await this.options.unsettled?.forgetSettled(this.options.db, this.snapshot.day);
    await refreshSpend(this.options.db, this.snapshot);
    this.options.unsettled?.applyTo(this.snapshot);
  }

  /** Refreshes run one after another, never interleaved. */
  private exclusive(work: () => Promise<void>): Promise<void> {
    const run = (this.refreshing ?? Promise.resolve()).catch(() => undefined).then(work);
    this.refreshing = run;
    return run;
  }

  /** Stops the timer and waits for a refresh under way. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.refreshing?.catch(() => undefined);
  }
}
