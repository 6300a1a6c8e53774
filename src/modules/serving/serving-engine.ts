import { createHmac, createSecretKey, hash, type KeyObject } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import { DatabaseUnavailableError } from '../../db/availability.ts';
import type { Db } from '../../db/database.ts';
import { type RedisGuard, sharedOrLocal } from '../../redis-guard.ts';
import { DEVICES, dayOf } from '../statistics/index.ts';
import type { AcceptanceVerdict, ClickEvidence, IncomingClick } from './billing/acceptance.ts';
import { ClickAcceptanceTimeout, ClickBilling } from './billing/click-billing.ts';
import type { ConversionOutcome, ReportedConversion } from './billing/settlement.ts';
import { UnsettledSpend } from './billing/unsettled-spend.ts';
import type { UnreadableSignal } from './consent/consent.ts';
import { EventLog, type EventSettlement } from './event-log/event-log.ts';
import { acceptThroughLog, type LogFallback, logViews } from './event-log/logged-tracking.ts';
import { settleLoggedViews } from './event-log/settle-views.ts';
import { type ExplainQuery, type Explanation, explainQuery } from './explain/explain-impression.ts';
import { type FrequencyStore, memoryFrequencyStore, redisFrequencyStore } from './selection/frequency.ts';
import { campaignCanServe, type Impression } from './selection/judgement.ts';
import { memoryPageViewStore, type PageViewStore, redisPageViewStore } from './selection/page-views.ts';
import { selectTeasers } from './selection/select-teasers.ts';
import { ViewerFilters } from './selection/viewer-filters.ts';
import type { CampaignState } from './snapshot/snapshot.ts';
import { SnapshotKeeper } from './snapshot/snapshot-keeper.ts';
import { joinAudience, rememberAudienceMember } from './tracking/audiences.ts';
import { clickTarget, storedClickTarget } from './tracking/click-target.ts';
import { loadSigningSecret } from './tracking/click-token.ts';
import {
  GIVT_REASONS,
  type GivtReason,
  type GivtRequest,
  type GivtSettings,
  givtReason,
  INVALID_TRAFFIC_REASONS,
  type InvalidTrafficReason,
} from './tracking/invalid-traffic.ts';
import { dataDirSources, Networks } from './tracking/networks.ts';
import type { TeaserSigner } from './tracking/teaser-token.ts';
import { type ServedTeaser, Tracker, type ViewRefusals } from './tracking/tracker.ts';
import type { ViewClaims } from './tracking/view-token.ts';
import { clickAddress, countryOf, visitorTraits } from './tracking/visitor.ts';
import { frequencyVisitor, type VisitorSignals } from './tracking/visitor-id.ts';

export type { ExplainQuery, ServedTeaser };

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
  /**
   * How long a click's redirect waits for the database to take the click (CLICK_ACCEPT_TIMEOUT_MS);
   * past it the visitor is redirected and the click goes unrecorded. Undefined: no limit.
   */
  clickAcceptTimeoutMs?: number;
  /**
   * How long after withdrawing a click whose acceptance failed on a lost connection it is
   * withdrawn again (billing/click-withdrawals.ts): past the statement timeout (default 15 s).
   */
  withdrawalRecheckMs?: number;
  /** What each page view showed (default: in this process). */
  pages?: PageViewStore;
  /** Views per visitor, campaign and day, for frequency caps (default: in this process). */
  frequency?: FrequencyStore;
  /**
   * The event log (NATS_URL, docs/adr/0029): clicks and views are appended to it before their
   * answers and settled from it; without it they go to the database on their requests.
   */
  events?: EventLog;
  /** Called between a committed settlement of logged events and their acknowledgement (the crash test). */
  afterEventCommit?(): void;
  /** Networks of addresses (data-centre rule, the click's evidence); default: the shipped lists. */
  networks?: Networks;
  /** Development hosts (`localhost`, `*.test`, private addresses) count as every site's (IVT_ALLOW_DEV_HOSTS). */
  allowDevHosts?: boolean;
  onError(error: unknown, what: string): void;
  /** Where recoveries are told (the view buffer's first flush after failures). */
  onInfo?(details: object, message: string): void;
}

/** Where the engine writes what it decided about a click (the request's logger). */
export interface ClickLog {
  debug(details: object, message: string): void;
  warn(details: object, message: string): void;
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
  /** Flushes of served teasers and views that failed (database away); their counts were kept for the next. */
  viewFlushFailures: number;
  /** Beacons' tokens counted as no view, by why (docs/serving.md, Viewability). */
  viewRefusals: ViewRefusals;
  clicksAccepted: number;
  /**
   * Clicks redirected without being recorded (not billed) because the database was away or did not
   * take them within CLICK_ACCEPT_TIMEOUT_MS.
   */
  clicksUnrecorded: number;
  /**
   * Of those, clicks whose late acceptance a settlement billed before this instance could withdraw
   * it (billed once; logged by click id).
   */
  clicksBilledLate: number;
  /** Of those, clicks whose acceptance committed late and was withdrawn before any settlement. */
  clicksWithdrawn: number;
  clicksBilled: number;
  /** Clicks settled or refused without billing, by why. */
  refusals: Record<'bot' | 'limit' | 'funds' | 'duplicate', number>;
  conversions: number;
  /** Clicks and beacons the event log did not acknowledge in time, taken by the database instead. */
  logFallbacks: number;
  /** Requests served unpersonalised because a consent parameter could not be read, by parameter. */
  consentUnreadable: Record<UnreadableSignal, number>;
  /** Teaser requests answered with no teasers as general invalid traffic, by rule. */
  invalidRequests: Record<GivtReason, number>;
  /**
   * Invalid clicks by reason: refused on arrival (general invalid traffic, counted here) and
   * refunded after the fact (the sweeps of src/modules/invalid-traffic add theirs).
   */
  invalidClicks: Record<InvalidTrafficReason, number>;
}

/** The visitor behind a followed click link, as the request shows it. */
export interface ClickVisitor extends GivtRequest {}

/** Who asks, beyond the impression: the loader's page id and what identifies the visitor. */
export interface Viewer extends VisitorSignals {
  pageId: string | undefined;
  /**
   * False when the visitor did not consent (or the site never personalises, docs/privacy.md): no
   * visitor is derived at all, so frequency caps do not apply to the impression.
   */
  personalised?: boolean;
}

/** Where a followed click link leads. */
export interface ClickRedirect {
  location: string;
  /** The click id of a genuine, unexpired link (the conversion pixel's cookie tags it); else undefined. */
  freshClickId: string | undefined;
}

/**
 * The serving engine of one instance, over the stages of docs/serving.md (Code layout): the
 * snapshot it selects from (snapshot/), the viewer's filters and the selection (selection/), the
 * tokens and the view buffer (tracking/), click acceptance and settlement (billing/). It is made
 * once at start-up (createContext) and closed on shutdown, after which every counted view and
 * every accepted click is in the database.
 */
export class ServingEngine implements EventSettlement {
  private readonly options: ServingOptions;
  private readonly keeper: SnapshotKeeper;
  private readonly viewerFilters: ViewerFilters;
  private readonly tracker: Tracker;
  private readonly billing: ClickBilling;
  readonly tally: ServingTally = {
    impressions: 0,
    served: 0,
    views: 0,
    viewFlushFailures: 0,
    viewRefusals: { bot: 0, invalid: 0, forged: 0, expired: 0, replayed: 0 },
    clicksAccepted: 0,
    clicksUnrecorded: 0,
    clicksBilledLate: 0,
    clicksWithdrawn: 0,
    clicksBilled: 0,
    refusals: { bot: 0, limit: 0, funds: 0, duplicate: 0 },
    conversions: 0,
    logFallbacks: 0,
    consentUnreadable: { gdpr: 0, gdpr_consent: 0, gpp: 0, gpp_sid: 0, gpc: 0, us_privacy: 0 },
    invalidRequests: Object.fromEntries(GIVT_REASONS.map((reason) => [reason, 0])) as Record<GivtReason, number>,
    invalidClicks: Object.fromEntries(INVALID_TRAFFIC_REASONS.map((reason) => [reason, 0])) as Record<
      InvalidTrafficReason,
      number
    >,
  };
  /** What the rules of general invalid traffic are given (the networks, the development hosts). */
  readonly givt: GivtSettings;
  /** The key of the click's day visitor hash (derived from the signing secret). */
  /** The key of click evidence's visitor hashes, as text (it is hashed with the fields). */
  private readonly visitorKey: string;
  /** The signing secret as the key of frequency-cap visitor ids. */
  private readonly frequencyKey: KeyObject;
  /** Milliseconds from a logged click's redirect to its settlement's commit, the latest ones (benchmarks). */
  readonly eventLagMs: number[] = [];
  /** Billable clicks accepted here and not yet seen settled, counted on every refresh. */
  private readonly unsettled: UnsettledSpend;

  constructor(options: ServingOptions) {
    this.options = options;
    this.givt = {
      networks: options.networks ?? new Networks({ asnFiles: [], hostingFile: undefined }),
      allowDevHosts: options.allowDevHosts ?? false,
    };
    // A key object made once: createHmac given a string or a Buffer makes one per call (~15 µs).
    this.visitorKey = createHmac('sha256', options.signingSecret).update('nativa click visitor v2').digest('base64url');
    this.frequencyKey = createSecretKey(options.signingSecret, 'utf8');
    const { db, clock, timeZone, onError } = options;
    const frequency = options.frequency ?? memoryFrequencyStore();
    // On both paths: without it, a refresh between a click's acceptance and its settlement reads
    // spend without that click and the index forgets it until the next refresh (a daily limit or
    // budget then lets one more click through).
    this.unsettled = new UnsettledSpend(timeZone);
    this.keeper = new SnapshotKeeper({ db, clock, timeZone, onError, unsettled: this.unsettled });
    this.viewerFilters = new ViewerFilters({
      pages: options.pages ?? memoryPageViewStore(() => clock.now()),
      frequency,
      onError,
    });
    this.tracker = new Tracker({
      db,
      clock,
      timeZone,
      signingSecret: options.signingSecret,
      frequency,
      tally: this.tally,
      onError,
      onInfo: options.onInfo,
    });
    this.billing = new ClickBilling({
      db,
      clock,
      timeZone,
      revenueSharePercent: options.revenueSharePercent,
      onSettled: (outcome) => {
        if (outcome === 'billed') this.tally.clicksBilled += 1;
        else this.tally.refusals[outcome] += 1;
      },
      acceptTimeoutMs: options.clickAcceptTimeoutMs,
      withdrawalRecheckMs: options.withdrawalRecheckMs,
      onWithdrawn: (count) => {
        this.tally.clicksWithdrawn += count;
      },
      onSettledBeforeWithdrawal: (clickId, status) => {
        if (status === 'billed') this.tally.clicksBilledLate += 1;
        options.onInfo?.(
          { clickId, status },
          'a click redirected unrecorded was settled from its late acceptance before it could be withdrawn',
        );
      },
      onError,
    });
  }

  /** The teaser token signer (tests and benchmarks sign and read links and impression tokens with it). */
  get signer() {
    return this.tracker.signer;
  }

  /** The buffer of served teasers and counted views (benchmarks flush it). */
  get impressions() {
    return this.tracker.impressions;
  }

  /**
   * Loads the first snapshot and settles clicks accepted before this start that are still
   * unsettled; then keeps the snapshot fresh, flushes views and sweeps for unsettled clicks on timers.
   */
  async start(): Promise<void> {
    await this.keeper.refresh();
    await this.billing.start(this.options.sweepMs ?? 5000);
    this.keeper.start(this.options.refreshMs);
    this.tracker.impressions.start(Math.min(this.options.flushMs, 1000));
    await this.options.events?.startConsumers(this, {
      onError: (error) => this.options.onError(error, 'settling logged events'),
      afterCommit: this.options.afterEventCommit,
    });
  }

  /** Rebuilds the snapshot now (tests call it to see their changes without waiting). */
  refresh(): Promise<void> {
    return this.keeper.refresh();
  }

  /** The periodic refresh (snapshot/snapshot-keeper.ts), run now. */
  tick(): Promise<void> {
    return this.keeper.tick();
  }

  /** The event log's answer to a round trip, or undefined when clicks and views go to the database. */
  eventLogPing(): Promise<void> | undefined {
    return this.options.events?.ping();
  }

  async close(): Promise<void> {
    await this.options.events?.close();
    await this.keeper.close();
    await this.billing.close();
    await this.tracker.impressions.close();
  }

  block(blockId: number) {
    return this.keeper.snapshot.blocks.get(blockId);
  }

  /**
   * What serving would do for an impression of a block now, and why each other ad would not show
   * (the one door of the account API into the snapshot; explain/explain-impression.ts). Nothing is
   * counted. Undefined when the block cannot serve (unknown, or its site is not active).
   */
  explain(query: ExplainQuery): Explanation | undefined {
    return explainQuery(this.keeper.snapshot, query, this.options.clock.now());
  }

  /**
   * Selects teasers for an impression, claims them on the page, counts them as served and signs
   * their click links and impression tokens. A viewer's page and visitor filters are read from
   * their stores first; when one fails (Redis down) the impression is served without that filter
   * rather than not at all.
   */
  async serve(impression: Impression, viewer?: Viewer): Promise<ServedTeaser[]> {
    const { winners, now, day, visitor } = await this.select(impression, viewer);
    this.tally.impressions += 1;
    this.tally.served += winners.length;
    return this.tracker.issue(winners, impression, now, day, visitor);
  }

  /**
   * Selects teasers for an impression as serve() does, but counts nothing: an OpenRTB bid is an
   * offer that may lose, counted served only when its win is noticed (openrtb/, docs/adr/0044).
   * Their tokens are signed by `signer`, so that the click and view routes do not take them.
   */
  async offer(impression: Impression, viewer: Viewer | undefined, signer: TeaserSigner): Promise<ServedTeaser[]> {
    const { winners, now, visitor } = await this.select(impression, viewer);
    return this.tracker.sign(winners, impression, now, visitor, signer);
  }

  private async select(impression: Impression, viewer: Viewer | undefined) {
    const now = this.options.clock.now();
    const day = dayOf(now, this.options.timeZone);
    const capped = this.keeper.snapshot.frequencyCapped === true;
    const visitor =
      viewer === undefined || !capped || viewer.personalised === false
        ? undefined
        : frequencyVisitor(viewer, this.frequencyKey, day);
    const pageId = viewer?.pageId;
    const read = this.viewerFilters.read(impression.block, pageId, visitor, now, day);
    const filters = read instanceof Promise ? await read : read;
    let winners = selectTeasers(this.keeper.snapshot, { ...impression, filters });
    if (pageId !== undefined && winners.length > 0) {
      winners = await this.viewerFilters.claimOnPage(() => this.keeper.snapshot, pageId, { ...impression, filters }, winners);
    }
    return { winners, now, day, visitor };
  }

  /**
   * A key for one purpose derived from the signing secret (an OpenRTB bid's tokens and notices
   * are signed under their own keys, which the serving routes do not accept).
   */
  keyFor(purpose: string): string {
    return createHmac('sha256', this.options.signingSecret).update(purpose).digest('base64url');
  }

  /**
   * Where a click on an ad leads for this User-Agent, accepting no click (an OpenRTB bid's link
   * followed before its win: the visitor reaches the advertiser, nothing is billed). Undefined
   * when the ad is rejected or deleted.
   */
  async clickTargetOf(offerId: number, userAgent: string | undefined): Promise<string | undefined> {
    const mobile = visitorTraits(userAgent).device !== DEVICES.desktop;
    const target =
      clickTarget(this.keeper.snapshot, offerId, mobile) ?? (await storedClickTarget(this.options.db, offerId, mobile));
    return target?.replaceAll('{click_id}', '');
  }

  /**
   * Takes a beacon's impression tokens: each valid one is queued to count one view at the next
   * flush (tracking/tracker.ts).
   */
  async recordViews(tokens: readonly string[], userAgent: string | undefined): Promise<void> {
    const { events } = this.options;
    if (events === undefined) {
      this.tracker.recordViews(tokens, userAgent);
      return;
    }
    // With the log, the beacon's answer waits until its views are stored.
    const views = this.tracker.verifyViews(tokens, userAgent);
    await logViews(events.publisher, views, this.logFallback, this.tally);
  }

  /** The database path, for events the log did not acknowledge in time. */
  private readonly logFallback: LogFallback = {
    acceptClick: (click) => this.billing.accept(click),
    countViews: (views) => this.settleViews(views),
    onError: (error, what) => this.options.onError(error, what),
  };

  /** Settles a batch of logged clicks (EventSettlement: the log's consumer calls it). */
  async settleClicks(clicks: IncomingClick[]): Promise<void> {
    await this.billing.settleLogged(clicks);
    const now = this.options.clock.now();
    if (this.eventLagMs.length > 100_000) this.eventLagMs.splice(0, 50_000);
    for (const click of clicks) this.eventLagMs.push(now - click.nowMs);
  }

  /** Counts a batch of logged views (EventSettlement), and the counted ones toward frequency caps. */
  async settleViews(views: ViewClaims[]): Promise<void> {
    const counted = await settleLoggedViews(this.options.db, views, {
      timeZone: this.options.timeZone,
      tokenTtlMs: this.tracker.signer.ttlMs,
      nowMs: this.options.clock.now(),
    });
    this.tally.views += counted.length;
    this.tally.viewRefusals.replayed += views.length - counted.length;
    await this.tracker.countTowardCaps(counted);
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
  async redirect(token: string, visitor: ClickVisitor, log: ClickLog): Promise<ClickRedirect | undefined> {
    const { userAgent } = visitor;
    const nowMs = this.options.clock.now();
    const verdict = this.tracker.signer.verifyClick(token, nowMs);
    const { claims } = verdict;
    if (claims === undefined) return undefined;
    const traits = visitorTraits(userAgent);
    const mobile = traits.device !== DEVICES.desktop;
    const target =
      clickTarget(this.keeper.snapshot, claims.offerId, mobile) ??
      (await storedClickTarget(this.options.db, claims.offerId, mobile));
    if (target === undefined) return undefined;
    let clickId = '';
    if (verdict.kind === 'valid') {
      // The acceptance is awaited here, not in a helper, so a click costs one promise less.
      const { snapshot } = this.keeper;
      const campaign = snapshot.campaigns.get(claims.campaignId);
      const block = snapshot.blocks.get(claims.blockId);
      const publisherId = block?.publisherId;
      let acceptance: AcceptanceVerdict = 'limit';
      if (campaign !== undefined && publisherId !== undefined) {
        const invalidReason = givtReason(visitor, block?.siteHosts, this.givt, true);
        const refusal = invalidReason !== null ? 'bot' : campaignCanServe(campaign) ? null : 'limit';
        const advertiserId = campaign.advertiser.id;
        const address = clickAddress(visitor.address);
        const evidence = this.evidenceOf(visitor, nowMs);
        const click: IncomingClick = { claims, advertiserId, publisherId, nowMs, address, refusal, invalidReason, evidence };
        const { events } = this.options;
        // Counted before the wait and taken back unless accepted: clicks in flight together
        // cannot all pass the limit check that only one of them fits.
        if (refusal === null) countAgainstLimits(campaign, claims.chargeMicros, 1);
        try {
          acceptance =
            events === undefined
              ? await this.billing.accept(click)
              : await acceptThroughLog(events.publisher, click, this.logFallback, this.tally);
        } catch (error) {
          // Neither the log nor the database took it (in time): the visitor still reaches the
          // advertiser; the click is not recorded and not billed (what its statement may still
          // write is withdrawn: billing/click-withdrawals.ts).
          if (!(error instanceof DatabaseUnavailableError)) throw error;
          if (refusal === null) countAgainstLimits(campaign, -claims.chargeMicros, -1);
          this.tally.clicksUnrecorded += 1;
          const why = error instanceof ClickAcceptanceTimeout ? 'the database did not take it in time' : 'the database is away';
          log.warn({ clickId: claims.clickId, campaignId: claims.campaignId }, `click not recorded: ${why}`);
          return { location: target.replaceAll('{click_id}', ''), freshClickId: claims.clickId };
        }
        if (acceptance === 'duplicate') this.tally.refusals.duplicate += 1;
        else {
          this.tally.clicksAccepted += 1;
          if (invalidReason !== null) this.tally.invalidClicks[invalidReason] += 1;
        }
        if (acceptance === 'accepted') this.unsettled.add(click);
        else if (refusal === null) countAgainstLimits(campaign, -claims.chargeMicros, -1);
      }
      log.debug({ clickId: claims.clickId, acceptance }, 'click');
      if (acceptance === 'accepted' || acceptance === 'duplicate') clickId = claims.clickId;
    }
    return {
      location: target.replaceAll('{click_id}', encodeURIComponent(clickId)),
      freshClickId: verdict.kind === 'valid' ? claims.clickId : undefined,
    };
  }

  /**
   * Whether a teasers request is general invalid traffic, counted by rule when it is (the route
   * answers it with no teasers).
   */
  judgeTeasersRequest(request: GivtRequest, siteHosts: readonly string[] | undefined): GivtReason | null {
    const reason = givtReason(request, siteHosts, this.givt, false);
    if (reason !== null) this.tally.invalidRequests[reason] += 1;
    return reason;
  }

  /**
   * Whether a view beacon is general invalid traffic other than a declared robot (a data-centre
   * network, automation): none of its tokens counts as a view, all are tallied `invalid`. A robot's
   * beacon is left to the tracker, which tallies it `bot`.
   */
  refusesViewBeacon(request: GivtRequest, tokens: number): boolean {
    const reason = givtReason(request, undefined, this.givt, false);
    if (reason === null || reason === 'bot') return false;
    this.tally.viewRefusals.invalid += tokens;
    return true;
  }

  /** The network (AS number) of an address; 0 when unknown. */
  asnOf(address: string | undefined): number {
    return this.givt.networks.of(address).asn;
  }

  /**
   * What the after-the-fact rules read of a click: its network and country, and a hash of its
   * address and User-Agent under a key that changes every day (no visitor is followed across days).
   */
  private evidenceOf(visitor: ClickVisitor, nowMs: number): ClickEvidence {
    const address = visitor.address ?? '';
    const day = dayOf(nowMs, this.options.timeZone);
    // A keyed hash (the key first, then the fields), not an HMAC: a pseudonym needs a value no
    // one without the key can compute or reverse, which this is; one one-shot hash costs a click
    // 0.3 µs where createHmac cost ~10 µs.
    const visitorHash = hash('sha256', `${this.visitorKey}\n${day}\n${address}\n${visitor.userAgent ?? ''}`, 'base64url').slice(
      0,
      22,
    );
    return { asn: this.givt.networks.of(address).asn, country: countryOf(address), visitorHash };
  }

  /** Counts a conversion of a click (settling the click first if it is not yet). */
  async recordConversion(conversion: ReportedConversion): Promise<ConversionOutcome> {
    const outcome = await this.billing.recordConversion(conversion);
    if (outcome === 'recorded') this.tally.conversions += 1;
    return outcome;
  }

  /** Waits until every click submitted so far is accepted and settled (tests, benchmarks, shutdown). */
  settled(): Promise<void> {
    return this.billing.settled();
  }

  /** Acceptance batches and settlements so far, with the clicks in them (group commit at work). */
  get clickCounts(): { acceptance: { batches: number; clicks: number }; settlement: { settlements: number; clicks: number } } {
    return this.billing.counts;
  }

  async addToAudience(advertiserId: number, visitorId: string): Promise<void> {
    await joinAudience(this.options.db, advertiserId, visitorId, this.options.clock.now());
    rememberAudienceMember(this.keeper.snapshot, advertiserId, visitorId);
  }
}

/** Moves a campaign's and its advertiser's spend, click count and balance by one click (or back). */
function countAgainstLimits(campaign: CampaignState, chargeMicros: number, clicks: 1 | -1): void {
  campaign.spentTodayMicros += chargeMicros;
  campaign.clicksToday += clicks;
  campaign.advertiser.spentTodayMicros += chargeMicros;
  campaign.advertiser.balanceMicros -= chargeMicros;
}

/** Makes and starts the engine from the configuration (the signing secret may be generated). */
export async function createServingEngine(
  config: Config,
  db: Db,
  redis?: RedisGuard,
  log?: { info(details: object, message: string): void },
): Promise<ServingEngine> {
  const prefix = config.redisKeyPrefix;
  const warn = (what: string, message: string) => process.emitWarning(`serving engine: ${what}: ${message}`);
  const events =
    config.nats === undefined
      ? undefined
      : await EventLog.open(config.nats, { onStatus: (kind, detail) => warn('NATS', `${kind} ${detail}`) });
  const pages = () => memoryPageViewStore(() => config.clock.now());
  const engine = new ServingEngine({
    events,
    afterEventCommit: config.crashMidSettlement ? crashOnSignal() : undefined,
    pages: sharedOrLocal(redis, 'page_views', (shared) => redisPageViewStore(shared, prefix), pages),
    frequency: sharedOrLocal(redis, 'frequency', (shared) => redisFrequencyStore(shared, prefix), memoryFrequencyStore),
    db,
    clock: config.clock,
    timeZone: config.timeZone,
    signingSecret: loadSigningSecret(config.signingSecret, config.dataDir),
    revenueSharePercent: Math.round(config.revenueShare * 100),
    refreshMs: config.servingRefreshMs,
    flushMs: 500,
    clickAcceptTimeoutMs: config.clickAcceptTimeoutMs,
    withdrawalRecheckMs: config.databaseStatementTimeoutMs > 0 ? config.databaseStatementTimeoutMs + 5000 : undefined,
    networks: new Networks(networkSources(config)),
    allowDevHosts: config.ivtAllowDevHosts,
    onError: (error, what) => process.emitWarning(`serving engine: ${what} failed: ${(error as Error).message}`),
    onInfo: log === undefined ? undefined : (details, message) => log.info(details, `serving engine: ${message}`),
  });
  await engine.start();
  return engine;
}

/** Where the engine's network lists come from: DATA_DIR's updated copies, else the configured files, else the shipped ones. */
export function networkSources(config: Config) {
  return dataDirSources(config.dataDir, { asnFiles: config.ivtAsnFiles, hostingFile: config.ivtHostingFile });
}

/**
 * The crash test's hook (NATIVA_TEST_CRASH_MID_SETTLEMENT): after SIGUSR2, the next committed
 * settlement of logged events kills the process before its events are acknowledged.
 */
function crashOnSignal(): () => void {
  let armed = false;
  process.on('SIGUSR2', () => {
    armed = true;
  });
  return () => {
    if (armed) process.kill(process.pid, 'SIGKILL');
  };
}
