import type { Redis } from 'ioredis';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import { readChangeCounter } from '../../db/change-counters.ts';
import type { Db } from '../../db/database.ts';
import { findOrCreatePlatformAccount } from '../ledger/ledger.ts';
import { DEVICES, dayOf, type GoalId } from '../statistics/record-events.ts';
import type { Winner } from './auction.ts';
import {
  type AcceptanceVerdict,
  acceptClicks,
  type ConversionOutcome,
  findAcceptedClicks,
  recordConversion,
  type SettlementSettings,
  settleClicks,
} from './billing.ts';
import { ClickBatcher } from './click-batcher.ts';
import { ClickSettler } from './click-settler.ts';
import { type ClickClaims, ClickSigner, loadSigningSecret, newClickId } from './click-token.ts';
import type { ImpressionFilters } from './eligibility.ts';
import { type Explanation, explainImpression } from './explain.ts';
import { type FrequencyStore, memoryFrequencyStore, redisFrequencyStore } from './frequency.ts';
import { ImpressionBuffer } from './impressions.ts';
import { memoryPageViewStore, type PageViewStore, redisPageViewStore } from './page-views.ts';
import {
  type AdEntry,
  buildSnapshot,
  campaignCanServe,
  emptySnapshot,
  type Impression,
  refreshSpend,
  type Snapshot,
  selectTeasers,
} from './serving-index.ts';
import { findOfferTarget, upsertAudienceMember } from './serving-repository.ts';
import { type ViewClaims, ViewSigner } from './view-token.ts';
import { visitorTraits } from './visitor.ts';
import { frequencyVisitor, type VisitorSignals } from './visitor-id.ts';

/** A full rebuild at least this often, even when nothing changed: CTR estimates move with traffic. */
const FULL_REBUILD_MS = 30_000;

export interface ServingOptions {
  db: Db;
  clock: Clock;
  timeZone: string;
  signingSecret: string;
  revenueSharePercent: number;
  /** How often the snapshot is rebuilt from the database. */
  refreshMs: number;
  /** How often served teasers and counted views are written to the rollup (at most 1000). */
  flushMs: number;
  /** How often accepted clicks that no instance settled are looked for (default 5 s). */
  sweepMs?: number;
  /** What each page view showed (default: in this process). */
  pages?: PageViewStore;
  /** Views per visitor, campaign and day, for frequency caps (default: in this process). */
  frequency?: FrequencyStore;
  onError(error: unknown, what: string): void;
}

/** Where the engine writes what it decided about a click (the request's logger). */
export interface ClickLog {
  debug(details: object, message: string): void;
}

/**
 * What this instance's serving has done since start, as plain counters (an increment on the hot
 * path, nothing more); /api/metrics reads them when scraped.
 */
export interface ServingTally {
  /** Teaser requests answered (block loads). */
  impressions: number;
  /** Teasers served (each with a click link and an impression token). */
  served: number;
  /** Viewable views counted: beacons' tokens claimed and written to the rollup. */
  views: number;
  /** Beacons' tokens counted as no view, by why (docs/serving.md, Viewability). */
  viewRefusals: Record<'bot' | 'forged' | 'expired' | 'replayed', number>;
  clicksAccepted: number;
  clicksBilled: number;
  /** Clicks settled or refused without billing, by why. */
  refusals: Record<'bot' | 'limit' | 'funds' | 'duplicate', number>;
  conversions: number;
}

/** Who asks, beyond the impression: the loader's page id and what identifies the visitor. */
export interface Viewer extends VisitorSignals {
  pageId: string | undefined;
}

/** What serve() read for an impression without page or visitor filters. */
const NOTHING_READ: [undefined, undefined] = [undefined, undefined];

/** A claim on a page that collides this many times in a row (other blocks racing) serves nothing. */
const PAGE_CLAIM_ATTEMPTS = 3;

/** A hypothetical impression to explain. */
export interface ExplainQuery {
  blockId: number;
  device: Impression['device'];
  /** ISO country code, upper case; '' when unknown. */
  country: string;
  visitorId: string | undefined;
  /** Describe this campaign's ads too, not only the winners. */
  campaignId?: number;
}

export interface ServedTeaser {
  ad: AdEntry;
  clickToken: string;
  /** The signed, single-use impression token the loader's beacon sends back when the teaser was viewable. */
  viewToken: string;
}

/**
 * The serving engine of one instance: the snapshot it selects from, the view buffer, the click
 * signer, click acceptance and settlement. It is made once at start-up (createContext) and closed
 * on shutdown, after which every counted view and every accepted click is in the database.
 */
export class ServingEngine {
  private snapshot: Snapshot;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private platformAccount: Promise<number> | undefined;
  private version = -1;
  private busy = false;
  private builtAt = 0;
  private readonly options: ServingOptions;
  readonly signer: ClickSigner;
  readonly viewSigner: ViewSigner;
  readonly impressions: ImpressionBuffer;
  private readonly acceptance: ClickBatcher;
  private readonly settler: ClickSettler;
  private readonly pages: PageViewStore;
  private readonly frequency: FrequencyStore;
  readonly tally: ServingTally = {
    impressions: 0,
    served: 0,
    views: 0,
    viewRefusals: { bot: 0, forged: 0, expired: 0, replayed: 0 },
    clicksAccepted: 0,
    clicksBilled: 0,
    refusals: { bot: 0, limit: 0, funds: 0, duplicate: 0 },
    conversions: 0,
  };

  constructor(options: ServingOptions) {
    this.options = options;
    this.pages = options.pages ?? memoryPageViewStore(() => options.clock.now());
    this.frequency = options.frequency ?? memoryFrequencyStore();
    this.signer = new ClickSigner(options.signingSecret);
    this.viewSigner = new ViewSigner(options.signingSecret);
    this.snapshot = emptySnapshot(dayOf(options.clock.now(), options.timeZone));
    this.settler = new ClickSettler({
      settle: async (clickIds) => {
        const outcomes = await settleClicks(options.db, clickIds, await this.settlementSettings());
        for (const outcome of outcomes.values()) {
          if (outcome === 'billed') this.tally.clicksBilled += 1;
          else this.tally.refusals[outcome] += 1;
        }
        return outcomes.size;
      },
      findLeftovers: (beforeMs, limit) => findAcceptedClicks(options.db, beforeMs, limit),
      clock: options.clock,
      onError: (error) => options.onError(error, 'settling clicks'),
    });
    this.acceptance = new ClickBatcher(async (clicks) => {
      const verdicts = await acceptClicks(options.db, clicks);
      this.settler.add(clicks.flatMap((click, index) => (verdicts[index] === 'duplicate' ? [] : [click.claims.clickId])));
      return verdicts;
    });
    this.impressions = new ImpressionBuffer({
      db: options.db,
      timeZone: options.timeZone,
      tokenTtlMs: this.viewSigner.ttlMs,
      now: () => options.clock.now(),
      onFlushed: async (counted, replayed) => {
        this.tally.views += counted.length;
        this.tally.viewRefusals.replayed += replayed;
        await this.countTowardCaps(counted);
      },
      onError: (error) => options.onError(error, 'flushing views'),
    });
  }

  /**
   * Loads the first snapshot and settles clicks accepted before this start that are still
   * unsettled; then keeps the snapshot fresh, flushes views and sweeps for unsettled clicks on timers.
   */
  async start(): Promise<void> {
    await this.refresh();
    await this.settler.start(this.options.sweepMs ?? 5000);
    this.timer = setInterval(() => {
      this.tick().catch((error: unknown) => this.options.onError(error, 'refreshing the serving index'));
    }, this.options.refreshMs);
    this.timer.unref();
    this.impressions.start(Math.min(this.options.flushMs, 1000));
  }

  /** Rebuilds the snapshot now (tests call it to see their changes without waiting). */
  refresh(): Promise<void> {
    return this.exclusive(() => this.rebuild());
  }

  private async rebuild(): Promise<void> {
    const version = await readChangeCounter(this.options.db, 'serving');
    const now = this.options.clock.now();
    this.snapshot = await buildSnapshot(this.options.db, now, this.options.timeZone);
    this.version = version;
    this.builtAt = this.options.clock.now();
  }

  /**
   * The periodic refresh: a full rebuild when anything it is built from changed (on any instance),
   * when the day changed, or every FULL_REBUILD_MS for fresh CTR estimates; otherwise only
   * balances and today's spend, which other instances' clicks move.
   */
  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await this.exclusive(() => this.tickOnce());
    } finally {
      this.busy = false;
    }
  }

  /**
   * Runs inside exclusive(), so it decides on the state left by a refresh that ran just before
   * it: a rebuild asked for meanwhile (by a test, by the benchmark) is not repeated.
   */
  private async tickOnce(): Promise<void> {
    const version = await readChangeCounter(this.options.db, 'serving');
    const now = this.options.clock.now();
    if (
      version !== this.version ||
      dayOf(now, this.options.timeZone) !== this.snapshot.day ||
      now - this.builtAt >= FULL_REBUILD_MS
    ) {
      await this.rebuild();
      return;
    }
    await refreshSpend(this.options.db, this.snapshot);
  }

  /**
   * Records the winners on the page; when another block of the page claimed one of them first
   * (concurrent requests, perhaps on another instance), selects again without what it showed.
   */
  private async claimOnPage(pageId: string, impression: Impression, winners: Winner<AdEntry>[]): Promise<Winner<AdEntry>[]> {
    const filters = impression.filters;
    let selected = winners;
    for (let attempt = 1; filters !== undefined && selected.length > 0; attempt += 1) {
      const claim = {
        ads: selected.map(({ ad }) => ad.offerId),
        campaigns: selected.map(({ ad }) => ad.campaign.id),
        campaignsUnique: filters.campaignsUnique,
      };
      const conflict = await this.pages.claim(pageId, claim).catch(this.failOpen('claiming on the page'));
      if (conflict === undefined) return selected;
      if (attempt === PAGE_CLAIM_ATTEMPTS) return [];
      const page = await this.pages.shown(pageId).catch(this.failOpen('reading the page'));
      filters.page = page;
      selected = selectTeasers(this.snapshot, impression);
    }
    return selected;
  }

  /** A store that fails is reported and treated as empty, so serving goes on without its filter. */
  private failOpen(what: string): (error: unknown) => undefined {
    return (error) => {
      this.options.onError(error, what);
      return undefined;
    };
  }

  /** Refreshes run one after another, never interleaved. */
  private exclusive(work: () => Promise<void>): Promise<void> {
    const run = (this.refreshing ?? Promise.resolve()).catch(() => undefined).then(work);
    this.refreshing = run;
    return run;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.refreshing?.catch(() => undefined);
    await this.settled();
    await this.settler.close();
    await this.impressions.close();
  }

  block(blockId: number) {
    return this.snapshot.blocks.get(blockId);
  }

  /**
   * What serving would do for an impression of a block now, and why each other ad would not show
   * (the one door of the account API into the snapshot). Nothing is counted. The campaigns' hours
   * and the block's one-ad-per-campaign rule apply as they would now; a page view and a visitor's
   * frequency counts do not (an explanation has neither). Undefined when the block cannot serve
   * (unknown, or its site is not active).
   */
  explain(query: ExplainQuery): Explanation | undefined {
    const block = this.snapshot.blocks.get(query.blockId);
    if (block === undefined) return undefined;
    const filters: ImpressionFilters = {
      nowMs: this.options.clock.now(),
      page: undefined,
      campaignsUnique: block.campaignsUnique ?? false,
      viewsToday: undefined,
    };
    return explainImpression(
      this.snapshot,
      { block, device: query.device, country: query.country, visitorId: query.visitorId, filters },
      { campaignId: query.campaignId },
    );
  }

  /**
   * Selects teasers for an impression, claims them on the page, counts them as served and signs
   * their click links and impression tokens. A viewer's page and visitor filters are read from
   * their stores first; when one fails (Redis down) the impression is served without that filter
   * rather than not at all.
   */
  async serve(impression: Impression, viewer?: Viewer): Promise<ServedTeaser[]> {
    const now = this.options.clock.now();
    const day = dayOf(now, this.options.timeZone);
    const capped = this.snapshot.frequencyCapped === true;
    const visitor = viewer === undefined || !capped ? undefined : frequencyVisitor(viewer, this.options.signingSecret, day);
    const pageId = viewer?.pageId;
    // Without a page id or a capped campaign nothing is read: no stores to wait for.
    const [page, viewsToday] =
      pageId === undefined && visitor === undefined
        ? NOTHING_READ
        : await Promise.all([
            pageId === undefined ? undefined : this.pages.shown(pageId).catch(this.failOpen('reading the page')),
            visitor === undefined ? undefined : this.frequency.viewsToday(visitor, day).catch(this.failOpen('reading views')),
          ]);
    const filters: ImpressionFilters = {
      nowMs: now,
      page,
      campaignsUnique: impression.block.campaignsUnique ?? false,
      viewsToday,
    };
    let winners: Winner<AdEntry>[] = selectTeasers(this.snapshot, { ...impression, filters });
    if (pageId !== undefined && winners.length > 0) winners = await this.claimOnPage(pageId, { ...impression, filters }, winners);
    this.tally.impressions += 1;
    this.tally.served += winners.length;
    return winners.map((winner) => {
      const { ad } = winner;
      const claims: ClickClaims = {
        clickId: newClickId(),
        offerId: ad.offerId,
        campaignId: ad.campaign.id,
        siteId: impression.block.siteId,
        blockId: impression.block.id,
        device: impression.device,
        country: impression.country,
        chargeMicros: winner.chargeMicros,
        issuedAt: now,
      };
      this.impressions.add(
        {
          at: now,
          campaignId: ad.campaign.id,
          offerId: ad.offerId,
          siteId: impression.block.siteId,
          blockId: impression.block.id,
          device: impression.device,
          country: impression.country,
        },
        day,
      );
      const viewToken = this.viewSigner.sign({
        impressionId: claims.clickId,
        offerId: claims.offerId,
        campaignId: claims.campaignId,
        siteId: claims.siteId,
        blockId: claims.blockId,
        device: claims.device,
        country: claims.country,
        issuedAt: now,
        // Only a capped campaign's token names the visitor, for its beacon to count the view toward the cap.
        ...(visitor !== undefined && (ad.campaign.frequencyCap ?? 0) > 0 ? { visitor } : {}),
      });
      return { ad, clickToken: this.signer.sign(claims), viewToken };
    });
  }

  /**
   * Takes a beacon's impression tokens: each valid one is queued to count one view at the next
   * flush (unless its impression was counted before, on any instance). Robots' beacons, forged
   * and expired tokens count nothing; every token is tallied by what became of it.
   */
  recordViews(tokens: readonly string[], userAgent: string | undefined): void {
    const { viewRefusals } = this.tally;
    if (visitorTraits(userAgent).bot) {
      viewRefusals.bot += tokens.length;
      return;
    }
    const nowMs = this.options.clock.now();
    for (const token of tokens) {
      const verdict = this.viewSigner.verify(token, nowMs);
      if (verdict.kind !== 'valid') viewRefusals[verdict.kind] += 1;
      else if (!this.impressions.addView(verdict.claims)) viewRefusals.replayed += 1;
    }
  }

  /**
   * Counts committed views of capped campaigns' teasers toward their visitors' caps, on the day
   * each teaser was served. A failing store is reported: the views stay counted in the statistics.
   */
  private async countTowardCaps(views: readonly ViewClaims[]): Promise<void> {
    await Promise.all(
      views.flatMap(({ visitor, campaignId, issuedAt }) =>
        visitor === undefined
          ? []
          : [
              this.frequency
                .recordView(visitor, campaignId, dayOf(issuedAt, this.options.timeZone))
                .catch(this.failOpen('counting a view toward a cap')),
            ],
      ),
    );
  }

  /**
   * Decides where a followed click link leads, and accepts the click when the link is valid:
   * durable when this returns, settled (billed, or recorded unbilled) right after. Robots and
   * clicks over a limit of this instance's snapshot are accepted as refused; the balance is checked
   * by the settlement, in its transaction. An accepted click counts against the snapshot's spend at
   * once, so limits hold before its money has moved. A genuine link that is expired still
   * redirects, without a click id (a repeated one: with it, billed once). Undefined, and nothing
   * accepted: the link is forged (its MAC fails, so not even its ad is believed: the network's
   * domain must not redirect wherever a forger likes), or its ad is rejected or deleted.
   */
  async redirect(
    token: string,
    userAgent: string | undefined,
    log: ClickLog,
    address: string | null = null,
  ): Promise<string | undefined> {
    const nowMs = this.options.clock.now();
    const verdict = this.signer.verify(token, nowMs);
    const { claims } = verdict;
    if (claims === undefined) return undefined;
    const traits = visitorTraits(userAgent);
    const mobile = traits.device !== DEVICES.desktop;
    const target = this.targetOf(claims.offerId, mobile) ?? (await this.storedTargetOf(claims.offerId, mobile));
    if (target === undefined) return undefined;
    let clickId = '';
    if (verdict.kind === 'valid') {
      // The acceptance is awaited here, not in a helper, so a click costs one promise less.
      const campaign = this.snapshot.campaigns.get(claims.campaignId);
      const publisherId = this.snapshot.blocks.get(claims.blockId)?.publisherId;
      let acceptance: AcceptanceVerdict = 'limit';
      if (campaign !== undefined && publisherId !== undefined) {
        const refusal = traits.bot ? 'bot' : campaignCanServe(campaign) ? null : 'limit';
        const advertiserId = campaign.advertiser.id;
        acceptance = await this.acceptance.submit({ claims, advertiserId, publisherId, nowMs, address, refusal });
        if (acceptance === 'duplicate') this.tally.refusals.duplicate += 1;
        else this.tally.clicksAccepted += 1;
        if (acceptance === 'accepted') {
          campaign.spentTodayMicros += claims.chargeMicros;
          campaign.clicksToday += 1;
          campaign.advertiser.spentTodayMicros += claims.chargeMicros;
          campaign.advertiser.balanceMicros -= claims.chargeMicros;
        }
      }
      log.debug({ clickId: claims.clickId, acceptance }, 'click');
      if (acceptance === 'accepted' || acceptance === 'duplicate') clickId = claims.clickId;
    }
    return target.replaceAll('{click_id}', encodeURIComponent(clickId));
  }

  /** Counts a conversion of a click (settling the click first if it is not yet). */
  async recordConversion(clickId: string, goal: GoalId): Promise<ConversionOutcome> {
    const outcome = await recordConversion(
      this.options.db,
      clickId,
      goal,
      this.options.clock.now(),
      await this.settlementSettings(),
    );
    if (outcome === 'recorded') this.tally.conversions += 1;
    return outcome;
  }

  /** Waits until every click submitted so far is accepted and settled (tests, benchmarks, shutdown). */
  async settled(): Promise<void> {
    await this.acceptance.idle();
    await this.settler.settled();
  }

  /** Acceptance batches and settlements so far, with the clicks in them (group commit at work). */
  get clickCounts(): { acceptance: { batches: number; clicks: number }; settlement: { settlements: number; clicks: number } } {
    return { acceptance: { ...this.acceptance.counts }, settlement: { ...this.settler.counts } };
  }

  /** Where a click goes: the ad's mobile URL on mobile devices when it has one. */
  private targetOf(offerId: number, mobile: boolean): string | undefined {
    const ad = this.snapshot.adsById.get(offerId);
    if (ad === undefined) return undefined;
    return mobile && ad.urlMobile !== '' ? ad.urlMobile : ad.url;
  }

  /**
   * An ad that left the snapshot since its link was signed (paused, its campaign paused or out of
   * budget) still redirects; one that moderation rejected, or that was deleted, does not.
   */
  private async storedTargetOf(offerId: number, mobile: boolean): Promise<string | undefined> {
    const offer = await findOfferTarget(this.options.db, offerId);
    if (offer === undefined) return undefined;
    return mobile && offer.url_mobile !== '' ? offer.url_mobile : offer.url;
  }

  async addToAudience(advertiserId: number, visitorId: string): Promise<void> {
    await upsertAudienceMember(this.options.db, advertiserId, visitorId, new Date(this.options.clock.now()));
    let set = this.snapshot.audiences.get(visitorId);
    if (set === undefined) {
      set = new Set();
      this.snapshot.audiences.set(visitorId, set);
    }
    set.add(advertiserId);
  }

  private async settlementSettings(): Promise<SettlementSettings> {
    return {
      revenueSharePercent: this.options.revenueSharePercent,
      timeZone: this.options.timeZone,
      platformAccountId: await this.platformAccountId(),
    };
  }

  private platformAccountId(): Promise<number> {
    this.platformAccount ??= findOrCreatePlatformAccount(this.options.db).catch((error: unknown) => {
      this.platformAccount = undefined;
      throw error;
    });
    return this.platformAccount;
  }
}

/** Makes and starts the engine from the configuration (the signing secret may be generated). */
export async function createServingEngine(config: Config, db: Db, redis?: Redis): Promise<ServingEngine> {
  const prefix = config.redisKeyPrefix;
  const engine = new ServingEngine({
    pages: redis === undefined ? undefined : redisPageViewStore(redis, prefix),
    frequency: redis === undefined ? undefined : redisFrequencyStore(redis, prefix),
    db,
    clock: config.clock,
    timeZone: config.timeZone,
    signingSecret: loadSigningSecret(config.signingSecret, config.dataDir),
    revenueSharePercent: Math.round(config.revenueShare * 100),
    refreshMs: config.servingRefreshMs,
    flushMs: 500,
    onError: (error, what) => process.emitWarning(`serving engine: ${what} failed: ${(error as Error).message}`),
  });
  await engine.start();
  return engine;
}
