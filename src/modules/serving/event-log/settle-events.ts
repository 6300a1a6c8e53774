import type { Db } from '../../../db/database.ts';
import { acceptClicks, type ClickOutcome, type IncomingClick, type SettlementSettings, settleClicks } from '../billing.ts';
import { countViews, seenUntil } from '../impressions.ts';
import type { ViewClaims } from '../view-token.ts';

/**
 * Settles clicks read from the event log with the code that settles clicks accepted by the
 * database (docs/adr/0007): they are accepted (a click id already accepted is left as it is), then
 * every one of them still accepted is settled. Each step is keyed by the click id (`accepted_clicks`
 * and `clicks` both have it as their primary key), so a batch delivered again after its commit
 * finds its clicks in `clicks` and records them as duplicates, moving no money and writing no row.
 */
export async function settleLoggedClicks(
  db: Db,
  clicks: readonly IncomingClick[],
  settings: SettlementSettings,
): Promise<Map<string, ClickOutcome>> {
  if (clicks.length === 0) return new Map();
  await acceptClicks(db, clicks);
  return settleClicks(db, [...new Set(clicks.map((click) => click.claims.clickId))], settings);
}

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
