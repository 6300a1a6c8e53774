/**
 * Every environment variable the server reads, in one list: its name, default, bounds and what it
 * means. `loadConfig` (src/config.ts) reads the environment through this list, and
 * docs/configuration.md's table is written from it (`npm run docs:config`; a test fails while the
 * page is stale), so the page and the code cannot tell two stories.
 */

import { SIVT_DEFAULTS } from './modules/invalid-traffic/sivt-rules.ts';
import {
  RETENTION_DEFAULT_DAYS,
  RETENTION_KINDS,
  type RetentionVariable,
  retentionVariable,
} from './modules/privacy/retention-kinds.ts';
import { parseMoney } from './money.ts';

type Env = Record<string, string | undefined>;

/** One variable: how its text becomes a value, and how the configuration page describes it. */
export interface Variable<T> {
  /** The table's default column (`(none)` when there is none). */
  readonly shownDefault: string;
  /** What it does, in the operator's words (Markdown; bounds are added from the reader). */
  readonly meaning: string;
  /** Bounds, appended to the meaning on the page. */
  readonly range?: string;
  /** Test-only variables stay off the page. */
  readonly internal?: boolean;
  /** The value; a bad text adds one line to `problems` (naming the variable) and gives the default. */
  read(raw: string | undefined, name: string, problems: string[]): T;
}

const isUnset = (raw: string | undefined): raw is undefined | '' => raw === undefined || raw === '';

/** An integer within bounds, in the unit its name says (loadConfig turns seconds and days into milliseconds). */
function integer(options: {
  default: number;
  min: number;
  max: number;
  meaning: string;
  shownDefault?: string;
}): Variable<number> {
  return {
    shownDefault: options.shownDefault ?? `\`${options.default}\``,
    meaning: options.meaning,
    range: `${options.min} to ${options.max}`,
    read(raw, name, problems) {
      if (isUnset(raw)) return options.default;
      const value = Number(raw);
      if (!Number.isInteger(value) || value < options.min || value > options.max) {
        problems.push(`${name}=${raw}: expected an integer from ${options.min} to ${options.max}`);
        return options.default;
      }
      return value;
    },
  };
}

/** An integer within bounds, or nothing when unset. */
function optionalInteger(options: { min: number; max: number; meaning: string }): Variable<number | undefined> {
  const inner = integer({ ...options, default: 0 });
  return {
    shownDefault: '(none)',
    meaning: options.meaning,
    range: inner.range,
    read: (raw, name, problems) => (isUnset(raw) ? undefined : inner.read(raw, name, problems)),
  };
}

/** `true`/`1`/`yes` or `false`/`0`/`no`. */
function flag(options: { default?: boolean; meaning: string; internal?: boolean }): Variable<boolean> {
  const fallback = options.default ?? false;
  return {
    shownDefault: `\`${fallback}\``,
    meaning: options.meaning,
    internal: options.internal,
    read(raw, name, problems) {
      if (isUnset(raw)) return fallback;
      if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
      if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
      problems.push(`${name}=${raw}: expected true or false`);
      return fallback;
    },
  };
}

/** A URL with one of the given schemes, or nothing when unset. */
function url(options: { protocols: string[]; meaning: string }): Variable<string | undefined> {
  return {
    shownDefault: '(none)',
    meaning: options.meaning,
    read(raw, name, problems) {
      if (isUnset(raw)) return undefined;
      try {
        if (!options.protocols.includes(new URL(raw).protocol)) {
          problems.push(`${name}: expected a URL starting with ${options.protocols.map((p) => `${p}//`).join(' or ')}`);
        }
      } catch {
        problems.push(`${name}: not a valid URL`);
      }
      return raw;
    },
  };
}

/** Free text, or its default; `check` names what is wrong with a given value. */
function text<D extends string | undefined>(options: {
  default: D;
  meaning: string;
  shownDefault?: string;
  check?: (value: string) => string | undefined;
}): Variable<string | D> {
  return {
    shownDefault: options.shownDefault ?? (options.default === undefined ? '(none)' : `\`${options.default}\``),
    meaning: options.meaning,
    read(raw, name, problems) {
      if (isUnset(raw)) return options.default;
      const wrong = options.check?.(raw);
      if (wrong !== undefined) problems.push(`${name}${wrong}`);
      return raw;
    },
  };
}

/** One of a fixed set of words. */
function choice<const W extends string>(options: {
  values: readonly W[];
  default: W;
  meaning: string;
  shownDefault?: string;
}): Variable<W> {
  return {
    shownDefault: options.shownDefault ?? `\`${options.default}\``,
    meaning: options.meaning,
    read(raw, name, problems) {
      if (isUnset(raw)) return options.default;
      if ((options.values as readonly string[]).includes(raw)) return raw as W;
      const expected = options.values.length === 2 ? options.values.join(' or ') : `one of ${options.values.join(', ')}`;
      problems.push(`${name}=${raw}: expected ${expected}`);
      return options.default;
    },
  };
}

/** A comma-separated list of non-empty items. */
function list(options: { meaning: string; shownDefault: string }): Variable<string[]> {
  return {
    shownDefault: options.shownDefault,
    meaning: options.meaning,
    read: (raw) =>
      (raw ?? '')
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== ''),
  };
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * The variables, in the order of the configuration page. Derived values (seconds into
 * milliseconds, a percentage into a fraction, cross-variable checks) are made by `loadConfig`.
 */
export const VARIABLES = {
  PORT: integer({ default: 8443, min: 0, max: 65_535, meaning: 'HTTPS port' }),
  HOST: text({ default: '0.0.0.0', meaning: 'listen address' }),
  DATA_DIR: text({
    default: './data',
    meaning: 'embedded database, generated certificate, operator token, images',
  }),
  DATABASE_URL: url({
    protocols: ['postgres:', 'postgresql:'],
    meaning: '`postgres://…`; without it, embedded PGlite in `DATA_DIR/pglite`',
  }),
  DATABASE_WAIT_SECONDS: optionalInteger({
    min: 0,
    max: 86_400,
    meaning:
      'start-up with the database unreachable: the port answers at once (liveness `starting`, readiness and everything else 503) and the database is retried with backoff (0.25 s doubling to 5 s, each attempt logged with the host and `DATABASE_URL` without its password); unset, until it answers; set, for up to this long, then exit 1 naming them; `0` exits at once ([operating.md](operating.md#starting-while-the-database-is-away))',
  }),
  DATABASE_CONNECT_TIMEOUT_MS: integer({
    default: 2000,
    min: 100,
    max: 600_000,
    meaning:
      "PostgreSQL: how long a request or a background job waits for a connection, a new one or a turn in the pool's queue; past it, it fails as unavailable (the API answers 503 `database_unavailable` with `Retry-After`). A database that is down on the same machine refuses at once; one frozen or behind a broken network costs this long ([operating.md](operating.md#a-database-that-stops-answering))",
  }),
  DATABASE_STATEMENT_TIMEOUT_MS: integer({
    default: 10_000,
    min: 0,
    max: 86_400_000,
    meaning:
      "PostgreSQL: a statement of the server's pool running longer is cancelled by the server (`statement_timeout`, sent as a startup parameter) and its request answers 503 `database_unavailable` with `Retry-After`, so a slow or locked database does not hold requests and connections for ever. A server that does not answer at all cannot cancel anything: the pool itself stops waiting one second later (`query_timeout`), closes that connection and fails the statement the same way. Migrations and other work run through a held session (`withSession`) have neither bound; the CLI opens its own connections without them. `0`: none (nor the pool's own). Behind PgBouncer, list `statement_timeout` and `idle_in_transaction_session_timeout` in its `ignore_startup_parameters` and set them on the role instead (`ALTER ROLE … SET statement_timeout = '10s'`), or set `0`. PGlite (in this process) has none ([operating.md](operating.md#when-a-dependency-fails))",
  }),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: integer({
    default: 30_000,
    min: 0,
    max: 86_400_000,
    meaning:
      "PostgreSQL: a session of the server's pool left idle inside an open transaction longer than this is ended by the server (`idle_in_transaction_session_timeout`), so a transaction whose instance froze or lost its network between two statements does not hold its locks until the kernel gives up on the connection. The server's own statements follow each other at once, so only a stuck client meets it. `0`: none. Held sessions (migrations) run without it",
  }),
  CLICK_ACCEPT_TIMEOUT_MS: integer({
    default: 1000,
    min: 50,
    max: 60_000,
    meaning:
      "how long a click's redirect waits for the database to take the click (its acceptance, committed with the next group commit). Past it the visitor is redirected at once without a click id, the click is counted in `nativa_clicks_unrecorded_total` and not billed, and should its statement commit later the click is withdrawn before any settlement ([operating.md](operating.md#a-database-that-stops-answering)). With `NATS_URL` this bounds the database path a click falls back to when the log does not take it",
  }),
  REDIS_URL: url({
    protocols: ['redis:', 'rediss:'],
    meaning:
      '`redis://…`; shares rate limits, sign-in throttling, page and frequency filters between instances; in-process without it',
  }),
  REDIS_KEY_PREFIX: text({ default: 'nativa:', meaning: 'prefix of every Redis key' }),
  REDIS_TIMEOUT_MS: integer({
    default: 50,
    min: 5,
    max: 10_000,
    meaning:
      'how long a request waits for Redis; past it, or while Redis is away, the decision is made from in-process state and counted in `nativa_redis_fallbacks_total`',
  }),
  TLS_CERT: text({
    default: undefined,
    meaning:
      'PEM certificate file; give it with `TLS_KEY` or neither: without them a self-signed certificate is generated once into `DATA_DIR/tls`',
  }),
  TLS_KEY: text({ default: undefined, meaning: "PEM file of `TLS_CERT`'s private key" }),
  TRUST_PROXY: flag({
    meaning:
      'Behind a TLS-terminating proxy: trust `X-Forwarded-*` (the visitor is the **leftmost** `X-Forwarded-For` entry, so the proxy must replace that header), and answer 403 unless `X-Forwarded-Proto` is `https`; see [operating.md](operating.md)',
  }),
  RATE_LIMIT_RPS: integer({ default: 5, min: 1, max: 1_000_000, meaning: 'requests per second per token (scripts)' }),
  SESSION_RATE_LIMIT_RPS: integer({
    default: 50,
    min: 1,
    max: 1_000_000,
    meaning:
      "requests per second per browser session: the web app's pages load several lists at once and are never held to the scripts' budget",
  }),
  PUBLIC_RATE_LIMIT_RPS: integer({
    default: 5,
    min: 1,
    max: 1_000_000,
    meaning:
      'requests per second per client address on the public account routes (sign-in, second factor, passkey sign-in, password reset, mailbox confirmation); more → 429 `rate_limited` ([security.md](security.md))',
  }),
  TZ: text({
    default: 'UTC',
    meaning: 'platform time zone: statistics days and date filters',
    check(value) {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: value });
        return undefined;
      } catch {
        return `=${value}: unknown time zone`;
      }
    },
  }),
  PUBLIC_URL: url({
    protocols: ['https:'],
    meaning:
      'public base URL (`https://ads.example.com`) for `Location`, links and embed code (otherwise taken from the request) and for links in e-mails (otherwise `https://HOST:PORT`, never a request header); required behind a proxy ([operating.md](operating.md))',
  }),
  SMTP_URL: url({
    protocols: ['smtp:', 'smtps:'],
    meaning:
      'outgoing mail (`smtp://user:pass@host:587?from=ads@example.com`; `from` defaults to `no-reply@` the public host); without it messages stay queued in the outbox (readable by operators) and are logged',
  }),
  BODY_LIMIT_BYTES: integer({
    default: 8 * 1024 * 1024,
    min: 1024,
    max: 256 * 1024 * 1024,
    meaning: 'largest request body; larger → 413',
  }),
  PUBLIC_BODY_LIMIT_BYTES: integer({
    default: 16 * 1024,
    min: 1024,
    max: 8 * 1024 * 1024,
    meaning:
      'largest body of the public account routes (sign-in, second factor, passkey sign-in, password reset); larger → 413 `body_too_large`',
  }),
  BODY_MAX_MEMBERS: integer({
    default: 10_000,
    min: 100,
    max: 10_000_000,
    meaning:
      'fields and list items a request body may hold in all, at any depth (and at most 32 levels deep); more → 413 `body_too_complex`, before the body is validated ([security.md](security.md))',
  }),
  LOG_LEVEL: choice({ values: LOG_LEVELS, default: 'info', meaning: 'pino level' }),
  LOG_FORMAT: choice({
    values: ['pretty', 'json'],
    // The real default depends on whether standard output is a terminal (loadConfig).
    default: 'json',
    shownDefault: '`pretty` on a terminal, else `json`',
    meaning:
      "`pretty`: one short line per event (`[request id] request completed 200 in 1.2 ms`); `json`: one JSON object per line for a log collector. Every line of a request carries its id (`reqId`), which the response's `X-Request-Id` header repeats; a sane incoming `X-Request-Id` (a proxy's, up to 128 of `A-Z a-z 0-9 . _ : @ / + = -`) is kept",
  }),
  METRICS_TOKEN: text({
    default: undefined,
    meaning:
      'a secret (≥ 16 characters) with which a Prometheus scraper reads `/api/metrics` (`Authorization: Bearer …`); operator tokens read it too',
    check: (value) => (value.length < 16 ? ': must be at least 16 characters' : undefined),
  }),
  REVENUE_SHARE_PERCENT: integer({ default: 70, min: 0, max: 100, meaning: "publisher's share of a billed click" }),
  MIN_PAYOUT: text({
    default: '0',
    meaning:
      "the network's minimum payout, in the platform currency (`50`, `25.5`): `GET /api/platform` answers it as `minPayout` and the web account shows it to publishers with their balance, and `GET /webmaster/payout-summary` pays out only a balance that reached it ([publisher.md](publisher.md)); 0 means none",
    check(value) {
      const micros = parseMoney(value);
      return micros === undefined || micros < 0 ? `=${value}: expected a non-negative amount such as 50 or 25.5` : undefined;
    },
  }),
  SIGNING_SECRET: text({
    default: undefined,
    shownDefault: 'generated',
    meaning:
      "secret for click links (≥ 32 characters); generated once into `DATA_DIR/signing.secret` when unset. Several machines must share one value. The keys that seal two-factor secrets and sign sign-in tickets are derived from it: changing it makes every account's authenticator codes and recovery codes unreadable, so operators then reset two-factor sign-in ([web-account.md](web-account.md))",
    check: (value) => (value.length < 32 ? ': must be at least 32 characters' : undefined),
  }),
  REQUIRE_2FA_FOR: text({
    default: undefined,
    meaning:
      'account kinds whose browser sessions must have two-factor sign-in: `operator`, a comma list (`operator,advertiser`) or `all`. Such a session may only enrol until it has ([web-account.md](web-account.md))',
  }),
  SESSION_MAX_AGE_DAYS: integer({
    default: 30,
    min: 1,
    max: 365,
    meaning: 'a browser session ends this long after sign-in however busy it is (besides 14 days without a request)',
  }),
  CURRENCY: text({
    default: 'USD',
    meaning:
      "the platform currency (ISO 4217): every amount is in it, and the embed script shows teaser prices in it (`Intl.NumberFormat`, the visitor's locale)",
    check: (value) =>
      /^[A-Za-z]{3}$/.test(value) && Intl.supportedValuesOf('currency').includes(value.toUpperCase())
        ? undefined
        : `=${value}: expected an ISO 4217 currency code such as USD or EUR`,
  }),
  SERVING_FAST_PATH: flag({
    default: true,
    meaning:
      "answer the common requests of a publisher's page and of an exchange (a block's teasers, click links, the text/plain view beacon, the OpenRTB auction, its notices, the view and conversion pixels) before the web framework, with the same answers ([ADR 0056](adr/0056-serving-fast-path.md)); `false` sends every request through the framework. Off while `LOG_LEVEL` is debug or trace, which log serving requests one by one",
  }),
  SERVING_REFRESH_MS: integer({
    default: 2000,
    min: 100,
    max: 600_000,
    meaning:
      'how often each instance rebuilds its in-memory serving index when something changed (campaigns, ads, sites, coefficients, balances)',
  }),
  CLICK_FLOOD_MAX_CLICKS: integer({
    default: 0,
    min: 0,
    max: 1_000_000,
    shownDefault: '`0` (off)',
    meaning:
      'automatic refund of click floods: billed clicks from one address on one block beyond this many within `CLICK_FLOOD_WINDOW_S` are refunded with reason `click_flood` ([refunds.md](refunds.md))',
  }),
  CLICK_FLOOD_WINDOW_S: integer({ default: 60, min: 1, max: 86_400, meaning: 'the click flood window, in seconds' }),
  CLICK_FLOOD_SWEEP_S: integer({
    default: 60,
    min: 1,
    max: 3600,
    meaning: 'how often each instance looks for click floods, in seconds',
  }),
  IVT_ASN_FILE: list({
    shownDefault: 'the shipped table',
    meaning:
      'ASN tables (comma-separated paths, ip-location-db CSV `first,last,asn[,name]`) for the rule `datacenter` instead of the one shipped in `@ip-location-db/asn`; files installed by `nativa ivt update-lists` in `DATA_DIR/ivt` win over it ([invalid-traffic.md](invalid-traffic.md))',
  }),
  IVT_HOSTING_FILE: text({
    default: undefined,
    shownDefault: 'the shipped list',
    meaning:
      'a list of hosting and cloud AS numbers (one per line in the first column) instead of `src/modules/serving/tracking/hosting-asns.tsv`; `DATA_DIR/ivt/hosting-asns.tsv` wins over it',
  }),
  IVT_ALLOW_DEV_HOSTS: flag({
    meaning:
      "`true`: pages on `localhost`, `*.localhost`, `*.test` and private addresses count as every site's (development); otherwise a block answers such a page with no teasers (`foreign_site`)",
  }),
  IVT_SWEEP_S: integer({
    default: SIVT_DEFAULTS.sweepMs / 1000,
    min: 0,
    max: 3600,
    meaning:
      'how often each instance runs the after-the-fact rules of invalid traffic over the recent clicks, in seconds (0: never by itself)',
  }),
  IVT_SETTLE_S: integer({
    default: SIVT_DEFAULTS.settleMs / 1000,
    min: 0,
    max: 600,
    meaning: 'how long after a click the rules wait for its beacon before judging it, in seconds',
  }),
  IVT_NO_OPPORTUNITY_MS: integer({
    default: SIVT_DEFAULTS.noOpportunityMs,
    min: 0,
    max: 60_000,
    meaning:
      "rule `no_opportunity`: a click this soon after its teasers' answer, whose teaser was never viewable, is refunded; 0 turns the rule off",
  }),
  IVT_REPEAT_CLICK_MAX: integer({
    default: SIVT_DEFAULTS.repeatClickMax,
    min: 0,
    max: 1_000_000,
    meaning:
      "rule `repeat_click`: one visitor's billed clicks on one advertiser beyond this many within `IVT_REPEAT_CLICK_WINDOW_S` are refunded; 0 turns the rule off",
  }),
  IVT_REPEAT_CLICK_WINDOW_S: integer({
    default: SIVT_DEFAULTS.repeatClickWindowMs / 1000,
    min: 1,
    max: 7 * 86_400,
    meaning: 'the repeat-click window, in seconds',
  }),
  IVT_CONCENTRATION_Z: integer({
    default: SIVT_DEFAULTS.concentrationZ,
    min: 0,
    max: 1000,
    meaning:
      "rule `concentration`: how many standard deviations a block's CTR today must stand above the rest of the network's (binomial z-score); 0 turns the rule off",
  }),
  IVT_CONCENTRATION_SHARE_PERCENT: integer({
    default: SIVT_DEFAULTS.concentrationShare * 100,
    min: 1,
    max: 100,
    meaning: "... and the share of the block's recent clicks that one /24 (/48) or one autonomous system must hold",
  }),
  IVT_CONCENTRATION_MIN_CLICKS: integer({
    default: SIVT_DEFAULTS.concentrationMinClicks,
    min: 1,
    max: 1_000_000,
    meaning: "... and the block's clicks in the window, at least",
  }),
  IVT_CONCENTRATION_WINDOW_S: integer({
    default: SIVT_DEFAULTS.concentrationWindowMs / 1000,
    min: 60,
    max: 7 * 86_400,
    meaning: "the window of the block's recent clicks, in seconds",
  }),
  IVT_NETWORK_MISMATCH: flag({
    default: SIVT_DEFAULTS.networkMismatch,
    meaning:
      'rule `network_mismatch`: a link clicked from another country and another network than it was served to is refunded; `false` turns it off',
  }),
  IVT_REVIEW_SHARE_PERCENT: integer({
    default: 20,
    min: 1,
    max: 100,
    meaning:
      "the review rule of invalid traffic: a site with this share (percent) or more of its clicks refused or refunded over the window goes to the operators' review queue ([invalid-traffic.md](invalid-traffic.md#review-queue))",
  }),
  IVT_REVIEW_MIN_CLICKS: integer({
    default: 100,
    min: 1,
    max: 1_000_000_000,
    meaning: 'the review rule looks only at sites with at least this many clicks in the window',
  }),
  IVT_REVIEW_WINDOW_HOURS: integer({ default: 24, min: 1, max: 24 * 90, meaning: "the review rule's window, in hours" }),
  IVT_REVIEW_INTERVAL_SECONDS: integer({
    default: 3600,
    min: 0,
    max: 7 * 86_400,
    meaning: 'how often each instance runs the review rule; `0` only when an operator runs it',
  }),
  RULES_INTERVAL_SECONDS: integer({
    default: 3600,
    min: 60,
    max: 7 * 86_400,
    meaning: 'how often each enabled optimisation rule runs ([rules-and-export.md](rules-and-export.md))',
  }),
  WEBHOOK_ALLOW_PRIVATE: flag({
    meaning:
      '`true` lets webhooks go to loopback, private, link-local and other reserved addresses (a closed network, tests); refused otherwise ([webhooks.md](webhooks.md))',
  }),
  WEBHOOK_CA_FILE: text({
    default: undefined,
    meaning:
      "PEM file of extra CA certificates webhook deliveries trust besides the public roots (a private CA, a test receiver's self-signed certificate)",
  }),
  WEBHOOK_TIMEOUT_MS: integer({
    default: 10_000,
    min: 100,
    max: 60_000,
    meaning: "bound on one webhook delivery attempt, connection to last byte; a delivery's lease is three times this",
  }),
  NATS_URL: list({
    shownDefault: '(none)',
    meaning:
      '`nats://host:4222` servers, comma-separated: clicks and viewability beacons become events in a NATS JetStream stream (the 302 and 204 wait for its PubAck, not for the database) that each instance settles into the database ([ADR 0029](adr/0029-clicks-and-views-through-a-jetstream-log.md), [operating.md](operating.md#nats-jetstream-the-event-log)); without it they are written to the database on their requests',
  }),
  NATS_STREAM: text({
    default: 'NATIVA_EVENTS',
    meaning: "the stream's name (1 to 64 letters, digits, `_` or `-`); its subjects are `NAME.click` and `NAME.view`",
    check: (value) => (/^[A-Za-z0-9_-]{1,64}$/.test(value) ? undefined : `=${value}: expected 1 to 64 letters, digits, _ or -`),
  }),
  NATS_REPLICAS: integer({
    default: 3,
    min: 1,
    max: 5,
    meaning: 'copies of each event, on different servers; `1` for a single nats-server',
  }),
  NATS_ACK_WAIT_MS: integer({
    default: 30_000,
    min: 1000,
    max: 600_000,
    meaning: 'how long an event delivered to an instance that died may stay unacknowledged before another instance gets it',
  }),
  TCF_VENDOR_ID: optionalInteger({
    min: 1,
    max: 65_535,
    meaning:
      "the operator's IAB TCF Global Vendor List id; unset: consent is decided on purposes 1, 3 and 4 alone ([privacy.md](privacy.md))",
  }),
  ...retentionVariables(),
  RETENTION_INTERVAL_SECONDS: integer({ default: 3600, min: 60, max: 7 * 86_400, meaning: 'how often the retention job runs' }),
  ADS_TXT_DOMAIN: text({
    default: undefined,
    shownDefault: "`PUBLIC_URL`'s host",
    meaning: "the network's domain in publishers' ads.txt lines",
    check: (value) =>
      /^[a-z0-9.-]+\.[a-z]{2,}$/i.test(value) ? undefined : `=${value}: expected a domain such as ads.example.com`,
  }),
  ADS_TXT_CHECK_HOURS: integer({
    default: 24,
    min: 0,
    max: 24 * 365,
    meaning: "how often each active site's /ads.txt is checked for the line (0: never)",
  }),
  SELLERS_CONTACT_EMAIL: text({ default: undefined, meaning: "the operator's contact e-mail in `/sellers.json`" }),
  SELLERS_CONTACT_ADDRESS: text({ default: undefined, meaning: "the operator's postal address in `/sellers.json`" }),
  NATIVA_TEST_CRASH_AFTER_COMMIT: flag({
    internal: true,
    meaning: 'test only: SIGKILL right after a request with an Idempotency-Key commits, before it answers',
  }),
  NATIVA_TEST_CRASH_MID_SETTLEMENT: flag({
    internal: true,
    meaning: 'test only: on SIGUSR2, SIGKILL right after the next committed settlement of logged events',
  }),
} satisfies Record<string, Variable<unknown>>;

/** `RETENTION_<KIND>_DAYS` for every kind of data the retention job deletes. */
function retentionVariables(): Record<RetentionVariable, Variable<number>> {
  return Object.fromEntries(
    RETENTION_KINDS.map((kind): [RetentionVariable, Variable<number>] => [
      retentionVariable(kind),
      integer({
        default: RETENTION_DEFAULT_DAYS[kind],
        min: 0,
        max: 36_500,
        meaning: `days ${kind.replaceAll('_', ' ')} are kept (0: forever); the retention job deletes older rows in batches ([privacy.md](privacy.md))`,
      }),
    ]),
  ) as Record<RetentionVariable, Variable<number>>;
}

type Variables = typeof VARIABLES;
export type VariableValues = { [Name in keyof Variables]: Variables[Name] extends Variable<infer T> ? T : never };

/** Reads every variable; each bad value adds its own line to `problems`. */
export function readVariables(env: Env, problems: string[]): VariableValues {
  const values: Record<string, unknown> = {};
  for (const [name, variable] of Object.entries(VARIABLES) as [string, Variable<unknown>][]) {
    values[name] = variable.read(env[name], name, problems);
  }
  return values as VariableValues;
}

/** docs/configuration.md's table of variables, one row each. */
export function variablesTable(): string {
  const rows = (Object.entries(VARIABLES) as [string, Variable<unknown>][])
    .filter(([, variable]) => !variable.internal)
    .map(([name, variable]) => {
      const meaning = variable.range === undefined ? variable.meaning : `${variable.meaning}; ${variable.range}`;
      return `| \`${name}\` | ${variable.shownDefault} | ${meaning} |`;
    });
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}
