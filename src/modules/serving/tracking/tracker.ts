import type { Clock } from '../../../clock.ts';
import type { Db } from '../../../db/database.ts';
import { dayOf } from '../../statistics/index.ts';
import type { Winner } from '../selection/auction.ts';
import type { FrequencyStore } from '../selection/frequency.ts';
import type { Impression } from '../selection/judgement.ts';
import type { AdEntry } from '../snapshot/snapshot.ts';
import { ImpressionBuffer } from './impressions.ts';
import { type ServedClaims, TeaserSigner } from './teaser-token.ts';
import type { ViewClaims } from './view-token.ts';
import { visitorTraits } from './visitor.ts';

export interface ServedTeaser {
  ad: AdEntry;
  clickToken: string;
  /** The signed, single-use impression token the loader's beacon sends back when the teaser was viewable. */
  viewToken: string;
}

/**
 * Beacons' tokens counted as no view, by why (docs/serving.md, Viewability): `invalid` is general
 * invalid traffic other than a declared robot (a data-centre network, automation).
 */
export type ViewRefusals = Record<'bot' | 'invalid' | 'forged' | 'expired' | 'replayed', number>;

export interface TrackerOptions {
  db: Db;
  clock: Clock;
  timeZone: string;
  signingSecret: string;
  /** Where views of capped campaigns' teasers are counted toward their visitors' caps. */
  frequency: FrequencyStore;
  /** The engine's tally of views counted and refused, and of failed flushes. */
  tally: { views: number; viewRefusals: ViewRefusals; viewFlushFailures: number };
  onError(error: unknown, what: string): void;
  /** Where the end of an outage is told (with its counts). */
  onInfo?(details: object, message: string): void;
}

/**
 * What follows a selection: each served teaser's signed click link and impression token, the
 * served count in the rollup, and the beacons that bring the tokens back as views (counted once,
 * on any instance, and toward capped campaigns' frequency caps).
 */
export class Tracker {
  /** Signs a teaser's click link and impression token under one MAC, and verifies either (teaser-token.ts). */
  readonly signer: TeaserSigner;
  readonly impressions: ImpressionBuffer;
  private readonly options: TrackerOptions;

  constructor(options: TrackerOptions) {
    this.options = options;
    this.signer = new TeaserSigner(options.signingSecret);
    this.impressions = new ImpressionBuffer({
      db: options.db,
      timeZone: options.timeZone,
      tokenTtlMs: this.signer.ttlMs,
      now: () => options.clock.now(),
      onFlushed: async (counted, replayed) => {
        options.tally.views += counted.length;
        options.tally.viewRefusals.replayed += replayed;
        await this.countTowardCaps(counted);
      },
      onError: (error) => options.onError(error, 'flushing views (reported once until a flush succeeds)'),
      onFailedFlush: () => {
        options.tally.viewFlushFailures += 1;
      },
      onRecovered: (recovery) => options.onInfo?.(recovery, 'flushing views works again'),
    });
  }

  /**
   * Counts the winners served and signs their click links and impression tokens. A capped
   * campaign's token names the `visitor` (when known), for its beacon to count the view toward the cap.
   */
  issue(winners: readonly Winner<AdEntry>[], impression: Impression, now: number, day: string, visitor?: string): ServedTeaser[] {
    const { siteId, id: blockId } = impression.block;
    for (const { ad } of winners) {
      this.impressions.add(
        {
          at: now,
          campaignId: ad.campaign.id,
          offerId: ad.offerId,
          siteId,
          blockId,
          device: impression.device,
          country: impression.country,
        },
        day,
      );
    }
    return this.sign(winners, impression, now, visitor);
  }

  /**
   * Signs the winners' click links and impression tokens without counting them served, with this
   * tracker's signer or another (an OpenRTB bid's, which counts only when it wins).
   */
  sign(
    winners: readonly Winner<AdEntry>[],
    impression: Impression,
    now: number,
    visitor?: string,
    signer: TeaserSigner = this.signer,
  ): ServedTeaser[] {
    const { siteId, id: blockId } = impression.block;
    return winners.map((winner) => {
      const { ad } = winner;
      const claims: ServedClaims = {
        offerId: ad.offerId,
        campaignId: ad.campaign.id,
        siteId,
        blockId,
        device: impression.device,
        country: impression.country,
        chargeMicros: winner.chargeMicros,
        issuedAt: now,
      };
      if (impression.asn) claims.servedAsn = impression.asn;
      // Only a capped campaign's teaser names the visitor, for its beacon to count the view toward the cap.
      if (visitor !== undefined && (ad.campaign.frequencyCap ?? 0) > 0) claims.visitor = visitor;
      const tokens = signer.signNew(claims);
      return { ad, clickToken: tokens.click, viewToken: tokens.view };
    });
  }

  /**
   * Takes a beacon's impression tokens: each valid one is queued to count one view at the next
   * flush (unless its impression was counted before, on any instance). Robots' beacons, forged
   * and expired tokens count nothing; every token is tallied by what became of it.
   */
  recordViews(tokens: readonly string[], userAgent: string | undefined): void {
    for (const claims of this.verifyViews(tokens, userAgent)) {
      if (!this.impressions.addView(claims)) this.options.tally.viewRefusals.replayed += 1;
    }
  }

  /**
   * A beacon's valid views, each impression once (a token twice in one beacon is tallied as
   * replayed); robots' beacons, forged and expired tokens are tallied and left out. The event log
   * (NATS_URL) appends these instead of queueing them.
   */
  verifyViews(tokens: readonly string[], userAgent: string | undefined): ViewClaims[] {
    const { viewRefusals } = this.options.tally;
    if (visitorTraits(userAgent).bot) {
      viewRefusals.bot += tokens.length;
      return [];
    }
    const nowMs = this.options.clock.now();
    const valid = new Map<string, ViewClaims>();
    for (const token of tokens) {
      const verdict = this.signer.verifyView(token, nowMs);
      if (verdict.kind !== 'valid') viewRefusals[verdict.kind] += 1;
      else if (valid.has(verdict.claims.impressionId)) viewRefusals.replayed += 1;
      else valid.set(verdict.claims.impressionId, verdict.claims);
    }
    return [...valid.values()];
  }

  /**
   * Counts committed views of capped campaigns' teasers toward their visitors' caps, on the day
   * each teaser was served. A failing store is reported: the views stay counted in the statistics.
   */
  async countTowardCaps(views: readonly ViewClaims[]): Promise<void> {
    await Promise.all(
      views.flatMap(({ visitor, campaignId, issuedAt }) =>
        visitor === undefined
          ? []
          : [
              this.options.frequency
                .recordView(visitor, campaignId, dayOf(issuedAt, this.options.timeZone))
                .catch((error: unknown) => this.options.onError(error, 'counting a view toward a cap')),
            ],
      ),
    );
  }
}

/** The view counting both paths share (the buffer's flush, the event log's settlement). */
export { countViews, seenUntil } from './impressions.ts';
