import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import { buildApp } from './app.ts';
import type { AppContext } from './app-context.ts';
import type { Config } from './config.ts';
import { describe, isConnectionFailure, type StartWait, waitForDatabase } from './db/availability.ts';
import { type Database, type Db, openDatabase } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import { DependencyMonitor } from './dependencies.ts';
import { listenWhileStarting, type StartingServer } from './http/starting-server.ts';
import { emailLinkBase, ownUrl } from './http/urls.ts';
import { createLogger } from './logger.ts';
import {
  AccountKeys,
  createAccount,
  createPasswordToken,
  issueToken,
  memoryFailureCounter,
  operatorExists,
  ResetThrottle,
  redisFailureCounter,
  SET_PASSWORD_PATH,
  SignInThrottle,
  TOKEN_CHANGES_POLL_MS,
  TokenAuthenticator,
} from './modules/accounts/index.ts';
import { RuleScheduler } from './modules/advertiser/index.ts';
import { ImageStore } from './modules/images/index.ts';
import { SiteReviewJob, SivtSweeper } from './modules/invalid-traffic/index.ts';
import { Mailer } from './modules/mail/index.ts';
import { createMetrics } from './modules/monitoring/index.ts';
import { AdsTxtChecker, RetentionJob } from './modules/privacy/index.ts';
import { ClickFloodDetector } from './modules/refunds/index.ts';
import { createServingEngine, loadSigningSecret, networkSources, type ServingEngine } from './modules/serving/index.ts';
import { WebhookDeliverer } from './modules/webhooks/index.ts';
import { closeRedis, connectRedis, firstConnection, RedisGuard, sharedOrLocal } from './redis-guard.ts';
import { loadTls, type TlsMaterial } from './tls.ts';

export interface RunningServer {
  app: FastifyInstance;
  context: AppContext;
  /** The base URL the server listens on, e.g. https://127.0.0.1:8443. */
  url: string;
  /** Token of the first operator, when this start created it. */
  bootstrapToken: string | undefined;
  close(): Promise<void>;
}

export interface StartOptions {
  /** An already open database (tests); otherwise one is opened from the configuration. */
  database?: Database;
  tls?: TlsMaterial;
  logger?: boolean | { level: string; stream?: { write(line: string): void } };
  /** Routes to add before the server listens (the demo's publisher page). */
  routes?: (app: FastifyInstance) => void;
  /** Compile every route's schemas at start rather than at each route's first request (src/http/lazy-schemas.ts). */
  eagerSchemas?: boolean;
}

/**
 * Creates the shared dependencies: database (reachable, migrated), Redis, token authenticator.
 * `onWaiting` is called once if the database does not answer at the first attempt.
 */
export async function createContext(
  config: Config,
  database?: Database,
  log: FastifyBaseLogger = createLogger(config, false),
  onWaiting?: () => Promise<void>,
): Promise<AppContext> {
  mkdirSync(config.dataDir, { recursive: true });
  const dependencies = new DependencyMonitor(() => config.clock.now(), log);
  const db =
    database ??
    (await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      statementTimeoutMs: config.databaseStatementTimeoutMs,
      connectTimeoutMs: config.databaseConnectTimeoutMs,
      idleInTransactionTimeoutMs: config.databaseIdleInTransactionTimeoutMs,
    }));
  db.reportAvailability?.(dependencies.database);
  try {
    const databaseUrl = db.kind === 'postgres' && database === undefined ? config.databaseUrl : undefined;
    if (databaseUrl === undefined) await migrate(db);
    else await reachAndMigrate(db, databaseUrl, { maxWaitMs: config.databaseWaitMs, log, onWaiting });
  } catch (error) {
    if (database === undefined) await db.close().catch(() => undefined);
    throw error;
  }
  const redis = config.redisUrl ? connectRedis(config.redisUrl, dependencies) : undefined;
  if (redis !== undefined && !(await firstConnection(redis, REDIS_START_WAIT_MS))) {
    log.warn('Redis does not answer yet: rate limits, sign-in throttling and page filters count in this process until it does');
  }
  const redisGuard = redis === undefined ? undefined : new RedisGuard(redis, dependencies, config.redisTimeoutMs);
  const tokens = new TokenAuthenticator(db.db, config.clock, undefined, () => db.writeGeneration?.('api_tokens') ?? 0);
  await tokens.readChanges();
  const serving = await createServingEngine(config, db.db, redisGuard, log);
  // One counter for wrong passwords, wrong second factors and password-reset e-mails.
  const signInFailures = sharedOrLocal(
    redisGuard,
    'sign_in',
    (shared) => redisFailureCounter(shared, config.redisKeyPrefix),
    memoryFailureCounter,
  );
  const context: AppContext = {
    config,
    database: db,
    db: db.db,
    clock: config.clock,
    tokens,
    signInThrottle: new SignInThrottle(signInFailures, config.clock),
    resetThrottle: new ResetThrottle(signInFailures, config.clock),
    accountKeys: new AccountKeys(loadSigningSecret(config.signingSecret, config.dataDir)),
    redis,
    redisGuard,
    dependencies,
    mailer: new Mailer(db.db, config.clock, { smtpUrl: config.smtpUrl, publicUrl: config.publicUrl }),
    webhooks: new WebhookDeliverer(db.db, config.clock, {
      allowPrivate: config.webhookAllowPrivate,
      ca: config.webhookCa,
      timeoutMs: config.webhookTimeoutMs,
    }),
    images: new ImageStore(path.join(config.dataDir, 'images')),
    serving,
    clickFloods: clickFloodDetector(config, db.db),
    invalidTraffic: sivtSweeper(config, db.db, serving),
    metrics: createMetrics({ database: db, now: () => config.clock.now(), serving: serving.tally, dependencies }),
    rules: new RuleScheduler(db.db, config.clock, {
      intervalMs: config.rulesIntervalMs,
      pollMs: Math.min(config.rulesIntervalMs, 60_000),
      timeZone: config.timeZone,
    }),
  };
  context.retention = new RetentionJob({
    db: db.db,
    clock: config.clock,
    days: config.retentionDays,
    intervalMs: config.retentionIntervalMs,
    onError: (error) => log.warn({ err: error }, 'retention run failed'),
  });
  context.retention.registerMetric(context.metrics.registry);
  context.siteReviews = new SiteReviewJob({
    db: db.db,
    clock: config.clock,
    rule: config.siteReview,
    onError: (error) => log.warn({ err: error }, 'invalid-traffic review failed'),
  });
  context.siteReviews.registerMetrics(context.metrics.registry);
  context.adsTxt = new AdsTxtChecker({
    db: db.db,
    clock: config.clock,
    networkDomain: config.adsTxtDomain,
    intervalMs: config.adsTxtCheckIntervalMs,
    allowPrivate: config.webhookAllowPrivate,
    ca: config.webhookCa,
    timeoutMs: config.webhookTimeoutMs,
    onError: (error) => log.warn({ err: error }, 'ads.txt check failed'),
  });
  if (redis) await shareRevocations(context, redis);
  return context;
}

/**
 * Waits for the database, then migrates; a database that goes away again during the migrations
 * (each in its own transaction) is waited for again, so an instance started in an outage comes up
 * once the database does, however the outage ends.
 */
async function reachAndMigrate(db: Database, databaseUrl: string, wait: StartWait): Promise<void> {
  for (;;) {
    await waitForDatabase(databaseUrl, () => sql`SELECT 1`.execute(db.db), wait);
    try {
      await migrate(db);
      return;
    } catch (error) {
      if (!isConnectionFailure(error)) throw error;
      wait.log.warn(`the database went away during the migrations (${describe(error)}): waiting for it again`);
    }
  }
}

/** How long start-up waits for Redis before it goes on without it (it connects later by itself). */
const REDIS_START_WAIT_MS = 2000;

/** The click flood refund, started when its rule is on; its failures are warnings, the next sweep tries again. */
function clickFloodDetector(config: Config, db: Db): ClickFloodDetector | undefined {
  if (config.clickFlood === undefined) return undefined;
  const detector = new ClickFloodDetector({
    db,
    clock: config.clock,
    timeZone: config.timeZone,
    rule: config.clickFlood,
    onError: (error) => process.emitWarning(`click flood refund failed: ${(error as Error).message}`),
  });
  detector.start();
  return detector;
}

/**
 * The after-the-fact rules of invalid traffic; what they refund is counted per reason beside the
 * clicks refused on arrival (nativa_invalid_clicks_total). SIGHUP re-reads the network lists.
 */
function sivtSweeper(config: Config, db: Db, serving: ServingEngine): SivtSweeper {
  const sweeper = new SivtSweeper({
    db,
    clock: config.clock,
    timeZone: config.timeZone,
    rules: config.sivt,
    onRefunded: (reason, clicks) => {
      serving.tally.invalidClicks[reason] += clicks;
    },
    onError: (error) => process.emitWarning(`invalid traffic sweep failed: ${(error as Error).message}`),
  });
  sweeper.start();
  return sweeper;
}

/**
 * Instances sharing a Redis tell each other about revoked tokens, so a revoked token stops working
 * everywhere at once rather than when the other instances' cache entries expire.
 */
async function shareRevocations(context: AppContext, redis: Redis): Promise<void> {
  const channel = `${context.config.redisKeyPrefix}token-revoked`;
  // Subscribed again on every (re)connection, also when Redis was away at start; the main
  // client's monitor reports the outage, this connection's errors would only repeat it.
  const subscriber = redis.duplicate({ autoResubscribe: false });
  subscriber.on('error', () => undefined);
  subscriber.on('message', (_channel: string, message: string) => context.tokens.forgetToken(Number(message)));
  let subscribed: Promise<unknown> = Promise.resolve();
  subscriber.on('ready', () => {
    subscribed = subscriber.subscribe(channel).catch(() => undefined);
  });
  // Start-up already waited for Redis once: when it was not there, it does not wait again.
  if (redis.status === 'ready' && (await firstConnection(subscriber, REDIS_START_WAIT_MS))) await subscribed;
  context.tokens.announceRevocation = async (tokenId) => {
    // The revocation is already committed; without Redis the others notice within a second (change_counters).
    await redis.publish(channel, String(tokenId)).catch(() => undefined);
  };
  context.closeSubscriber = () => closeRedis(subscriber);
}

/**
 * On the very first start there is no operator: create one, and put its token in
 * DATA_DIR/operator.token (readable by the owner only) so the CLI can use it.
 */
export async function ensureOperator(context: AppContext): Promise<BootstrapSecrets | undefined> {
  if (await operatorExists(context.db)) return undefined;
  const now = new Date(context.clock.now());
  // The operator has no mailbox yet: its invitation to choose a web password is handed over
  // like its token, in a file only the server's user can read.
  const { account, invitation } = await context.db.transaction().execute(async (trx) => {
    const account = await createAccount(
      trx,
      { kind: 'operator', username: 'operator', email: 'operator@localhost', emailConfirmed: true },
      now,
    );
    return { account, invitation: await createPasswordToken(trx, account.id, 'invitation', now) };
  });
  const { token } = await issueToken(context.db, account.id, 'bootstrap');
  writeSecret(path.join(context.config.dataDir, 'operator.token'), token);
  return { token, invitation };
}

/** What the first start hands the operator: its API token and a single-use password invitation. */
export interface BootstrapSecrets {
  token: string;
  invitation: string;
}

function writeSecret(file: string, content: string): void {
  writeFileSync(file, `${content}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const log = createLogger(config, options.logger);
  mkdirSync(config.dataDir, { recursive: true });
  const tls = options.tls ?? (await loadTls(config));
  // While start-up waits for the database the port answers already: alive, not ready.
  let starting: StartingServer | undefined;
  const holdPort = async () => {
    starting = await listenWhileStarting({
      host: config.host,
      port: config.port,
      tls,
      redis: config.redisUrl !== undefined,
      nats: config.nats !== undefined,
    });
    log.info(`listening on port ${starting.port} while waiting for the database: readiness answers 503 until it is there`);
  };
  let context: AppContext;
  let bootstrap: BootstrapSecrets | undefined;
  let app: FastifyInstance;
  try {
    context = await createContext(config, options.database, log, holdPort);
    bootstrap = await ensureOperator(context);
    app = await buildApp(context, { tls, loggerInstance: log, eagerSchemas: options.eagerSchemas });
  } catch (error) {
    // A start that fails does not leave the start-up answers holding the port (and the process).
    await starting?.close();
    throw error;
  }
  context.mailer.start(app.log);
  context.rules?.start(app.log);
  context.webhooks.start(app.log);
  context.retention?.start();
  context.adsTxt?.start();
  context.siteReviews?.start();
  options.routes?.(app);
  context.tokens.watchChanges(TOKEN_CHANGES_POLL_MS, (error) => app.log.error({ err: error }, 'reading token changes failed'));
  // An operator's new network lists (nativa ivt update-lists) are read on SIGHUP, without a restart.
  const reloadNetworks = () => context.serving?.givt.networks.reload(networkSources(config));
  process.on('SIGHUP', reloadNetworks);
  app.addHook('onClose', async () => {
    process.off('SIGHUP', reloadNetworks);
    context.tokens.stopWatching();
    await context.closeSubscriber?.().catch(() => undefined);
    // Counted views are written before storage closes.
    await context.serving?.close();
    await context.clickFloods?.close();
    await context.invalidTraffic?.close();
    await context.rules?.close();
    await context.retention?.close();
    await context.adsTxt?.close();
    await context.siteReviews?.close();
    if (context.redis) await closeRedis(context.redis);
    // Messages queued by the last requests are sent before storage closes.
    await context.mailer.close();
    await context.webhooks.close();
    await context.database.close();
  });
  // The application takes the port over from the start-up answers (the same one, also when the
  // configuration asked for any free port).
  const port = starting?.port ?? config.port;
  await starting?.close();
  await app.listen({ port, host: config.host });
  const address = app.server.address();
  const url = ownUrl(config.host, typeof address === 'object' && address ? address.port : port);
  const linkBase = emailLinkBase(app);
  if (config.publicUrl === undefined) {
    app.log.warn(`e-mail links will use ${linkBase}, the configured address; set PUBLIC_URL if users reach the server otherwise`);
  } else {
    app.log.info(`e-mail links will use PUBLIC_URL, ${linkBase}`);
  }
  if (bootstrap) {
    const linkPath = path.join(config.dataDir, 'operator-password.url');
    writeSecret(linkPath, `${linkBase}${SET_PASSWORD_PATH}${bootstrap.invitation}`);
    app.log.info(`created the first operator account; its token is in ${path.join(config.dataDir, 'operator.token')}`);
    app.log.info(`open the link in ${linkPath} (once, within 7 days) to choose its password for the web account`);
  } else if (!existsSync(path.join(config.dataDir, 'operator.token'))) {
    app.log.debug('operator account exists; no token file in DATA_DIR');
  }
  return {
    app,
    context,
    url,
    bootstrapToken: bootstrap?.token,
    close: () => app.close(),
  };
}

/** Stops accepting connections on SIGTERM/SIGINT, lets in-flight requests finish, then closes storage. */
export function closeOnSignals(server: RunningServer): void {
  let closing = false;
  const stop = (signal: string) => {
    if (closing) return;
    closing = true;
    server.app.log.info(`${signal} received, shutting down`);
    server
      .close()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
