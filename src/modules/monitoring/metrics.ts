import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { DatabaseUnavailableError } from '../../db/availability.ts';
import type { Database } from '../../db/database.ts';
import type { DependencyMonitor } from '../../dependencies.ts';
import { outboxCountsByStatus } from '../mail/index.ts';
import type { ServingTally } from '../serving/index.ts';

/** What the metrics are read from when Prometheus scrapes. */
export interface MetricSources {
  database: Database;
  /** The platform clock, against which the age of accepted clicks is measured. */
  now(): number;
  /** The serving engine's counters; absent in contexts that serve nothing. */
  serving?: ServingTally;
  /** Lost connections and Redis fallbacks. */
  dependencies?: DependencyMonitor;
}

/** One app's metrics registry (never prom-client's global one: tests build several apps in one process). */
export interface Metrics {
  registry: Registry;
  /** Counts a finished request under its route pattern, method and status. */
  observeRequest(routeKey: object, route: string, method: string, status: number, seconds: number): void;
  /**
   * What the serving fast path (src/http/fast-path.ts) counts one route's answers with: the same
   * series as `observeRequest` for that route and method, not a second one.
   */
  requestRecorder(route: string, method: string): RequestRecorder;
}

/** Counts a finished request of one route and method by its status and duration. */
export type RequestRecorder = (status: number, seconds: number) => void;

/** Request latency buckets (seconds): the API answers in milliseconds, statistics in tens of them. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** One route and status: its counts, kept as plain numbers and turned into Prometheus series when scraped. */
interface RouteTally {
  labels: { route: string; method: string; status: string };
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last one is +Inf. */
  buckets: number[];
}

export function createMetrics(sources: MetricSources): Metrics {
  const registry = new Registry();
  // The event-loop lag sampler wakes the process every `eventLoopMonitoringPrecision` ms, even idle:
  // 50 ms (prom-client's default is 10) still sees every stall that matters, at a fifth of the wake-ups.
  collectDefaultMetrics({ register: registry, prefix: 'nativa_', eventLoopMonitoringPrecision: 50 });
  // A prom-client labelled child hashes its labels on every observation; a request costs only two
  // map lookups and a few additions here, and the series are built when Prometheus scrapes.
  const tallies: RouteTally[] = [];
  // Fastify's hook finds a route's tallies by its config object (one lookup in a WeakMap); both it
  // and the fast path share them through the labels, so one route has one series whichever path
  // answered.
  const byLabels = new Map<string, Map<number, RouteTally>>();
  const byRoute = new WeakMap<object, Map<number, RouteTally>>();
  const talliesOf = (route: string, method: string): Map<number, RouteTally> => {
    const key = `${method} ${route}`;
    let byStatus = byLabels.get(key);
    if (byStatus === undefined) {
      byStatus = new Map();
      byLabels.set(key, byStatus);
    }
    return byStatus;
  };
  const observe = (byStatus: Map<number, RouteTally>, route: string, method: string, status: number, seconds: number) => {
    let tally = byStatus.get(status);
    if (tally === undefined) {
      tally = { labels: { route, method, status: String(status) }, count: 0, sum: 0, buckets: LATENCY_BUCKETS.map(() => 0) };
      tally.buckets.push(0);
      byStatus.set(status, tally);
      tallies.push(tally);
    }
    tally.count += 1;
    tally.sum += seconds;
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > (LATENCY_BUCKETS[bucket] ?? 0)) bucket += 1;
    tally.buckets[bucket] = (tally.buckets[bucket] ?? 0) + 1;
  };
  registerRequestSeries(registry, tallies);
  servingMetrics(registry, sources.serving);
  databaseMetrics(registry, sources.database, sources.now);
  dependencyMetrics(registry, sources.dependencies);
  return {
    registry,
    observeRequest(routeKey, route, method, status, seconds) {
      let byStatus = byRoute.get(routeKey);
      if (byStatus === undefined) {
        byStatus = talliesOf(route, method);
        byRoute.set(routeKey, byStatus);
      }
      observe(byStatus, route, method, status, seconds);
    },
    requestRecorder(route, method) {
      const byStatus = talliesOf(route, method);
      return (status, seconds) => observe(byStatus, route, method, status, seconds);
    },
  };
}

/** The request counter and latency histogram, in prom-client's metric shape, read from the tallies. */
function registerRequestSeries(registry: Registry, tallies: RouteTally[]): void {
  const requests = {
    name: 'nativa_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status.',
    type: 'counter',
    get: async () => ({
      ...requests,
      values: tallies.map((tally) => ({ labels: tally.labels, value: tally.count })),
    }),
  };
  const latency = {
    name: 'nativa_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route pattern, method and status.',
    type: 'histogram',
    get: async () => ({
      ...latency,
      values: tallies.flatMap((tally) => {
        let cumulative = 0;
        const buckets = tally.buckets.map((count, index) => {
          cumulative += count;
          const le = index < LATENCY_BUCKETS.length ? String(LATENCY_BUCKETS[index]) : '+Inf';
          return { labels: { le, ...tally.labels }, value: cumulative, metricName: `${latency.name}_bucket` };
        });
        return [
          ...buckets,
          { labels: tally.labels, value: tally.sum, metricName: `${latency.name}_sum` },
          { labels: tally.labels, value: tally.count, metricName: `${latency.name}_count` },
        ];
      }),
    }),
  };
  // The registry reads a metric only through name, help, type and get(); its type asks for a class instance.
  registry.registerMetric(requests as unknown as Parameters<Registry['registerMetric']>[0]);
  registry.registerMetric(latency as unknown as Parameters<Registry['registerMetric']>[0]);
}

/** Counts every response under its route (the pattern, not the URL: one series per route, not per id). */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const { routeOptions } = request;
    metrics.observeRequest(
      routeOptions.config,
      routeOptions.url ?? 'unmatched',
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
}

/** A counter whose value is read from a plain number when scraped. */
function countedFrom(registry: Registry, name: string, help: string, read: () => number): void {
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

function servingMetrics(registry: Registry, tally: ServingTally | undefined): void {
  if (tally === undefined) return;
  countedFrom(registry, 'nativa_teaser_requests_total', 'Teaser requests answered (block loads).', () => tally.impressions);
  countedFrom(
    registry,
    'nativa_teasers_served_total',
    'Teasers served (each with a click link and an impression token).',
    () => tally.served,
  );
  countedFrom(
    registry,
    'nativa_teaser_views_total',
    'Viewable views counted: impression tokens of beacons, each counted once, written to the rollup.',
    () => tally.views,
  );
  countedFrom(
    registry,
    'nativa_view_flush_failures_total',
    'Flushes of served teasers and views that failed (database away); what they held is written by the next that succeeds.',
    () => tally.viewFlushFailures,
  );
  new Counter({
    name: 'nativa_view_refusals_total',
    help: 'Impression tokens of beacons counted as no view, by reason: bot, forged, expired, replayed.',
    labelNames: ['reason'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [reason, count] of Object.entries(tally.viewRefusals)) this.inc({ reason }, count);
    },
  });
  countedFrom(
    registry,
    'nativa_clicks_accepted_total',
    'Clicks accepted (durable before their redirect), billable or not.',
    () => tally.clicksAccepted,
  );
  countedFrom(
    registry,
    'nativa_clicks_unrecorded_total',
    'Clicks redirected without being recorded, so not billed, because the database was away or did not take them within CLICK_ACCEPT_TIMEOUT_MS.',
    () => tally.clicksUnrecorded,
  );
  countedFrom(
    registry,
    'nativa_clicks_billed_late_total',
    'Clicks redirected unrecorded whose late acceptance was billed (once) before this instance could withdraw it.',
    () => tally.clicksBilledLate,
  );
  countedFrom(
    registry,
    'nativa_clicks_withdrawn_total',
    'Clicks redirected unrecorded whose acceptance committed late and was withdrawn before any settlement.',
    () => tally.clicksWithdrawn,
  );
  countedFrom(registry, 'nativa_clicks_billed_total', 'Clicks settled and billed.', () => tally.clicksBilled);
  countedFrom(registry, 'nativa_conversions_total', 'Conversions recorded (postback and pixel).', () => tally.conversions);
  countedFrom(
    registry,
    'nativa_event_log_fallbacks_total',
    'Clicks and beacons the event log (NATS_URL) did not acknowledge in time, written to the database instead.',
    () => tally.logFallbacks,
  );
  new Counter({
    name: 'nativa_consent_unreadable_total',
    help: 'Teaser and audience requests served unpersonalised because a consent parameter could not be read, by signal: gdpr, gdpr_consent, gpp, gpp_sid, gpc, us_privacy.',
    labelNames: ['signal'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [signal, count] of Object.entries(tally.consentUnreadable)) this.inc({ signal }, count);
    },
  });
  new Counter({
    name: 'nativa_invalid_clicks_total',
    help: 'Invalid clicks by reason: refused on arrival (bot, automation, datacenter, prefetch, foreign_site) and refunded after billing (no_opportunity, repeat_click, concentration, network_mismatch).',
    labelNames: ['reason'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [reason, count] of Object.entries(tally.invalidClicks)) this.inc({ reason }, count);
    },
  });
  new Counter({
    name: 'nativa_invalid_teaser_requests_total',
    help: 'Teaser requests answered with no teasers as general invalid traffic, by reason.',
    labelNames: ['reason'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [reason, count] of Object.entries(tally.invalidRequests)) this.inc({ reason }, count);
    },
  });
  new Counter({
    name: 'nativa_click_refusals_total',
    help: 'Clicks recorded without billing, by reason: bot, limit (budget or click limit), funds (balance), duplicate.',
    labelNames: ['reason'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [reason, count] of Object.entries(tally.refusals)) this.inc({ reason }, count);
    },
  });
}

function dependencyMetrics(registry: Registry, monitor: DependencyMonitor | undefined): void {
  if (monitor === undefined) return;
  new Counter({
    name: 'nativa_dependency_connection_failures_total',
    help: 'Connections to a dependency (database, redis) refused, timed out or lost; each is logged once per outage.',
    labelNames: ['dependency'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [dependency, count] of Object.entries(monitor.counts.connectionFailures)) this.inc({ dependency }, count);
    },
  });
  new Counter({
    name: 'nativa_redis_fallbacks_total',
    help: 'Decisions answered from in-process state because Redis was away or slower than REDIS_TIMEOUT_MS, by store: rate_limit, sign_in, page_views, frequency.',
    labelNames: ['store'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const store of ['rate_limit', 'sign_in', 'page_views', 'frequency']) this.inc({ store }, 0);
      for (const [store, count] of Object.entries(monitor.counts.fallbacks)) this.inc({ store }, count);
    },
  });
}

/**
 * A gauge read from the database keeps its last value when the database is away: the scrape
 * still answers, with the dependency counters that tell what is wrong.
 */
async function unlessUnavailable(read: () => Promise<void>): Promise<void> {
  try {
    await read();
  } catch (error) {
    if (!(error instanceof DatabaseUnavailableError)) throw error;
  }
}

function databaseMetrics(registry: Registry, database: Database, now: () => number): void {
  new Gauge({
    name: 'nativa_db_pool_connections',
    help: 'Database connections by state: in_use, idle, and waiting (borrowers queued for one).',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const stats = database.poolStats?.();
      if (stats === undefined) return;
      this.set({ state: 'in_use' }, stats.inUse);
      this.set({ state: 'idle' }, stats.idle);
      this.set({ state: 'waiting' }, stats.waiting);
    },
  });
  new Gauge({
    name: 'nativa_settlement_lag_seconds',
    help: 'Age of the oldest accepted click not yet settled (0 when none waits), across all instances.',
    registers: [registry],
    async collect() {
      await unlessUnavailable(async () => {
        const { rows } = await sql<{ oldest: Date | null }>`SELECT min(created_at) AS oldest FROM accepted_clicks`.execute(
          database.db,
        );
        const oldest = rows[0]?.oldest;
        this.set(oldest ? Math.max(0, (now() - oldest.getTime()) / 1000) : 0);
      });
    },
  });
  new Gauge({
    name: 'nativa_emails',
    help: 'E-mails in the outbox by status: queued, sent, failed (across all instances).',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      await unlessUnavailable(async () => {
        const rows = await outboxCountsByStatus(database.db);
        this.reset();
        for (const status of ['queued', 'sent', 'failed']) this.set({ status }, 0);
        for (const row of rows) this.set({ status: row.status }, row.count);
      });
    },
  });
}
