import https from 'node:https';
import type { TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../../src/db/database.ts';
import { issueToken } from '../../src/modules/accounts/account-service.ts';
import { hashPassword } from '../../src/modules/accounts/password.ts';
import { insertAccount, insertBlock, insertCampaign, insertOffer, insertSite } from './fixtures.ts';
import { DESKTOP_UA } from './serving.ts';

/**
 * Shared parts of the chaos tests (test/e2e/chaos-*.test.ts): whether they can run here, and a
 * bounded, steady traffic of the kinds a running network sees (teasers with view beacons and
 * clicks, API reads, sign-ins, readiness probes), each response recorded with its time.
 */

/**
 * Skips a chaos test whose binaries are missing, saying which; under CI (`CI=true`) a missing
 * binary fails the test instead, so the suite cannot pass there without having run it.
 */
export function skipUnlessRunnable(t: TestContext, missing: string | undefined): boolean {
  if (missing === undefined) return false;
  if (process.env.CI === 'true') throw new Error(`${missing}: the chaos tests must run in CI`);
  t.skip(missing);
  return true;
}

export type SampleKind = 'teasers' | 'view' | 'click' | 'me' | 'statistics' | 'sign-in' | 'ready' | 'credit';

export interface Sample {
  kind: SampleKind;
  /** When the request was sent and answered (Date.now()). */
  sentAt: number;
  answeredAt: number;
  /** 0 when the connection failed or the request took longer than the traffic's limit. */
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The Idempotency-Key a write was sent with. */
  key?: string;
}

export interface TrafficTargets {
  base: string;
  blockId: number;
  /** An advertiser's API token (`/api/me`, statistics). */
  token: string;
  login: string;
  password: string;
  /**
   * When given, a fourth loop moves money: an operator's keyed credit of 0.01 to `accountId`
   * (`POST /api/admin/users/:id/balance` with Idempotency-Key), the same key again after an
   * answer that is not final (no answer, 409, 503), as a client that retries does.
   */
  credit?: { operatorToken: string; accountId: number };
}

/** A request that waits this long is recorded as failed (status 0); no request waits longer. */
const REQUEST_LIMIT_MS = 15_000;

/** One HTTPS request with a time limit, recorded as a sample. */
function send(
  agent: https.Agent,
  kind: SampleKind,
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Sample> {
  const sentAt = Date.now();
  return new Promise((resolve) => {
    const failed = () => resolve({ kind, sentAt, answeredAt: Date.now(), status: 0, headers: {}, body: '' });
    const outgoing = https.request(url, { method, agent, headers, timeout: REQUEST_LIMIT_MS }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          kind,
          sentAt,
          answeredAt: Date.now(),
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      response.on('error', failed);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error('request time limit')));
    outgoing.on('error', failed);
    outgoing.end(body);
  });
}

/**
 * Steady traffic until `stop()` (or `maxMs`, whichever comes first): two serving loops (teasers
 * with a page and visitor id, a beacon for their views, a click on one of them) and one API loop
 * (`/api/me`, an advertiser statistic, a sign-in, the readiness probe), each pausing `pauseMs`
 * between rounds.
 */
export class Traffic {
  readonly samples: Sample[] = [];
  private stopped = false;
  private readonly loops: Promise<void>[] = [];
  private readonly agent = new https.Agent({ rejectUnauthorized: false, keepAlive: true, maxSockets: 16 });
  private readonly targets: TrafficTargets;
  private readonly pauseMs: number;
  private readonly deadline: number;
  private round = 0;
  private credits = 0;
  private creditKey: string | undefined;

  constructor(targets: TrafficTargets, options: { pauseMs?: number; maxMs?: number } = {}) {
    this.targets = targets;
    this.pauseMs = options.pauseMs ?? 50;
    this.deadline = Date.now() + (options.maxMs ?? 45_000);
  }

  start(): void {
    this.loops.push(
      this.loop(() => this.servingRound()),
      this.loop(() => this.servingRound()),
      this.loop(() => this.apiRound()),
    );
    if (this.targets.credit !== undefined) this.loops.push(this.loop(() => this.creditRound()));
  }

  async stop(): Promise<Sample[]> {
    this.stopped = true;
    await Promise.all(this.loops);
    this.agent.destroy();
    return this.samples;
  }

  /** The samples of one kind answered in [from, to). */
  of(kind: SampleKind, from = 0, to = Number.POSITIVE_INFINITY): Sample[] {
    return this.samples.filter((sample) => sample.kind === kind && sample.sentAt >= from && sample.sentAt < to);
  }

  private async loop(round: () => Promise<void>): Promise<void> {
    while (!this.stopped && Date.now() < this.deadline) {
      await round();
      await sleep(this.pauseMs);
    }
  }

  private record(sample: Sample): Sample {
    this.samples.push(sample);
    return sample;
  }

  private async servingRound(): Promise<void> {
    const { base, blockId } = this.targets;
    this.round += 1;
    const page = `chaos-page-${String(this.round).padStart(8, '0')}`;
    const visitor = `chaos-visitor-${String(this.round % 7).padStart(4, '0')}`;
    const headers = { 'User-Agent': DESKTOP_UA };
    const teasers = this.record(
      await send(
        this.agent,
        'teasers',
        'GET',
        `${base}/api/serve/blocks/${blockId}/teasers?page=${page}&visitor=${visitor}`,
        headers,
      ),
    );
    if (teasers.status !== 200) return;
    const list = (JSON.parse(teasers.body) as { teasers: { url: string; view: string }[] }).teasers;
    if (list.length === 0) return;
    const views = list.map((teaser) => teaser.view).join('\n');
    this.record(
      await send(this.agent, 'view', 'POST', `${base}/api/serve/views`, { ...headers, 'Content-Type': 'text/plain' }, views),
    );
    const link = list[this.round % list.length];
    if (link !== undefined) this.record(await send(this.agent, 'click', 'GET', link.url, headers));
  }

  private async apiRound(): Promise<void> {
    const { base, token, login, password } = this.targets;
    const auth = { 'Auth-Token': token, Accept: 'application/json' };
    this.record(await send(this.agent, 'me', 'GET', `${base}/api/me`, auth));
    this.record(await send(this.agent, 'statistics', 'GET', `${base}/api/advertiser/statistics`, auth));
    this.record(
      await send(
        this.agent,
        'sign-in',
        'POST',
        `${base}/api/session`,
        { 'Content-Type': 'application/json', Accept: 'application/json' },
        JSON.stringify({ login, password }),
      ),
    );
    this.record(await send(this.agent, 'ready', 'GET', `${base}/api/health/ready`, {}));
  }

  private async creditRound(): Promise<void> {
    const { base, credit } = this.targets;
    if (credit === undefined) return;
    if (this.creditKey === undefined) {
      this.credits += 1;
      this.creditKey = `chaos-credit-${String(this.credits).padStart(6, '0')}`;
    }
    const key = this.creditKey;
    const headers = {
      'Auth-Token': credit.operatorToken,
      Accept: 'application/json',
      'Content-Type': 'application/json',
      'Idempotency-Key': key,
    };
    const body = JSON.stringify({ amount: 0.01, comment: key });
    const sample = await send(this.agent, 'credit', 'POST', `${base}/api/admin/users/${credit.accountId}/balance`, headers, body);
    this.record({ ...sample, key });
    if (![0, 409, 503].includes(sample.status)) this.creditKey = undefined;
  }
}

/** The Idempotency-Keys of the credits answered 200: each moved its money once. */
export function acknowledgedCredits(samples: readonly Sample[]): string[] {
  return samples.filter((sample) => sample.kind === 'credit' && sample.status === 200).map((sample) => sample.key ?? '');
}

/** The click id a redirect passed to the advertiser (`id={click_id}` in the fixtures' ad URLs); '' when none. */
export function clickIdOf(sample: Sample): string {
  const location = sample.headers.location;
  if (typeof location !== 'string') return '';
  return new URL(location).searchParams.get('id') ?? '';
}

/** The value of one series of a Prometheus text exposition, e.g. `nativa_redis_fallbacks_total{store="sign_in"}`. */
export function metricValue(text: string, series: string): number {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return Number.NaN;
}

/** Reads /api/metrics with the scraper's token. */
export async function scrapeMetrics(base: string, metricsToken: string): Promise<string> {
  const agent = new https.Agent({ rejectUnauthorized: false });
  try {
    const sample = await send(agent, 'ready', 'GET', `${base}/api/metrics`, { Authorization: `Bearer ${metricsToken}` });
    if (sample.status !== 200) throw new Error(`metrics answered ${sample.status}: ${sample.body}`);
    return sample.body;
  } finally {
    agent.destroy();
  }
}

/** The p-th percentile (0–100) of durations in ms. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

export const durationOf = (sample: Sample): number => sample.answeredAt - sample.sentAt;

/**
 * What the traffic needs, written straight into a migrated database before the server starts:
 * a funded advertiser with six campaigns (one ad each), who can sign in and has an API token,
 * and a publisher's block of four teasers.
 */
export async function seedChaosWorld(db: Db): Promise<Omit<TrafficTargets, 'base'>> {
  const advertiser = await insertAccount(db, { kind: 'advertiser', username: 'chaos-advertiser', depositMicros: 1_000_000_000 });
  const password = 'chaos-password-1';
  await db
    .updateTable('accounts')
    .set({ password_hash: await hashPassword(password), email_confirmed_at: new Date() })
    .where('id', '=', advertiser.id)
    .execute();
  const publisher = await insertAccount(db, { kind: 'publisher', username: 'chaos-publisher' });
  for (let index = 0; index < 6; index += 1) {
    const campaign = await insertCampaign(db, { advertiserId: advertiser.id });
    await insertOffer(db, { campaignId: campaign.id, bidMicros: 50_000 + index * 10_000 });
  }
  const site = await insertSite(db, { publisherId: publisher.id });
  const blockId = (await insertBlock(db, { siteId: site.id, teaserCount: 4 })).id;
  const { token } = await issueToken(db, advertiser.id, 'chaos');
  return { blockId, token, login: 'chaos-advertiser', password };
}

/**
 * The requests sent in [from, until) that were still unanswered at `until`, leaving out the last
 * two of each kind (the traffic's two serving loops may each have one in flight at that moment):
 * a dependency's outage lasts seconds, and a request that waits for the dependency's return shows
 * up here, whatever the machine's speed. An order, not a time: the tests print the times.
 */
export function answeredOnlyAfter(samples: Sample[], kinds: readonly SampleKind[], from: number, until: number): Sample[] {
  const late: Sample[] = [];
  for (const kind of kinds) {
    const sent = samples.filter((sample) => sample.kind === kind && sample.sentAt >= from && sample.sentAt < until);
    sent.sort((a, b) => a.sentAt - b.sentAt);
    late.push(...sent.slice(0, -2).filter((sample) => sample.answeredAt >= until));
  }
  return late;
}
