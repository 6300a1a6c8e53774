import type { Database } from '../../db/database.ts';
import { DomainError } from '../../errors.ts';

/**
 * Takes gzipped tarballs of the embedded database, one at a time: a dump holds the database's
 * single connection for seconds (measured: 2.6–5.7 s for 5 MB on the 2-core test machine), so
 * requests that each took their own queued behind one another and held every other query back
 * (8 at once: 30 s). A request that arrives while a backup is being taken gets that backup, a copy
 * between two transactions from at most one dump's time before it arrived.
 */
export class BackupTaker {
  private readonly database: Database;
  private running: Promise<Buffer> | undefined;

  constructor(database: Database) {
    this.database = database;
  }

  /** The backup in progress, or a new one; PostgreSQL is backed up with pg_dump (409). */
  take(): Promise<Buffer> {
    const { backup } = this.database;
    if (backup === undefined) {
      throw new DomainError(
        'backup_unavailable',
        'This server runs on PostgreSQL: back it up with pg_dump (see docs/operating.md).',
      );
    }
    this.running ??= backup
      .call(this.database)
      .then(async (blob) => Buffer.from(await blob.arrayBuffer()))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }
}
