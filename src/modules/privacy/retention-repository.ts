import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { RetentionKind } from './retention-kinds.ts';

/**
 * One bounded batch of a kind's deletion: at most `limit` rows older than `before`, in one
 * statement (one transaction). Returns how many rows went. Ledger rows and statistics rollups are
 * never touched: no statement here names them.
 */
export const DELETE_BATCH: Record<RetentionKind, (db: Db, before: Date, limit: number) => Promise<number>> = {
  click_addresses: async (db, before, limit) =>
    affected(
      // The day's visitor hash of the invalid-traffic rules goes with the address: both link a click to a visitor.
      await sql`UPDATE clicks SET address = NULL, visitor_hash = NULL WHERE click_id IN (
        SELECT click_id FROM clicks WHERE (address IS NOT NULL OR visitor_hash IS NOT NULL) AND created_at < ${before}
        LIMIT ${limit}) RETURNING 1`.execute(db),
    ),
  // A click's conversions go with it; a refunded click stays with its refund (the refund's record).
  clicks: async (db, before, limit) =>
    affected(
      await sql`WITH old AS (
          SELECT c.click_id FROM clicks c
          WHERE c.created_at < ${before}
            AND NOT EXISTS (SELECT 1 FROM refunded_clicks r WHERE r.click_id = c.click_id)
          LIMIT ${limit}),
        gone_conversions AS (DELETE FROM conversions WHERE click_id IN (SELECT click_id FROM old))
        DELETE FROM clicks WHERE click_id IN (SELECT click_id FROM old) RETURNING 1`.execute(db),
    ),
  audience_members: async (db, before, limit) =>
    affected(
      await sql`DELETE FROM audience_members WHERE (advertiser_id, visitor_id) IN (
        SELECT advertiser_id, visitor_id FROM audience_members WHERE last_seen_at < ${before} LIMIT ${limit}) RETURNING 1`.execute(
        db,
      ),
    ),
  // An event goes when every delivery of it is finished and old; its deliveries and their attempts with it.
  webhook_deliveries: async (db, before, limit) =>
    affected(
      await sql`WITH old AS (
          SELECT e.id FROM webhook_events e
          WHERE e.created_at < ${before}
            AND NOT EXISTS (
              SELECT 1 FROM webhook_deliveries d
              WHERE d.event_id = e.id AND (d.status = 'pending' OR d.created_at >= ${before}))
          LIMIT ${limit}),
        gone_deliveries AS (DELETE FROM webhook_deliveries WHERE event_id IN (SELECT id FROM old))
        DELETE FROM webhook_events WHERE id IN (SELECT id FROM old) RETURNING 1`.execute(db),
    ),
  idempotency_keys: async (db, before, limit) =>
    affected(
      await sql`DELETE FROM idempotency_keys WHERE (account_id, key) IN (
        SELECT account_id, key FROM idempotency_keys WHERE created_at < ${before} LIMIT ${limit}) RETURNING 1`.execute(db),
    ),
  sessions: async (db, before, limit) => {
    const sessions = affected(
      await sql`DELETE FROM sessions WHERE id IN (
        SELECT id FROM sessions WHERE coalesce(revoked_at, expires_at) < ${before} LIMIT ${limit}) RETURNING 1`.execute(db),
    );
    const tokens = affected(
      await sql`DELETE FROM password_tokens WHERE token_hash IN (
        SELECT token_hash FROM password_tokens WHERE coalesce(used_at, expires_at) < ${before} LIMIT ${limit}) RETURNING 1`.execute(
        db,
      ),
    );
    return sessions + tokens;
  },
  mail_outbox: async (db, before, limit) =>
    affected(
      await sql`DELETE FROM mail_outbox WHERE id IN (
        SELECT id FROM mail_outbox
        WHERE (status = 'sent' OR (status = 'failed' AND next_attempt_at IS NULL)) AND created_at < ${before}
        LIMIT ${limit}) RETURNING 1`.execute(db),
    ),
  // The audit trail is append-only (migration 0430) except for maintenance that says so in its own
  // transaction (migration 0640).
  audit_entries: (db, before, limit) =>
    db.transaction().execute(async (trx) => {
      await sql`SET LOCAL nativa.audit_maintenance = 'on'`.execute(trx);
      return affected(
        await sql`DELETE FROM audit_entries WHERE id IN (
          SELECT id FROM audit_entries WHERE created_at < ${before} LIMIT ${limit}) RETURNING 1`.execute(trx),
      );
    }),
};

/** Rows a statement touched, counted from its RETURNING rows: a WITH statement's own count is not reported alike by PGlite and pg. */
function affected(result: { rows: unknown[] }): number {
  return result.rows.length;
}
