import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Clock, systemClock } from './clock.ts';
import type { AccountKind } from './db/schema.ts';
import type { SiteReviewRule } from './modules/invalid-traffic/site-review-job.ts';
import { SIVT_DEFAULTS, type SivtRules } from './modules/invalid-traffic/sivt-rules.ts';
import {
  RETENTION_DEFAULT_DAYS,
  RETENTION_KINDS,
  type RetentionKind,
  retentionVariable,
} from './modules/privacy/retention-kinds.ts';
import type { ClickFloodRule } from './modules/refunds/click-flood-detector.ts';
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
const LOG_FORMATS: readonly LogFormat[] = ['pretty', 'json'];

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Reads the configuration from environment variables. Every bad value is reported at once,
 * one line each, so an operator fixes them all in one go.
 */
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const problems: string[] = [];
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name}=${raw}: expected an integer from ${min} to ${max}`);
      return fallback;
    }
    return value;
  };
  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) {
        problems.push(`${name}: expected a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`);
      }
    } catch {
      problems.push(`${name}: not a valid URL`);
    }
    return raw;
  };
  const bool = (name: string): boolean => {
    const raw = env[name];
    if (raw === undefined || raw === '') return false;
    if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
    if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
    problems.push(`${name}=${raw}: expected true or false`);
    return false;
  };

  const timeZone = env.TZ || 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    problems.push(`TZ=${timeZone}: unknown time zone`);
  }
  const logLevel = env.LOG_LEVEL || 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    problems.push(`LOG_LEVEL=${logLevel}: expected one of ${LOG_LEVELS.join(', ')}`);
  }
  const logFormat = (env.LOG_FORMAT || (process.stdout.isTTY ? 'pretty' : 'json')) as LogFormat;
  if (!LOG_FORMATS.includes(logFormat)) problems.push(`LOG_FORMAT=${logFormat}: expected pretty or json`);
  const metricsToken = env.METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && metricsToken.length < 16) problems.push('METRICS_TOKEN: must be at least 16 characters');
  const currency = (env.CURRENCY || 'USD').toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency) || !Intl.supportedValuesOf('currency').includes(currency)) {
    problems.push(`CURRENCY=${env.CURRENCY}: expected an ISO 4217 currency code such as USD or EUR`);
  }
  const tlsCertPath = env.TLS_CERT || undefined;
  const tlsKeyPath = env.TLS_KEY || undefined;
  if ((tlsCertPath === undefined) !== (tlsKeyPath === undefined)) {
    problems.push('TLS_CERT and TLS_KEY: give both or neither');
  }
  const sharePercent = int('REVENUE_SHARE_PERCENT', 70, 0, 100);
  const minPayoutMicros = parseMoney(env.MIN_PAYOUT || '0');
  if (minPayoutMicros === undefined || minPayoutMicros < 0) {
    problems.push(`MIN_PAYOUT=${env.MIN_PAYOUT}: expected a non-negative amount such as 50 or 25.5`);
  }
  const publicUrl = url('PUBLIC_URL', ['https:']);
  const signingSecret = env.SIGNING_SECRET || undefined;
  let webhookCa: string | undefined;
  if (env.WEBHOOK_CA_FILE) {
    try {
      webhookCa = readFileSync(env.WEBHOOK_CA_FILE, 'utf8');
    } catch {
      problems.push(`WEBHOOK_CA_FILE=${env.WEBHOOK_CA_FILE}: cannot be read`);
    }
  }
  if (signingSecret !== undefined && signingSecret.length < 32) {
    problems.push('SIGNING_SECRET: must be at least 32 characters');
  }

  const require2faFor = kindList('REQUIRE_2FA_FOR', env.REQUIRE_2FA_FOR, problems);

  const config: Config = {
    port: int('PORT', 8443, 0, 65535),
    host: env.HOST || '0.0.0.0',
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl: url('DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: url('REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: env.REDIS_KEY_PREFIX || 'nativa:',
    redisTimeoutMs: int('REDIS_TIMEOUT_MS', 50, 5, 10_000),
    // Unset: start-up waits for the database as long as it takes (a supervisor expects an instance
    // that comes up by itself once the database does, whatever the outage's length).
    databaseWaitMs: env.DATABASE_WAIT_SECONDS ? int('DATABASE_WAIT_SECONDS', 0, 0, 86_400) * 1000 : Number.POSITIVE_INFINITY,
    databaseStatementTimeoutMs: int('DATABASE_STATEMENT_TIMEOUT_MS', 10_000, 0, 86_400_000),
    databaseConnectTimeoutMs: int('DATABASE_CONNECT_TIMEOUT_MS', 2000, 100, 600_000),
    databaseIdleInTransactionTimeoutMs: int('DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', 30_000, 0, 86_400_000),
    clickAcceptTimeoutMs: int('CLICK_ACCEPT_TIMEOUT_MS', 1000, 50, 60_000),
    tlsCertPath,
    tlsKeyPath,
    trustProxy: bool('TRUST_PROXY'),
    rateLimitPerSecond: int('RATE_LIMIT_RPS', 5, 1, 1_000_000),
    sessionRateLimitPerSecond: int('SESSION_RATE_LIMIT_RPS', 50, 1, 1_000_000),
    publicRateLimitPerSecond: int('PUBLIC_RATE_LIMIT_RPS', 5, 1, 1_000_000),
    timeZone,
    publicUrl: publicUrl?.replace(/\/+$/, ''),
    smtpUrl: url('SMTP_URL', ['smtp:', 'smtps:']),
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 8 * 1024 * 1024, 1024, 256 * 1024 * 1024),
    publicBodyLimitBytes: int('PUBLIC_BODY_LIMIT_BYTES', 16 * 1024, 1024, 8 * 1024 * 1024),
    bodyMaxMembers: int('BODY_MAX_MEMBERS', 10_000, 100, 10_000_000),
    logLevel,
    logFormat,
    metricsToken,
    currency,
    revenueShare: sharePercent / 100,
    minPayoutMicros: Math.max(0, minPayoutMicros ?? 0),
    signingSecret,
    servingRefreshMs: int('SERVING_REFRESH_MS', 2000, 100, 600_000),
    nats: natsSettings(env, problems, int),
    clickFlood: clickFloodRule(
      int('CLICK_FLOOD_MAX_CLICKS', 0, 0, 1_000_000),
      int('CLICK_FLOOD_WINDOW_S', 60, 1, 86_400),
      int('CLICK_FLOOD_SWEEP_S', 60, 1, 3_600),
    ),
    ivtAsnFiles: (env.IVT_ASN_FILE ?? '')
      .split(',')
      .map((file) => file.trim())
      .filter((file) => file !== ''),
    ivtHostingFile: env.IVT_HOSTING_FILE || undefined,
    ivtAllowDevHosts: bool('IVT_ALLOW_DEV_HOSTS'),
    sivt: {
      sweepMs: int('IVT_SWEEP_S', SIVT_DEFAULTS.sweepMs / 1000, 0, 3600) * 1000,
      settleMs: int('IVT_SETTLE_S', SIVT_DEFAULTS.settleMs / 1000, 0, 600) * 1000,
      noOpportunityMs: int('IVT_NO_OPPORTUNITY_MS', SIVT_DEFAULTS.noOpportunityMs, 0, 60_000),
      repeatClickMax: int('IVT_REPEAT_CLICK_MAX', SIVT_DEFAULTS.repeatClickMax, 0, 1_000_000),
      repeatClickWindowMs: int('IVT_REPEAT_CLICK_WINDOW_S', SIVT_DEFAULTS.repeatClickWindowMs / 1000, 1, 7 * 86_400) * 1000,
      concentrationZ: int('IVT_CONCENTRATION_Z', SIVT_DEFAULTS.concentrationZ, 0, 1000),
      concentrationShare: int('IVT_CONCENTRATION_SHARE_PERCENT', SIVT_DEFAULTS.concentrationShare * 100, 1, 100) / 100,
      concentrationMinClicks: int('IVT_CONCENTRATION_MIN_CLICKS', SIVT_DEFAULTS.concentrationMinClicks, 1, 1_000_000),
      concentrationWindowMs: int('IVT_CONCENTRATION_WINDOW_S', SIVT_DEFAULTS.concentrationWindowMs / 1000, 60, 7 * 86_400) * 1000,
      networkMismatch:
        env.IVT_NETWORK_MISMATCH === undefined || env.IVT_NETWORK_MISMATCH === '' ? true : bool('IVT_NETWORK_MISMATCH'),
    },
    siteReview: {
      sharePercent: int('IVT_REVIEW_SHARE_PERCENT', 20, 1, 100),
      minClicks: int('IVT_REVIEW_MIN_CLICKS', 100, 1, 1_000_000_000),
      windowMs: int('IVT_REVIEW_WINDOW_HOURS', 24, 1, 24 * 90) * 3_600_000,
      intervalMs: int('IVT_REVIEW_INTERVAL_SECONDS', 3600, 0, 7 * 86_400) * 1000,
    },
    rulesIntervalMs: int('RULES_INTERVAL_SECONDS', 3600, 60, 7 * 86_400) * 1000,
    webhookAllowPrivate: bool('WEBHOOK_ALLOW_PRIVATE'),
    webhookCa,
    webhookTimeoutMs: int('WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    require2faFor,
    sessionMaxAgeMs: int('SESSION_MAX_AGE_DAYS', 30, 1, 365) * 86_400_000,
    tcfVendorId: env.TCF_VENDOR_ID ? int('TCF_VENDOR_ID', 0, 1, 65_535) : undefined,
    retentionDays: Object.fromEntries(
      RETENTION_KINDS.map((kind) => [kind, int(retentionVariable(kind), RETENTION_DEFAULT_DAYS[kind], 0, 36_500)]),
    ) as Record<RetentionKind, number>,
    retentionIntervalMs: int('RETENTION_INTERVAL_SECONDS', 3600, 60, 7 * 86_400) * 1000,
    adsTxtDomain: adsTxtDomain(env.ADS_TXT_DOMAIN, publicUrl, problems),
    sellersContact: { email: env.SELLERS_CONTACT_EMAIL || undefined, address: env.SELLERS_CONTACT_ADDRESS || undefined },
    adsTxtCheckIntervalMs: int('ADS_TXT_CHECK_HOURS', 24, 0, 24 * 365) * 3_600_000,
    crashAfterCommit: bool('NATIVA_TEST_CRASH_AFTER_COMMIT'),
    crashMidSettlement: bool('NATIVA_TEST_CRASH_MID_SETTLEMENT'),
    clock: systemClock,
    ...overrides,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** The network's domain for ads.txt: ADS_TXT_DOMAIN, else PUBLIC_URL's host, else none (the request's host is used). */
function adsTxtDomain(raw: string | undefined, publicUrl: string | undefined, problems: string[]): string | undefined {
  if (raw !== undefined && raw !== '') {
    if (!/^[a-z0-9.-]+\.[a-z]{2,}$/i.test(raw)) problems.push(`ADS_TXT_DOMAIN=${raw}: expected a domain such as ads.example.com`);
    return raw.toLowerCase();
  }
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

/** The click flood rule from its variables: none when the allowance is 0. */
function clickFloodRule(maxClicks: number, windowSeconds: number, sweepSeconds: number): ClickFloodRule | undefined {
  if (maxClicks === 0) return undefined;
  return { maxClicks, windowMs: windowSeconds * 1000, sweepMs: sweepSeconds * 1000 };
}

/** NATS_URL and its companions; undefined without NATS_URL. */
function natsSettings(
  env: Env,
  problems: string[],
  int: (name: string, fallback: number, min: number, max: number) => number,
): NatsSettings | undefined {
  const raw = env.NATS_URL;
  const stream = env.NATS_STREAM || 'NATIVA_EVENTS';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(stream)) problems.push(`NATS_STREAM=${stream}: expected 1 to 64 letters, digits, _ or -`);
  const replicas = int('NATS_REPLICAS', 3, 1, 5);
  const ackWaitMs = int('NATS_ACK_WAIT_MS', 30_000, 1000, 600_000);
  if (raw === undefined || raw === '') return undefined;
  const servers = raw.split(',').map((entry) => entry.trim());
  for (const server of servers) {
    try {
      if (!['nats:', 'tls:'].includes(new URL(server).protocol)) throw new Error('protocol');
    } catch {
      problems.push(`NATS_URL: ${server || '(empty)'} is not a nats://host:port or tls://host:port URL`);
    }
  }
  return { servers, stream, replicas, ackWaitMs };
}
