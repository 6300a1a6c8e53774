import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Clock, systemClock } from './clock.ts';
import type { AccountKind } from './db/schema.ts';
import { readVariables, type VariableValues } from './environment-variables.ts';
import type { SiteReviewRule, SivtRules } from './modules/invalid-traffic/sivt-rules.ts';
import { RETENTION_KINDS, type RetentionKind, retentionVariable } from './modules/privacy/retention-kinds.ts';
import type { ClickFloodRule } from './modules/refunds/click-flood-rule.ts';
import { parseMoney } from './money.ts';

/** Everything the server needs from its environment, validated once at start. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** Prefix of every Redis key, so several deployments (or test runs) can share one Redis. */
  redisKeyPrefix: string;
  /** How long a request waits for Redis before it answers from in-process state (ms). */
  redisTimeoutMs: number;
  /** How long start-up waits for an unreachable database before it exits (ms; 0: exits at once; Infinity: never). */
  databaseWaitMs: number;
  /** PostgreSQL: statements of the server's pool longer than this are cancelled (0: never). */
  databaseStatementTimeoutMs: number;
  /** PostgreSQL: how long a request waits for a connection, new or a turn in the pool (ms). */
  databaseConnectTimeoutMs: number;
  /** PostgreSQL: a session idle inside a transaction longer than this is ended by the server (0: never). */
  databaseIdleInTransactionTimeoutMs: number;
  /** How long a click's redirect waits for the database to take the click before it goes unrecorded (ms). */
  clickAcceptTimeoutMs: number;
  tlsCertPath: string | undefined;
  tlsKeyPath: string | undefined;
  trustProxy: boolean;
  rateLimitPerSecond: number;
  /** A browser session's own budget: a person's pages, never the scripts' per-token one. */
  sessionRateLimitPerSecond: number;
  /** Requests per second per client address on the public account routes (sign-in, reset, confirmation). */
  publicRateLimitPerSecond: number;
  timeZone: string;
  publicUrl: string | undefined;
  smtpUrl: string | undefined;
  bodyLimitBytes: number;
  /** Largest body of the public account routes (sign-in, second factor, reset, confirmation). */
  publicBodyLimitBytes: number;
  /** Fields and list items a request body may hold in all, at any depth, before it is read further. */
  bodyMaxMembers: number;
  logLevel: string;
  /** Human-readable log lines (a terminal) or one JSON object per line (a log collector). */
  logFormat: LogFormat;
  /** A token that may read /api/metrics besides operator tokens (a Prometheus scraper's). */
  metricsToken: string | undefined;
  /** The platform currency (ISO 4217), in which every amount is kept and shown. */
  currency: string;
  /** Share of a billed click that goes to the publisher, as a fraction of 1. */
  revenueShare: number;
  /** The network's minimum payout (MIN_PAYOUT), in micros: shown to publishers with their balance; 0 means none. */
  minPayoutMicros: number;
  /** Secret for signing click links; generated into DATA_DIR when not given. */
  signingSecret: string | undefined;
  /** How often the serving engine rebuilds its in-memory index from the database (ms). */
  servingRefreshMs: number;
  /** SERVING_FAST_PATH: the serving fast path answers what it takes (src/http/fast-path.ts). */
  servingFastPath: boolean;
  /**
   * The event log in front of the database (docs/adr/0029): NATS servers (NATS_URL, comma-separated),
   * or undefined to write clicks and views to the database on their requests.
   */
  nats: NatsSettings | undefined;
  /** The automatic click flood refund (docs/refunds.md); undefined when CLICK_FLOOD_MAX_CLICKS is 0 (off). */
  clickFlood: ClickFloodRule | undefined;
  /** The lists of general invalid traffic (docs/invalid-traffic.md): ASN tables and hosting list, when not the shipped ones. */
  ivtAsnFiles: string[];
  ivtHostingFile: string | undefined;
  /** `localhost`, `*.test` and private addresses count as every site's domain (development). */
  ivtAllowDevHosts: boolean;
  /** The after-the-fact rules of invalid traffic and their thresholds. */
  sivt: SivtRules;
  /** The review rule of sites with much invalid traffic (docs/invalid-traffic.md, "Review queue"). */
  siteReview: SiteReviewRule;
  /** How often each enabled optimisation rule runs (ms); the scheduler looks for due rules every minute at most. */
  rulesIntervalMs: number;
  /** Webhooks may be delivered to loopback and private addresses (tests, a closed network); refused otherwise. */
  webhookAllowPrivate: boolean;
  /** PEM certificates webhook deliveries trust besides the public roots (WEBHOOK_CA_FILE). */
  webhookCa: string | undefined;
  /** Bound on one webhook delivery attempt (connect to last byte); the delivery lease is three times this. */
  webhookTimeoutMs: number;
  /** Account kinds whose browser sessions must have two-factor sign-in (REQUIRE_2FA_FOR, e.g. `operator`). */
  require2faFor: AccountKind[];
  /** A browser session ends this long after sign-in, however busy (SESSION_MAX_AGE_DAYS). */
  sessionMaxAgeMs: number;
  /** Nativa's IAB TCF Global Vendor List id (TCF_VENDOR_ID); undefined: consent is decided on the purposes alone. */
  tcfVendorId: number | undefined;
  /** Days each kind of data is kept (RETENTION_<KIND>_DAYS; 0 keeps it forever), docs/privacy.md. */
  retentionDays: Record<RetentionKind, number>;
  /** How often the retention job runs (RETENTION_INTERVAL_SECONDS). */
  retentionIntervalMs: number;
  /** The network's domain in ads.txt lines and sellers.json (ADS_TXT_DOMAIN; default PUBLIC_URL's host). */
  adsTxtDomain: string | undefined;
  /** The operator's contact in sellers.json (SELLERS_CONTACT_EMAIL, SELLERS_CONTACT_ADDRESS). */
  sellersContact: { email: string | undefined; address: string | undefined };
  /** How often each active site's /ads.txt is checked (ADS_TXT_CHECK_HOURS; 0: never). */
  adsTxtCheckIntervalMs: number;
  /**
   * Test only (NATIVA_TEST_CRASH_MID_SETTLEMENT): on SIGUSR2 the process arms itself to SIGKILL
   * right after the next committed settlement of logged events, before acknowledging them.
   */
  crashMidSettlement: boolean;
  /**
   * Test only (NATIVA_TEST_CRASH_AFTER_COMMIT): the process SIGKILLs itself right after a request
   * with an Idempotency-Key commits, before it answers (the crash test of docs/adr/0012).
   */
  crashAfterCommit: boolean;
  clock: Clock;
}

/** Where and how clicks and views are logged in NATS JetStream (docs/operating.md, NATS). */
export interface NatsSettings {
  /** Server URLs (nats://host:port); the client reconnects to whichever answers. */
  servers: string[];
  /** The JetStream stream's name (NATS_STREAM); its subjects are `<name>.click` and `<name>.view`. */
  stream: string;
  /** Copies of each event, on different servers (NATS_REPLICAS): 3 in production, 1 on a single server. */
  replicas: number;
  /** How long a delivered event may stay unacknowledged before JetStream delivers it again (NATS_ACK_WAIT_MS). */
  ackWaitMs: number;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

type Env = Record<string, string | undefined>;

export type LogFormat = 'pretty' | 'json';

/**
 * Reads the configuration from environment variables (src/environment-variables.ts lists them).
 * Every bad value is reported at once, one line each, so an operator fixes them all in one go.
 */
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const problems: string[] = [];
  const vars = readVariables(env, problems);
  if ((vars.TLS_CERT === undefined) !== (vars.TLS_KEY === undefined)) problems.push('TLS_CERT and TLS_KEY: give both or neither');
  let webhookCa: string | undefined;
  if (vars.WEBHOOK_CA_FILE !== undefined) {
    try {
      webhookCa = readFileSync(vars.WEBHOOK_CA_FILE, 'utf8');
    } catch {
      problems.push(`WEBHOOK_CA_FILE=${vars.WEBHOOK_CA_FILE}: cannot be read`);
    }
  }
  const seconds = (value: number) => value * 1000;
  const hours = (value: number) => value * 3_600_000;

  const config: Config = {
    port: vars.PORT,
    host: vars.HOST,
    dataDir: path.resolve(vars.DATA_DIR),
    databaseUrl: vars.DATABASE_URL,
    redisUrl: vars.REDIS_URL,
    redisKeyPrefix: vars.REDIS_KEY_PREFIX,
    redisTimeoutMs: vars.REDIS_TIMEOUT_MS,
    // Unset: start-up waits for the database as long as it takes (a supervisor expects an instance
    // that comes up by itself once the database does, whatever the outage's length).
    databaseWaitMs: vars.DATABASE_WAIT_SECONDS === undefined ? Number.POSITIVE_INFINITY : seconds(vars.DATABASE_WAIT_SECONDS),
    databaseStatementTimeoutMs: vars.DATABASE_STATEMENT_TIMEOUT_MS,
    databaseConnectTimeoutMs: vars.DATABASE_CONNECT_TIMEOUT_MS,
    databaseIdleInTransactionTimeoutMs: vars.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    clickAcceptTimeoutMs: vars.CLICK_ACCEPT_TIMEOUT_MS,
    tlsCertPath: vars.TLS_CERT,
    tlsKeyPath: vars.TLS_KEY,
    trustProxy: vars.TRUST_PROXY,
    rateLimitPerSecond: vars.RATE_LIMIT_RPS,
    sessionRateLimitPerSecond: vars.SESSION_RATE_LIMIT_RPS,
    publicRateLimitPerSecond: vars.PUBLIC_RATE_LIMIT_RPS,
    timeZone: vars.TZ,
    publicUrl: vars.PUBLIC_URL?.replace(/\/+$/, ''),
    smtpUrl: vars.SMTP_URL,
    bodyLimitBytes: vars.BODY_LIMIT_BYTES,
    publicBodyLimitBytes: vars.PUBLIC_BODY_LIMIT_BYTES,
    bodyMaxMembers: vars.BODY_MAX_MEMBERS,
    logLevel: vars.LOG_LEVEL,
    // Unset, the format follows the output: a person at a terminal, or a log collector.
    logFormat: env.LOG_FORMAT ? vars.LOG_FORMAT : process.stdout.isTTY ? 'pretty' : 'json',
    metricsToken: vars.METRICS_TOKEN,
    currency: vars.CURRENCY.toUpperCase(),
    revenueShare: vars.REVENUE_SHARE_PERCENT / 100,
    minPayoutMicros: Math.max(0, parseMoney(vars.MIN_PAYOUT) ?? 0),
    signingSecret: vars.SIGNING_SECRET,
    servingRefreshMs: vars.SERVING_REFRESH_MS,
    servingFastPath: vars.SERVING_FAST_PATH,
    nats: natsSettings(vars, problems),
    clickFlood:
      vars.CLICK_FLOOD_MAX_CLICKS === 0
        ? undefined
        : {
            maxClicks: vars.CLICK_FLOOD_MAX_CLICKS,
            windowMs: seconds(vars.CLICK_FLOOD_WINDOW_S),
            sweepMs: seconds(vars.CLICK_FLOOD_SWEEP_S),
          },
    ivtAsnFiles: vars.IVT_ASN_FILE,
    ivtHostingFile: vars.IVT_HOSTING_FILE,
    ivtAllowDevHosts: vars.IVT_ALLOW_DEV_HOSTS,
    sivt: {
      sweepMs: seconds(vars.IVT_SWEEP_S),
      settleMs: seconds(vars.IVT_SETTLE_S),
      noOpportunityMs: vars.IVT_NO_OPPORTUNITY_MS,
      repeatClickMax: vars.IVT_REPEAT_CLICK_MAX,
      repeatClickWindowMs: seconds(vars.IVT_REPEAT_CLICK_WINDOW_S),
      concentrationZ: vars.IVT_CONCENTRATION_Z,
      concentrationShare: vars.IVT_CONCENTRATION_SHARE_PERCENT / 100,
      concentrationMinClicks: vars.IVT_CONCENTRATION_MIN_CLICKS,
      concentrationWindowMs: seconds(vars.IVT_CONCENTRATION_WINDOW_S),
      networkMismatch: vars.IVT_NETWORK_MISMATCH,
    },
    siteReview: {
      sharePercent: vars.IVT_REVIEW_SHARE_PERCENT,
      minClicks: vars.IVT_REVIEW_MIN_CLICKS,
      windowMs: hours(vars.IVT_REVIEW_WINDOW_HOURS),
      intervalMs: seconds(vars.IVT_REVIEW_INTERVAL_SECONDS),
    },
    rulesIntervalMs: seconds(vars.RULES_INTERVAL_SECONDS),
    webhookAllowPrivate: vars.WEBHOOK_ALLOW_PRIVATE,
    webhookCa,
    webhookTimeoutMs: vars.WEBHOOK_TIMEOUT_MS,
    require2faFor: kindList('REQUIRE_2FA_FOR', vars.REQUIRE_2FA_FOR, problems),
    sessionMaxAgeMs: vars.SESSION_MAX_AGE_DAYS * 86_400_000,
    tcfVendorId: vars.TCF_VENDOR_ID,
    retentionDays: Object.fromEntries(RETENTION_KINDS.map((kind) => [kind, vars[retentionVariable(kind)]])) as Record<
      RetentionKind,
      number
    >,
    retentionIntervalMs: seconds(vars.RETENTION_INTERVAL_SECONDS),
    adsTxtDomain: vars.ADS_TXT_DOMAIN?.toLowerCase() ?? hostOf(vars.PUBLIC_URL),
    sellersContact: { email: vars.SELLERS_CONTACT_EMAIL, address: vars.SELLERS_CONTACT_ADDRESS },
    adsTxtCheckIntervalMs: hours(vars.ADS_TXT_CHECK_HOURS),
    crashAfterCommit: vars.NATIVA_TEST_CRASH_AFTER_COMMIT,
    crashMidSettlement: vars.NATIVA_TEST_CRASH_MID_SETTLEMENT,
    clock: systemClock,
    ...overrides,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** The network's domain for ads.txt when ADS_TXT_DOMAIN is unset: PUBLIC_URL's host, else none (the request's host is used). */
function hostOf(publicUrl: string | undefined): string | undefined {
  if (publicUrl === undefined) return undefined;
  try {
    return new URL(publicUrl).hostname;
  } catch {
    return undefined;
  }
}

const ACCOUNT_KINDS: readonly AccountKind[] = ['advertiser', 'publisher', 'operator'];

/** A comma-separated list of account kinds (`operator`, `operator,advertiser`, `all`); empty is none. */
function kindList(name: string, raw: string | undefined, problems: string[]): AccountKind[] {
  if (raw === undefined || raw.trim() === '') return [];
  const items = raw.split(',').map((item) => item.trim().toLowerCase());
  if (items.includes('all')) return [...ACCOUNT_KINDS];
  const unknown = items.filter((item) => !(ACCOUNT_KINDS as readonly string[]).includes(item));
  if (unknown.length > 0) problems.push(`${name}=${raw}: expected account kinds (${ACCOUNT_KINDS.join(', ')}) or all`);
  return ACCOUNT_KINDS.filter((kind) => items.includes(kind));
}

/** NATS_URL and its companions; undefined without NATS_URL. */
function natsSettings(vars: VariableValues, problems: string[]): NatsSettings | undefined {
  if (vars.NATS_URL.length === 0) return undefined;
  for (const server of vars.NATS_URL) {
    try {
      if (!['nats:', 'tls:'].includes(new URL(server).protocol)) throw new Error('protocol');
    } catch {
      problems.push(`NATS_URL: ${server} is not a nats://host:port or tls://host:port URL`);
    }
  }
  return { servers: vars.NATS_URL, stream: vars.NATS_STREAM, replicas: vars.NATS_REPLICAS, ackWaitMs: vars.NATS_ACK_WAIT_MS };
}
