import type { Db } from '../../../db/database.ts';
import { countViews, seenUntil } from '../tracking/tracker.ts';
import type { ViewClaims } from '../tracking/view-token.ts';

/**
 * Counts views read from the event log in one transaction with the code the view buffer flushes
 * with: the seen-set claims each id once, so a batch delivered again counts nothing. Returns the
 * views counted.
 */
export function settleLoggedViews(
  db: Db,
  views: readonly ViewClaims[],
  options: { timeZone: string; tokenTtlMs: number; nowMs: number },
): Promise<ViewClaims[]> {
  const expiresAt = seenUntil(options.nowMs, options.tokenTtlMs);
  return db.transaction().execute((trx) => countViews(trx, views, [], { timeZone: options.timeZone, expiresAt }));
}
