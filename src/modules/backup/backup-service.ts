import type { Database } from '../../db/database.ts';
import { ApiError } from '../../http/errors.ts';

/** A gzipped tarball of the embedded database, taken between two transactions; PostgreSQL is backed up with pg_dump (409). */
export async function takeBackup(database: Database): Promise<Buffer> {
  if (database.backup === undefined) {
    throw new ApiError(409, 'This server runs on PostgreSQL: back it up with pg_dump (see docs/operating.md).');
  }
  return Buffer.from(await (await database.backup()).arrayBuffer());
}
