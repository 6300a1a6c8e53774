/**
 * Every table as Kysely sees it, generated from a database migrated with src/db/migrations by
 * `npm run db:generate-types` (scripts/db-types.ts, kysely-codegen). Do not edit: change the schema
 * with a new migration and generate again; test/db/schema-types.test.ts fails while this is stale.
 */

import type { ColumnType } from "kysely";

export type Generated<T> = T extends ColumnType<infer S, infer I, infer U>
  ? ColumnType<S, I | undefined, U>
  : ColumnType<T, T | undefined, T>;

export type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface AcceptedClicksTable {
  address: string | null;
  advertiser_id: number;
  asn: number | null;
  block_id: number;
  campaign_id: number;
  charge_micros: number;
  click_country: string | null;
  click_id: string;
  country: Generated<string>;
  created_at: Timestamp;
  device: number;
  invalid_reason: "bot" | "automation" | "datacenter" | "prefetch" | "foreign_site" | null;
  offer_id: number;
  publisher_id: number;
  refusal: "bot" | "limit" | null;
  served_asn: number | null;
  served_at: Timestamp | null;
  site_id: number;
  visitor_hash: string | null;
}

export interface AccountsTable {
  balance_micros: Generated<number>;
  created_at: Generated<Timestamp>;
  daily_budget_micros: Generated<number>;
  email: string;
  email_confirmed_at: Timestamp | null;
  erased_at: Timestamp | null;
  id: Generated<number>;
  kind: "advertiser" | "publisher" | "operator";
  language: Generated<"en" | "ru">;
  name: Generated<string>;
  parent_id: number | null;
  password_hash: string | null;
  phone: Generated<string>;
  skype: Generated<string>;
  suspended_at: Timestamp | null;
  suspension_reason: Generated<string>;
  telegram: Generated<string>;
  url: Generated<string>;
  username: string;
  whatsapp: Generated<string>;
}

export interface ApiTokensTable {
  account_id: number;
  created_at: Generated<Timestamp>;
  id: Generated<number>;
  name: Generated<string>;
  revoked_at: Timestamp | null;
  token_hash: Buffer;
}

export interface AudienceMembersTable {
  advertiser_id: number;
  last_seen_at: Timestamp;
  visitor_id: string;
}

export interface AuditEntriesTable {
  account_id: number | null;
  action: string;
  actor_kind: string;
  after: unknown | null;
  before: unknown | null;
  created_at: Timestamp;
  id: Generated<number>;
  object_id: string;
  object_type: string;
  remote_address: Generated<string>;
  request_id: Generated<string>;
  session_id: number | null;
  subject_account_id: number | null;
  token_id: number | null;
}

export interface BlocksTable {
  created_at: Generated<Timestamp>;
  design: unknown | null;
  id: Generated<number>;
  min_cpc_micros: Generated<number>;
  no_campaign_repeats: Generated<boolean>;
  site_id: number;
  teaser_count: Generated<number>;
  title: string;
}

export interface CampaignRulesTable {
  action: "set_coefficient" | "block" | "pause";
  authenticated_only: Generated<boolean>;
  campaign_id: number;
  coef: number | null;
  comparison: "gt" | "gte" | "lt" | "lte";
  created_at: Generated<Timestamp>;
  enabled: Generated<boolean>;
  id: Generated<number>;
  last_run_at: Timestamp | null;
  metric: "cpa" | "ctr" | "conversions" | "spend_without_conversion";
  min_clicks: Generated<number>;
  next_run_at: Timestamp;
  scope: "site" | "block" | "device" | "ad";
  threshold_micros: number;
  title: Generated<string>;
  updated_at: Generated<Timestamp>;
  window_days: number;
}

export interface CampaignsTable {
  active: Generated<boolean>;
  advertiser_id: number;
  archived: Generated<boolean>;
  browser_targets: Generated<string[]>;
  category_id: number | null;
  created_at: Generated<Timestamp>;
  daily_budget_micros: Generated<number>;
  daily_click_limit: Generated<number>;
  device_targets: Generated<string[]>;
  ends_at: Timestamp | null;
  frequency_cap: Generated<number>;
  geo: Generated<string[]>;
  id: Generated<number>;
  is_retarget: Generated<boolean>;
  moderation_reason: string | null;
  moderation_status: Generated<number>;
  os_targets: Generated<string[]>;
  pacing: Generated<"asap" | "even">;
  schedule_hours: number[] | null;
  site_allow: Generated<string[]>;
  site_block: Generated<string[]>;
  starts_at: Timestamp | null;
  time_zone: string | null;
  title: string;
  total_budget_micros: Generated<number>;
  updated_at: Generated<Timestamp>;
}

export interface CategoriesTable {
  id: Generated<number>;
  parent_id: number | null;
  title: string;
}

export interface ChangeCountersTable {
  name: string;
  version: Generated<number>;
}

export interface ClicksTable {
  address: string | null;
  advertiser_id: number;
  asn: number | null;
  billing_batch: string | null;
  block_id: number;
  campaign_id: number;
  charge_micros: Generated<number>;
  click_country: string | null;
  click_id: string;
  country: Generated<string>;
  created_at: Timestamp;
  device: number;
  invalid_reason: "bot" | "automation" | "datacenter" | "prefetch" | "foreign_site" | null;
  margin_micros: Generated<number>;
  offer_id: number;
  publisher_id: number;
  publisher_micros: Generated<number>;
  served_asn: number | null;
  served_at: Timestamp | null;
  site_id: number;
  status: "billed" | "bot" | "limit" | "funds";
  visitor_hash: string | null;
}

export interface ConversionsTable {
  click_id: string;
  created_at: Timestamp;
  goal: number;
  source: "pixel" | "postback";
}

export interface DeletedRulesTable {
  campaign_id: number;
  deleted_at: Timestamp;
  id: number;
  title: string;
}

export interface DeviceCoefficientsTable {
  campaign_id: number;
  coef: number;
  device: number;
  updated_at: Generated<Timestamp>;
}

export interface EmailConfirmationsTable {
  account_id: number;
  created_at: Generated<Timestamp>;
  email: string;
  expires_at: Timestamp;
  token_hash: Buffer;
  used_at: Timestamp | null;
}

export interface IdempotencyKeysTable {
  account_id: number;
  body: unknown | null;
  created_at: Timestamp;
  headers: Record<string, string>;
  key: string;
  request_hash: string;
  status: number;
}

export interface LedgerEntriesTable {
  account_id: number;
  amount_micros: number;
  balance_after_micros: number;
  comment: Generated<string>;
  counterparty_id: number | null;
  created_at: Generated<Timestamp>;
  created_by: number | null;
  id: Generated<number>;
  kind: string;
  reference: string | null;
}

export interface MailOutboxTable {
  account_id: number | null;
  attempts: Generated<number>;
  body_html: Generated<string>;
  body_text: string;
  claimed_until: Timestamp | null;
  created_at: Generated<Timestamp>;
  id: Generated<number>;
  kind: string;
  last_error: Generated<string>;
  next_attempt_at: Timestamp | null;
  recipient: string;
  sensitive: Generated<boolean>;
  sent_at: Timestamp | null;
  status: Generated<"queued" | "sent" | "failed">;
  subject: string;
}

export interface ModerationReasonsTable {
  created_at: Timestamp;
  id: Generated<number>;
  text: string;
  updated_at: Timestamp;
}

export interface NotificationsTable {
  account_id: number;
  created_at: Timestamp;
  data: string;
  id: Generated<number>;
  kind: string;
  once_key: string | null;
  read_at: Timestamp | null;
  text: string;
}

export interface NotificationSettingsTable {
  account_id: number;
  low_balance_micros: number;
  updated_at: Timestamp;
}

export interface OfferApprovedVersionsTable {
  approved_at: Timestamp;
  description: string;
  image_square: string | null;
  image_wide: string | null;
  offer_id: number;
  price_text: string;
  title: string;
  url: string;
  url_mobile: string;
}

export interface OffersTable {
  active: Generated<boolean>;
  bid_micros: number;
  campaign_id: number;
  created_at: Generated<Timestamp>;
  deleted_at: Timestamp | null;
  description: string;
  discount: number | null;
  discount_type: string | null;
  id: Generated<number>;
  image_square: string | null;
  image_wide: string | null;
  moderation_reason: string | null;
  moderation_status: Generated<number>;
  old_price: number | null;
  price: number | null;
  price_text: Generated<string>;
  sub_category_id: number | null;
  title: string;
  updated_at: Generated<Timestamp>;
  url: string;
  url_mobile: Generated<string>;
}

export interface OpenrtbWinsTable {
  bid_at: Timestamp;
  bid_price_micros: number;
  billing_notice_at: Timestamp | null;
  block_id: number;
  campaign_id: number;
  clearing_price_micros: number | null;
  impression_id: string;
  offer_id: number;
  viewed_early_at: Timestamp | null;
  win_notice_at: Timestamp | null;
  won_at: Timestamp | null;
}

export interface PasskeysTable {
  account_id: number;
  backed_up: boolean;
  counter: Generated<number>;
  created_at: Timestamp;
  credential_id: string;
  id: Generated<number>;
  last_used_at: Timestamp | null;
  name: string;
  public_key: Buffer;
  transports: Generated<string[]>;
}

export interface PasswordTokensTable {
  account_id: number;
  created_at: Generated<Timestamp>;
  expires_at: Timestamp;
  purpose: "reset" | "invitation";
  token_hash: Buffer;
  used_at: Timestamp | null;
}

export interface PayoutDetailsTable {
  account: string;
  account_id: number;
  holder: string;
  method: string;
  updated_at: Timestamp;
}

export interface PayoutsTable {
  amount_micros: number;
  created_at: Generated<Timestamp>;
  created_by: number | null;
  id: Generated<number>;
  publisher_id: number;
  status: Generated<"pending" | "paid" | "cancelled">;
  updated_at: Generated<Timestamp>;
  wallet: string;
}

export interface PostbackKeysTable {
  advertiser_id: number;
  created_at: Timestamp;
  key_hash: Buffer;
  key_prefix: string;
}

export interface RecoveryCodesTable {
  account_id: number;
  code_hash: Buffer;
  created_at: Timestamp;
  id: Generated<number>;
  used_at: Timestamp | null;
}

export interface RefundedClicksTable {
  advertiser_id: number;
  charge_micros: number;
  click_id: string;
  margin_micros: number;
  publisher_id: number;
  publisher_reversed_micros: number;
  publisher_unrecovered_micros: number;
  refund_id: number;
}

export interface RefundsTable {
  clicks: number;
  comment: Generated<string>;
  created_at: Timestamp;
  created_by: number | null;
  id: Generated<number>;
  margin_reversed_micros: number;
  publisher_reversed_micros: number;
  publisher_unrecovered_micros: number;
  reason: "bot" | "duplicate" | "datacenter" | "click_flood" | "publisher_fraud" | "manual" | "no_opportunity" | "repeat_click" | "concentration" | "network_mismatch";
  refunded_micros: number;
}

export interface RuleChangesTable {
  after_value: number;
  before_value: number;
  block_id: Generated<number>;
  campaign_id: number;
  clicks: number;
  created_at: Timestamp;
  device: Generated<number>;
  field: "coef" | "active";
  id: Generated<number>;
  object_kind: "site" | "block" | "device" | "ad";
  offer_id: Generated<number>;
  orders: number;
  rule_id: number;
  run_kind: "manual" | "schedule";
  site_id: Generated<number>;
  spend_micros: number;
  views: number;
  window_from: string;
  window_to: string;
}

export interface SessionsTable {
  account_id: number;
  created_at: Generated<Timestamp>;
  expires_at: Timestamp;
  id: Generated<number>;
  last_seen_at: Timestamp;
  method: Generated<"password" | "password+totp" | "password+recovery-code" | "passkey">;
  remote_address: Generated<string>;
  revoked_at: Timestamp | null;
  token_hash: Buffer;
  user_agent: Generated<string>;
}

export interface SiteCategoriesTable {
  id: Generated<number>;
  parent_id: number | null;
  title: string;
}

export interface SiteCoefficientsTable {
  block_id: Generated<number>;
  campaign_id: number;
  coef: number;
  site_id: number;
  updated_at: Generated<Timestamp>;
}

export interface SiteReviewsTable {
  actions: Generated<string[]>;
  clicks: number;
  closed_at: Timestamp | null;
  closed_by: number | null;
  evidence: string;
  flagged_at: Timestamp;
  id: Generated<number>;
  invalid_clicks: number;
  period_from: Timestamp;
  period_to: Timestamp;
  publisher_id: number;
  site_id: number;
  status: Generated<string>;
}

export interface SitesTable {
  ads_txt_checked_at: Timestamp | null;
  ads_txt_detail: Generated<string>;
  ads_txt_status: Generated<"unchecked" | "found" | "missing" | "unreachable">;
  category_id: number | null;
  created_at: Generated<Timestamp>;
  domains: Generated<string[]>;
  duplicate_of: number | null;
  id: Generated<number>;
  moderation_reason: string | null;
  monthly_uniq_users: Generated<number>;
  never_personalise: Generated<boolean>;
  publisher_id: number;
  refused_categories: Generated<number[]>;
  status: Generated<number>;
  url: string;
}

export interface SpentChallengesTable {
  challenge_hash: Buffer;
  expires_at: Timestamp;
}

export interface StatsCampaignDailyTable {
  campaign_id: number;
  clicks: Generated<number>;
  conversions_intermediate: Generated<number>;
  conversions_purchase: Generated<number>;
  conversions_registration: Generated<number>;
  day: string;
  invalid_clicks: Generated<number>;
  pixel_conversions_intermediate: Generated<number>;
  pixel_conversions_purchase: Generated<number>;
  pixel_conversions_registration: Generated<number>;
  publisher_income_micros: Generated<number>;
  refunded_clicks: Generated<number>;
  refunded_publisher_income_micros: Generated<number>;
  refunded_spend_micros: Generated<number>;
  served: Generated<number>;
  spend_micros: Generated<number>;
  views: Generated<number>;
}

export interface StatsDailyTable {
  block_id: number;
  campaign_id: number;
  clicks: Generated<number>;
  conversions_intermediate: Generated<number>;
  conversions_purchase: Generated<number>;
  conversions_registration: Generated<number>;
  country: Generated<string>;
  day: string;
  device: number;
  invalid_clicks: Generated<number>;
  offer_id: number;
  pixel_conversions_intermediate: Generated<number>;
  pixel_conversions_purchase: Generated<number>;
  pixel_conversions_registration: Generated<number>;
  publisher_income_micros: Generated<number>;
  refunded_clicks: Generated<number>;
  refunded_publisher_income_micros: Generated<number>;
  refunded_spend_micros: Generated<number>;
  served: Generated<number>;
  site_id: number;
  spend_micros: Generated<number>;
  views: Generated<number>;
}

export interface StatsRollupsTable {
  clicks: Generated<number>;
  conversions_intermediate: Generated<number>;
  conversions_purchase: Generated<number>;
  conversions_registration: Generated<number>;
  day: string;
  hour: Generated<number>;
  invalid_clicks: Generated<number>;
  key_a: number;
  key_b: Generated<number>;
  key_c: Generated<number>;
  pixel_conversions_intermediate: Generated<number>;
  pixel_conversions_purchase: Generated<number>;
  pixel_conversions_registration: Generated<number>;
  publisher_income_micros: Generated<number>;
  refunded_clicks: Generated<number>;
  refunded_publisher_income_micros: Generated<number>;
  refunded_spend_micros: Generated<number>;
  served: Generated<number>;
  shape: number;
  span: number;
  spend_micros: Generated<number>;
  views: Generated<number>;
}

export interface TotpCredentialsTable {
  account_id: number;
  confirmed_at: Timestamp | null;
  created_at: Timestamp;
  last_step: Generated<number>;
  sealed_secret: Buffer;
}

export interface ViewedImpressionsTable {
  expires_at: Timestamp;
  token_id: string;
}

export interface WebhookAttemptsTable {
  attempted_at: Timestamp;
  delivery_id: number;
  endpoint_id: number;
  error: Generated<string>;
  id: Generated<number>;
  latency_ms: number;
  response_excerpt: Generated<string>;
  status_code: number | null;
}

export interface WebhookDeliveriesTable {
  attempts: Generated<number>;
  claimed_until: Timestamp | null;
  created_at: Generated<Timestamp>;
  delivered_at: Timestamp | null;
  endpoint_id: number;
  event_id: string;
  id: Generated<number>;
  next_attempt_at: Timestamp | null;
  status: Generated<"pending" | "delivered" | "failed">;
}

export interface WebhookEndpointsTable {
  account_id: number;
  active: Generated<boolean>;
  balance_threshold_micros: number | null;
  created_at: Generated<Timestamp>;
  description: Generated<string>;
  id: Generated<number>;
  previous_secret: string | null;
  previous_secret_until: Timestamp | null;
  secret: string;
  updated_at: Generated<Timestamp>;
  url: string;
}

export interface WebhookEventsTable {
  account_id: number | null;
  created_at: Generated<Timestamp>;
  id: string;
  payload: string;
  type: string;
}

export interface WebhookSubscriptionsTable {
  endpoint_id: number;
  event_type: string;
}

export interface DatabaseSchema {
  accepted_clicks: AcceptedClicksTable;
  accounts: AccountsTable;
  api_tokens: ApiTokensTable;
  audience_members: AudienceMembersTable;
  audit_entries: AuditEntriesTable;
  blocks: BlocksTable;
  campaign_rules: CampaignRulesTable;
  campaigns: CampaignsTable;
  categories: CategoriesTable;
  change_counters: ChangeCountersTable;
  clicks: ClicksTable;
  conversions: ConversionsTable;
  deleted_rules: DeletedRulesTable;
  device_coefficients: DeviceCoefficientsTable;
  email_confirmations: EmailConfirmationsTable;
  idempotency_keys: IdempotencyKeysTable;
  ledger_entries: LedgerEntriesTable;
  mail_outbox: MailOutboxTable;
  moderation_reasons: ModerationReasonsTable;
  notification_settings: NotificationSettingsTable;
  notifications: NotificationsTable;
  offer_approved_versions: OfferApprovedVersionsTable;
  offers: OffersTable;
  openrtb_wins: OpenrtbWinsTable;
  passkeys: PasskeysTable;
  password_tokens: PasswordTokensTable;
  payout_details: PayoutDetailsTable;
  payouts: PayoutsTable;
  postback_keys: PostbackKeysTable;
  recovery_codes: RecoveryCodesTable;
  refunded_clicks: RefundedClicksTable;
  refunds: RefundsTable;
  rule_changes: RuleChangesTable;
  sessions: SessionsTable;
  site_categories: SiteCategoriesTable;
  site_coefficients: SiteCoefficientsTable;
  site_reviews: SiteReviewsTable;
  sites: SitesTable;
  spent_challenges: SpentChallengesTable;
  stats_campaign_daily: StatsCampaignDailyTable;
  stats_daily: StatsDailyTable;
  stats_rollups: StatsRollupsTable;
  totp_credentials: TotpCredentialsTable;
  viewed_impressions: ViewedImpressionsTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
}

/** Value sets of CHECK constraints, by the names the code uses. */
export type AccountKind = "advertiser" | "publisher" | "operator";

export const CONVERSION_SOURCES = ["pixel", "postback"] as const;

export type ConversionSource = (typeof CONVERSION_SOURCES)[number];

export type OutboxStatus = "queued" | "sent" | "failed";

export type PasswordTokenPurpose = "reset" | "invitation";

export type PayoutStatus = "pending" | "paid" | "cancelled";

export const REFUND_REASONS = ["bot", "duplicate", "datacenter", "click_flood", "publisher_fraud", "manual", "no_opportunity", "repeat_click", "concentration", "network_mismatch"] as const;

export type RefundReason = (typeof REFUND_REASONS)[number];

export type RuleAction = "set_coefficient" | "block" | "pause";

export type RuleComparison = "gt" | "gte" | "lt" | "lte";

export type RuleMetric = "cpa" | "ctr" | "conversions" | "spend_without_conversion";

export type RuleScope = "site" | "block" | "device" | "ad";

export const SESSION_METHODS = ["password", "password+totp", "password+recovery-code", "passkey"] as const;

export type SessionMethod = (typeof SESSION_METHODS)[number];

export type WebhookDeliveryStatus = "pending" | "delivered" | "failed";
