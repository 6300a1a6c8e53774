import type { Redis } from 'ioredis';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Database, Db } from './db/database.ts';
import type { DependencyMonitor } from './dependencies.ts';
import type { AccountKeys, ResetThrottle, SignInThrottle, TokenAuthenticator } from './modules/accounts/index.ts';
import type { RuleScheduler } from './modules/advertiser/index.ts';
import type { ImageStore } from './modules/images/index.ts';
import type { SiteReviewJob, SivtSweeper } from './modules/invalid-traffic/index.ts';
import type { Mailer } from './modules/mail/index.ts';
import type { Metrics } from './modules/monitoring/index.ts';
import type { AdsTxtChecker, RetentionJob } from './modules/privacy/index.ts';
import type { ClickFloodDetector } from './modules/refunds/index.ts';
import type { ServingEngine } from './modules/serving/index.ts';
import type { WebhookDeliverer } from './modules/webhooks/index.ts';
import type { RedisGuard } from './redis-guard.ts';

/**
 * The dependencies every module's routes and services receive, made once at start-up by
 * buildApp. Nothing is module-level state, so a test may build as many apps as it likes.
 */
export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  clock: Clock;
  tokens: TokenAuthenticator;
  /**
   * Counts failed sign-ins and second factors per account and address: in Redis when there is one,
   * in this process while it is away (the guard's `sign_in` store).
   */
  signInThrottle: SignInThrottle;
  /** Limits password-reset e-mails, in the sign-in throttle's counter. */
  resetThrottle: ResetThrottle;
  /** Keys derived from the signing secret: sealed TOTP secrets, recovery-code hashes, signed tickets. */
  accountKeys: AccountKeys;
  redis: Redis | undefined;
  /** Bounded access to `redis` for the stores shared between instances, with in-process fallbacks. */
  redisGuard: RedisGuard | undefined;
  /** Lost connections, fallbacks and outages of the database and Redis, as this instance saw them. */
  dependencies: DependencyMonitor;
  /** Delivers outbox e-mail through SMTP_URL (or logs it when unset). */
  mailer: Mailer;
  /** Delivers signed webhook events from their outbox tables in the background. */
  webhooks: WebhookDeliverer;
  /** Content-addressed storage of ad images (DATA_DIR/images). */
  images: ImageStore;
  /** Closes the Redis subscription that shares token revocations between instances. */
  closeSubscriber?: () => Promise<void>;
  /** This app's Prometheus registry and the counters the HTTP layer feeds (GET /api/metrics). */
  metrics: Metrics;
  /** The serving engine (teaser selection, view buffer, click billing); absent in contexts that serve nothing. */
  serving?: ServingEngine;
  /** Refunds click floods after billing (CLICK_FLOOD_MAX_CLICKS); absent when the rule is off. */
  clickFloods?: ClickFloodDetector;
  /** Refunds sophisticated invalid traffic after billing (IVT_*, docs/invalid-traffic.md). */
  invalidTraffic?: SivtSweeper;
  /** Puts sites with much invalid traffic in the operators' review queue (IVT_REVIEW_*). */
  siteReviews?: SiteReviewJob;
  /** Runs advertisers' enabled optimisation rules on their schedule. */
  rules?: RuleScheduler;
  /** Deletes data past its retention (RETENTION_*_DAYS, docs/privacy.md). */
  retention?: RetentionJob;
  /** Checks publishers' /ads.txt for the network's line (ADS_TXT_CHECK_HOURS). */
  adsTxt?: AdsTxtChecker;
}
