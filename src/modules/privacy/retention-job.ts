import { Counter, type Registry } from 'prom-client';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/database.ts';
import { RETENTION_KINDS, type RetentionKind } from './retention-kinds.ts';
import { DELETE_BATCH } from './retention-repository.ts';

/** Rows one statement deletes at most: a batch holds its locks for milliseconds, not minutes. */
export const RETENTION_BATCH_ROWS = 1000;
/** Batches one kind gets per run, so a large backlog is worked off over several runs. */
const BATCHES_PER_RUN = 100;
const DAY_MS = 86_400_000;

export interface RetentionOptions {
  db: Db;
  clock: Clock;
  /** Days each kind is kept; 0 keeps it forever. */
  days: Record<RetentionKind, number>;
  intervalMs: number;
  onError(error: unknown): void;
}

/**
 * Deletes what is older than its kind's retention (docs/privacy.md), in batches of at most
 * RETENTION_BATCH_ROWS rows, each its own statement, on a timer. Every instance may run it: two
 * instances deleting the same old rows only share the work.
 */
export class RetentionJob {
  /** Rows deleted (or, for click addresses, cleared) since start, per kind: nativa_retention_deleted_total. */
  readonly deleted: Record<RetentionKind, number> = Object.fromEntries(RETENTION_KINDS.map((kind) => [kind, 0])) as Record<
    RetentionKind,
    number
  >;
  private readonly options: RetentionOptions;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(options: RetentionOptions) {
    this.options = options;
  }

  start(): void {
    this.timer = setInterval(() => {
      this.running = this.run().catch(this.options.onError);
    }, this.options.intervalMs);
    this.timer.unref();
  }

  /** One run over every kind (tests call it with an injected clock); returns the rows it deleted per kind. */
  async run(): Promise<Partial<Record<RetentionKind, number>>> {
    const now = this.options.clock.now();
    const result: Partial<Record<RetentionKind, number>> = {};
    for (const kind of RETENTION_KINDS) {
      const days = this.options.days[kind];
      if (days === 0) continue;
      const before = new Date(now - days * DAY_MS);
      let total = 0;
      for (let batch = 0; batch < BATCHES_PER_RUN && !this.closed; batch += 1) {
        const gone = await DELETE_BATCH[kind](this.options.db, before, RETENTION_BATCH_ROWS);
        total += gone;
        this.deleted[kind] += gone;
        if (gone < RETENTION_BATCH_ROWS) break;
      }
      result[kind] = total;
    }
    return result;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** nativa_retention_deleted_total{kind}, read from the counts when scraped. */
  registerMetric(registry: Registry): void {
    const deleted = this.deleted;
    new Counter({
      name: 'nativa_retention_deleted_total',
      help: 'Rows the retention job deleted (click addresses: cleared), by kind of data.',
      labelNames: ['kind'],
      registers: [registry],
      collect() {
        this.reset();
        for (const kind of RETENTION_KINDS) this.inc({ kind }, deleted[kind]);
      },
    });
  }
}
