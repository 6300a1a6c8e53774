import type { Database } from '../../db/database.ts';
import { DomainError } from '../../errors.ts';

/** A gzipped tarball of the embedded database, taken between two transactions; PostgreSQL is backed up with pg_dump (409). */
export async function takeBackup(database: Database): Promise<Buffer> {
  if (database.backup === undefined) {
    throw new DomainError(
      'backup_unavailable',
      'This server runs on PostgreSQL: back it up with pg_dump (see docs/operating.md).',
    );
  }
  return Buffer.from(await (await database.backup()).arrayBuffer());
}
