import type { ColumnType, Generated } from 'kysely';

/** A column the database fills when an insert leaves it out. */
type Defaulted<T> = ColumnType<T, T | undefined, T>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

export type AccountKind = 'advertiser' | 'publisher' | 'operator';

export interface AccountsTable {
  id: Generated<number>;
  kind: AccountKind;
  username: string;
  email: string;
  name: Defaulted<string>;
  url: Defaulted<string>;
  whatsapp: Defaulted<string>;
  telegram: Defaulted<string>;
  skype: Defaulted<string>;
  phone: Defaulted<string>;
  daily_budget_micros: Defaulted<number>;
  balance_micros: Defaulted<number>;
  parent_id: number | null;
  password_hash: string | null;
  email_confirmed_at: Date | null;
  created_at: CreatedAt;
}

export interface ApiTokensTable {
  id: Generated<number>;
  account_id: number;
  name: Defaulted<string>;
  token_hash: Buffer;
  created_at: CreatedAt;
  revoked_at: Date | null;
}

export interface LedgerEntriesTable {
  id: Generated<number>;
  account_id: number;
  amount_micros: number;
  balance_after_micros: number;
  kind: string;
  counterparty_id: number | null;
  reference: string | null;
  comment: Defaulted<string>;
  created_by: number | null;
  created_at: CreatedAt;
}

export interface CategoriesTable {
  id: Generated<number>;
  parent_id: number | null;
  title: string;
}

export interface CampaignsTable {
  id: Generated<number>;
  advertiser_id: number;
  title: string;
  category_id: number | null;
  geo: Defaulted<string[]>;
  is_retarget: Defaulted<boolean>;
  active: Defaulted<boolean>;
  moderation_status: Defaulted<number>;
  archived: Defaulted<boolean>;
  daily_budget_micros: Defaulted<number>;
  daily_click_limit: Defaulted<number>;
  created_at: CreatedAt;
  updated_at: Defaulted<Date>;
  /** Views per visitor per day; 0: no cap (migration 0500). */
  frequency_cap: Defaulted<number>;
  /** Hours of the week when it serves (0 = Monday 00:00); null: always. */
  schedule_hours: number[] | null;
  /** IANA time zone of the schedule; null: the platform's. */
  time_zone: string | null;
}

export interface OffersTable {
  id: Generated<number>;
  campaign_id: number;
  title: string;
  description: string;
  price_text: Defaulted<string>;
  price: number | null;
  old_price: number | null;
  discount: number | null;
  discount_type: string | null;
  sub_category_id: number | null;
  url: string;
  url_mobile: Defaulted<string>;
  bid_micros: number;
  image_square: string | null;
  image_wide: string | null;
  active: Defaulted<boolean>;
  moderation_status: Defaulted<number>;
  deleted_at: Date | null;
  created_at: CreatedAt;
  updated_at: Defaulted<Date>;
}

export interface SitesTable {
  id: Generated<number>;
  publisher_id: number;
  url: string;
  category_id: number | null;
  status: Defaulted<number>;
  monthly_uniq_users: Defaulted<number>;
  created_at: CreatedAt;
  /** Set only on rows that duplicated an older site's address before migration 0350's unique index. */
  duplicate_of: Defaulted<number | null>;
}

export interface BlocksTable {
  id: Generated<number>;
  site_id: number;
  title: string;
  teaser_count: Defaulted<number>;
  created_at: CreatedAt;
  /** At most one ad per campaign per page view (migration 0500). */
  no_campaign_repeats: Defaulted<boolean>;
}

export interface SiteCoefficientsTable {
  campaign_id: number;
  site_id: number;
  block_id: Defaulted<number>;
  coef: number;
  updated_at: Defaulted<Date>;
}

export interface DeviceCoefficientsTable {
  campaign_id: number;
  device: number;
  coef: number;
  updated_at: Defaulted<Date>;
}

export interface StatsDailyTable {
  day: string;
  campaign_id: number;
  offer_id: number;
  site_id: number;
  block_id: number;
  device: number;
  country: Defaulted<string>;
  views: Defaulted<number>;
  clicks: Defaulted<number>;
  spend_micros: Defaulted<number>;
  publisher_income_micros: Defaulted<number>;
  conversions_purchase: Defaulted<number>;
  conversions_registration: Defaulted<number>;
  conversions_intermediate: Defaulted<number>;
  served: Defaulted<number>;
  refunded_clicks: Defaulted<number>;
  refunded_spend_micros: Defaulted<number>;
  refunded_publisher_income_micros: Defaulted<number>;
}

/** Campaign totals per day: the sums of stats_daily by (campaign_id, day), kept by the same writes. */
export interface StatsCampaignDailyTable {
  campaign_id: number;
  day: string;
  views: Defaulted<number>;
  clicks: Defaulted<number>;
  spend_micros: Defaulted<number>;
  publisher_income_micros: Defaulted<number>;
  conversions_purchase: Defaulted<number>;
  conversions_registration: Defaulted<number>;
  conversions_intermediate: Defaulted<number>;
  served: Defaulted<number>;
  refunded_clicks: Defaulted<number>;
  refunded_spend_micros: Defaulted<number>;
  refunded_publisher_income_micros: Defaulted<number>;
}

/**
 * Pre-aggregated sums of stats_daily (migration 0410, docs/adr/0010): per `shape` of keys
 * (SUMMARY_SHAPES in the statistics module) and `span` of time (0 hour, 1 day, 2 month).
 */
export interface StatsRollupsTable {
  shape: number;
  key_a: number;
  span: number;
  day: string;
  hour: Defaulted<number>;
  key_b: Defaulted<number>;
  key_c: Defaulted<number>;
  views: Defaulted<number>;
  clicks: Defaulted<number>;
  spend_micros: Defaulted<number>;
  publisher_income_micros: Defaulted<number>;
  conversions_purchase: Defaulted<number>;
  conversions_registration: Defaulted<number>;
  conversions_intermediate: Defaulted<number>;
  served: Defaulted<number>;
  refunded_clicks: Defaulted<number>;
  refunded_spend_micros: Defaulted<number>;
  refunded_publisher_income_micros: Defaulted<number>;
}

export type PayoutStatus = 'pending' | 'paid' | 'cancelled';

export interface PayoutsTable {
  id: Generated<number>;
  publisher_id: number;
  amount_micros: number;
  wallet: string;
  status: Defaulted<PayoutStatus>;
  created_by: number | null;
  created_at: CreatedAt;
  updated_at: Defaulted<Date>;
}

export type OutboxStatus = 'queued' | 'sent' | 'failed';

export interface MailOutboxTable {
  id: Generated<number>;
  kind: string;
  account_id: number | null;
  recipient: string;
  subject: string;
  body_text: string;
  body_html: Defaulted<string>;
  sensitive: Defaulted<boolean>;
  status: Defaulted<OutboxStatus>;
  attempts: Defaulted<number>;
  last_error: Defaulted<string>;
  created_at: CreatedAt;
  sent_at: Date | null;
  /** When the background sender should try next; null when it should not (migration 0360). */
  next_attempt_at: Defaulted<Date | null>;
  /** Lease of the instance that is sending the message right now. */
  claimed_until: Defaulted<Date | null>;
}

export interface EmailConfirmationsTable {
  token_hash: Buffer;
  account_id: number;
  email: string;
  expires_at: Date;
  used_at: Date | null;
  created_at: CreatedAt;
}

export interface SessionsTable {
  id: Generated<number>;
  account_id: number;
  token_hash: Buffer;
  created_at: CreatedAt;
  last_seen_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  /** The browser's User-Agent at sign-in, cut to 512 characters (migration 0580). */
  user_agent: Defaulted<string>;
  /** The address of the session's latest request, moved with last_seen_at. */
  remote_address: Defaulted<string>;
  method: Defaulted<SessionMethod>;
}

/** How a session was opened. */
export type SessionMethod = 'password' | 'password+totp' | 'password+recovery-code' | 'passkey';

/** An account's TOTP secret, sealed (migration 0580). */
export interface TotpCredentialsTable {
  account_id: number;
  sealed_secret: Buffer;
  confirmed_at: Date | null;
  last_step: Defaulted<number>;
  created_at: Date;
}

export interface RecoveryCodesTable {
  id: Generated<number>;
  account_id: number;
  code_hash: Buffer;
  used_at: Date | null;
  created_at: Date;
}

export interface PasskeysTable {
  id: Generated<number>;
  account_id: number;
  credential_id: string;
  public_key: Buffer;
  counter: Defaulted<number>;
  transports: Defaulted<string[]>;
  name: string;
  backed_up: boolean;
  created_at: Date;
  last_used_at: Date | null;
}

export interface SpentChallengesTable {
  challenge_hash: Buffer;
  expires_at: Date;
}

export type PasswordTokenPurpose = 'reset' | 'invitation';

export interface PasswordTokensTable {
  token_hash: Buffer;
  account_id: number;
  purpose: PasswordTokenPurpose;
  expires_at: Date;
  used_at: Date | null;
  created_at: CreatedAt;
}

/** What a click is, in both tables that hold clicks: where it was shown, to whom, whose money. */
interface ClickColumns {
  click_id: string;
  created_at: ColumnType<Date, Date | string, never>;
  campaign_id: number;
  offer_id: number;
  site_id: number;
  block_id: number;
  device: number;
  country: Defaulted<string>;
  advertiser_id: number;
  publisher_id: number;
  /** The visitor's IP address (inet, as text); null for clicks recorded before migration 0490. */
  address: Defaulted<string | null>;
}

export interface ClicksTable extends ClickColumns {
  status: 'billed' | 'bot' | 'limit' | 'funds';
  charge_micros: Defaulted<number>;
  publisher_micros: Defaulted<number>;
  margin_micros: Defaulted<number>;
  /** The billing batch whose ledger rows moved this click's money (reference of those rows); null when unbilled. */
  billing_batch: Defaulted<string | null>;
}

/** A click redirected and durable whose outcome is not yet settled (docs/adr/0007). */
export interface AcceptedClicksTable extends ClickColumns {
  charge_micros: number;
  refusal: 'bot' | 'limit' | null;
}

/** Impression tokens already counted as a view, kept until the token expires (migration 0480). */
export interface ViewedImpressionsTable {
  token_id: string;
  expires_at: ColumnType<Date, Date | string, never>;
}

export interface ConversionsTable {
  click_id: string;
  goal: number;
  created_at: ColumnType<Date, Date | string, never>;
}

export interface AudienceMembersTable {
  advertiser_id: number;
  visitor_id: string;
  last_seen_at: ColumnType<Date, Date | string, Date | string>;
}

export const REFUND_REASONS = ['bot', 'duplicate', 'datacenter', 'click_flood', 'publisher_fraud', 'manual'] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

/** A refund of invalid clicks (docs/refunds.md): what it took back and from whom. */
export interface RefundsTable {
  id: Generated<number>;
  reason: RefundReason;
  comment: Defaulted<string>;
  /** The operator who applied it; null for the automatic detector. */
  created_by: number | null;
  created_at: ColumnType<Date, Date | string, never>;
  clicks: number;
  refunded_micros: number;
  publisher_reversed_micros: number;
  publisher_unrecovered_micros: number;
  margin_reversed_micros: number;
}

/** A click refunded once (the click id is the primary key), with its share of its refund's money. */
export interface RefundedClicksTable {
  click_id: string;
  refund_id: number;
  advertiser_id: number;
  publisher_id: number;
  charge_micros: number;
  publisher_reversed_micros: number;
  publisher_unrecovered_micros: number;
  margin_micros: number;
}

export interface ChangeCountersTable {
  name: string;
  version: number;
}

export type RuleScope = 'site' | 'block' | 'device' | 'ad';
export type RuleMetric = 'cpa' | 'ctr' | 'conversions' | 'spend_without_conversion';
export type RuleComparison = 'gt' | 'gte' | 'lt' | 'lte';
export type RuleAction = 'set_coefficient' | 'block' | 'pause';

/** An advertiser's optimisation rule of a campaign (migration 0470). */
export interface CampaignRulesTable {
  id: Generated<number>;
  campaign_id: number;
  title: Defaulted<string>;
  scope: RuleScope;
  metric: RuleMetric;
  comparison: RuleComparison;
  threshold_micros: number;
  window_days: number;
  min_clicks: Defaulted<number>;
  action: RuleAction;
  coef: number | null;
  enabled: Defaulted<boolean>;
  next_run_at: Date;
  last_run_at: Date | null;
  created_at: CreatedAt;
  updated_at: Defaulted<Date>;
}

/** A change a rule applied, with the figures that triggered it (migration 0470). */
export interface RuleChangesTable {
  id: Generated<number>;
  rule_id: number;
  campaign_id: number;
  run_kind: 'manual' | 'schedule';
  object_kind: RuleScope;
  site_id: number;
  block_id: number;
  device: number;
  offer_id: number;
  field: 'coef' | 'active';
  before_value: number;
  after_value: number;
  views: number;
  clicks: number;
  spend_micros: number;
  orders: number;
  window_from: string;
  window_to: string;
  created_at: ColumnType<Date, Date, never>;
}

/** The title a rule had when it was deleted, for the history that outlives it (migration 0550). */
export interface DeletedRulesTable {
  id: number;
  campaign_id: number;
  title: string;
  deleted_at: Date;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** Signed webhooks (migration 0450). */
export interface WebhookEndpointsTable {
  id: Generated<number>;
  account_id: number;
  url: string;
  description: Defaulted<string>;
  active: Defaulted<boolean>;
  balance_threshold_micros: number | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  created_at: CreatedAt;
  updated_at: Defaulted<Date>;
}

export interface WebhookSubscriptionsTable {
  endpoint_id: number;
  event_type: string;
}

export interface WebhookEventsTable {
  id: string;
  type: string;
  account_id: number | null;
  payload: string;
  created_at: CreatedAt;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  event_id: string;
  endpoint_id: number;
  status: Defaulted<WebhookDeliveryStatus>;
  attempts: Defaulted<number>;
  next_attempt_at: Date | null;
  claimed_until: Defaulted<Date | null>;
  created_at: CreatedAt;
  delivered_at: Defaulted<Date | null>;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  endpoint_id: number;
  attempted_at: Date;
  status_code: number | null;
  latency_ms: number;
  error: Defaulted<string>;
  response_excerpt: Defaulted<string>;
}

/** The stored answer to the first request that carried an Idempotency-Key (migration 0430). */
export interface IdempotencyKeysTable {
  account_id: number;
  key: string;
  request_hash: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
  created_at: Date;
}

/** One action of the audit trail, append-only (migration 0430). */
export interface AuditEntriesTable {
  id: Generated<number>;
  account_id: number | null;
  token_id: number | null;
  session_id: number | null;
  actor_kind: string;
  remote_address: Defaulted<string>;
  request_id: Defaulted<string>;
  action: string;
  object_type: string;
  object_id: string;
  subject_account_id: number | null;
  before: unknown;
  after: unknown;
  created_at: Date;
}

/** Every table, as Kysely sees it. Modules that add tables extend this in their own migration and here. */
export interface DatabaseSchema {
  accounts: AccountsTable;
  api_tokens: ApiTokensTable;
  ledger_entries: LedgerEntriesTable;
  categories: CategoriesTable;
  site_categories: CategoriesTable;
  campaigns: CampaignsTable;
  offers: OffersTable;
  sites: SitesTable;
  blocks: BlocksTable;
  site_coefficients: SiteCoefficientsTable;
  device_coefficients: DeviceCoefficientsTable;
  stats_daily: StatsDailyTable;
  stats_campaign_daily: StatsCampaignDailyTable;
  stats_rollups: StatsRollupsTable;
  payouts: PayoutsTable;
  mail_outbox: MailOutboxTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  email_confirmations: EmailConfirmationsTable;
  clicks: ClicksTable;
  accepted_clicks: AcceptedClicksTable;
  viewed_impressions: ViewedImpressionsTable;
  conversions: ConversionsTable;
  audience_members: AudienceMembersTable;
  change_counters: ChangeCountersTable;
  sessions: SessionsTable;
  password_tokens: PasswordTokensTable;
  refunds: RefundsTable;
  refunded_clicks: RefundedClicksTable;
  campaign_rules: CampaignRulesTable;
  rule_changes: RuleChangesTable;
  deleted_rules: DeletedRulesTable;
  idempotency_keys: IdempotencyKeysTable;
  audit_entries: AuditEntriesTable;
  totp_credentials: TotpCredentialsTable;
  recovery_codes: RecoveryCodesTable;
  passkeys: PasskeysTable;
  spent_challenges: SpentChallengesTable;
}
