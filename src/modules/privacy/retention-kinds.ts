/**
 * The kinds of data the retention job deletes, each with its `RETENTION_<KIND>_DAYS` setting and
 * default (docs/privacy.md). Ledger rows and statistics rollups are not among them: they are the
 * money and its totals, not personal data, and are kept.
 */
export const RETENTION_DEFAULT_DAYS = {
  /** `clicks.address` (already truncated to /24 or /48) is cleared: refunds by address range need it this long. */
  click_addresses: 30,
  /** Click rows (and their conversions), except refunded ones: a refund's clicks stay with it. */
  clicks: 400,
  /** Retargeting audience members not seen for this long. */
  audience_members: 90,
  /** Webhook events whose deliveries are all finished (delivered or failed), with their attempts. */
  webhook_deliveries: 30,
  /** Stored answers of idempotent requests. */
  idempotency_keys: 7,
  /** Browser sessions that ended (expired or revoked), and used or expired password tokens. */
  sessions: 30,
  /** Mail sent or given up on (it holds addresses and message bodies). */
  mail_outbox: 30,
  /** The audit trail. */
  audit_entries: 730,
} as const;

export type RetentionKind = keyof typeof RETENTION_DEFAULT_DAYS;
export const RETENTION_KINDS = Object.keys(RETENTION_DEFAULT_DAYS) as RetentionKind[];

/** The setting's name for a kind: `RETENTION_CLICK_ADDRESSES_DAYS`. */
export const retentionVariable = (kind: RetentionKind): RetentionVariable =>
  `RETENTION_${kind.toUpperCase() as Uppercase<RetentionKind>}_DAYS`;
export type RetentionVariable = `RETENTION_${Uppercase<RetentionKind>}_DAYS`;
