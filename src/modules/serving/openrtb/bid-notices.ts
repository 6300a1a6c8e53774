import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../../clock.ts';
import type { Db } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { DomainError } from '../../../http/errors.ts';
import type { DeviceId } from '../../statistics/index.ts';
import { recordEvents } from '../../statistics/index.ts';
import type { ClickLog, ClickVisitor, ServingEngine } from '../serving-engine.ts';
import type { ClickClaims } from '../tracking/click-token.ts';
import { TeaserSigner } from '../tracking/teaser-token.ts';
import type { ViewClaims } from '../tracking/view-token.ts';
import { visitorTraits } from '../tracking/visitor.ts';
import { hasWon, recordWin, rememberEarlyView } from './openrtb-repository.ts';

/**
 * An OpenRTB bid is an offer that may lose (docs/adr/0044). Its click link and view pixel carry
 * tokens signed under a key of their own, which the serving routes refuse; nothing is counted
 * when it is made. Its win notice (`nurl`) or billing notice (`burl`) records the win and counts
 * it served, once; only then does its click link bill and its pixel count a view, through the
 * serving engine under tokens of its own key signed from the same claims.
 */

/** The notices of a bid: `nurl` (won the exchange's auction) and `burl` (billable by its policy). */
export const NOTICE_EVENTS = ['win', 'billing'] as const;
export type NoticeEvent = (typeof NOTICE_EVENTS)[number];

/** What a notice did: counted the bid served, or found it counted by an earlier notice. */
export type NoticeOutcome = 'counted' | 'repeated';

/** Bytes of the notice's MAC (128 bits of HMAC-SHA256, as RFC 2104 allows). */
const NOTICE_MAC_BYTES = 16;
const NOTICE_PATTERN = /^([A-Za-z0-9_-]+)\.(\d{1,15})\.([A-Za-z0-9_-]{22})$/;
/** `${AUCTION_PRICE}`: a CPM in currency units; at most 9 digits before the point. */
const PRICE_PATTERN = /^(\d{1,9})(?:\.(\d+))?$/;

export class OpenRtbBids {
  /** Signs and reads bids' click links and view tokens (a key the serving routes do not accept). */
  readonly signer: TeaserSigner;
  private readonly noticeKey: KeyObject;
  private readonly serving: ServingEngine;
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly timeZone: string;

  constructor(serving: ServingEngine, options: { db: Db; clock: Clock; timeZone: string }) {
    this.serving = serving;
    this.db = options.db;
    this.clock = options.clock;
    this.timeZone = options.timeZone;
    this.signer = new TeaserSigner(serving.keyFor('nativa openrtb bid tokens v1'));
    this.noticeKey = createSecretKey(Buffer.from(serving.keyFor('nativa openrtb bid notices v1'), 'base64url'));
  }

  /**
   * The token of a bid's notices: its click token (every claim the win is counted under) and its
   * CPM in micros (what a clearing price may not exceed), under one MAC.
   */
  noticeToken(clickToken: string, bidPriceMicros: number): string {
    const signed = `${clickToken}.${bidPriceMicros}`;
    return `${signed}.${this.noticeMac(signed).toString('base64url')}`;
  }

  private noticeMac(signed: string): Buffer {
    return createHmac('sha256', this.noticeKey).update(signed).digest().subarray(0, NOTICE_MAC_BYTES);
  }

  /**
   * Takes a win or billing notice: the first of a bid's notices records the win and counts the bid
   * served (and a view its pixel brought before), in one transaction; a later one records only its
   * own time. Forged: 400; after the bid's tokens expired: 410 (the bid expired unserved); a
   * clearing price that is not a price or exceeds the bid: 400. Nothing is changed by a refusal.
   */
  async notice(token: string, event: NoticeEvent, priceText: string | undefined): Promise<NoticeOutcome> {
    const match = NOTICE_PATTERN.exec(token);
    const signedPart = match === null ? '' : `${match[1]}.${match[2]}`;
    const given = match === null ? undefined : Buffer.from(match[3] ?? '', 'base64url');
    if (match === null || given?.length !== NOTICE_MAC_BYTES || !timingSafeEqual(given, this.noticeMac(signedPart)))
      throw new DomainError('bid_notice_forged', 'This is not a notice of a bid of this server.');
    const bidPriceMicros = Number(match[2]);
    const nowMs = this.clock.now();
    const verdict = this.signer.verifyClick(match[1] ?? '', nowMs);
    if (verdict.claims === undefined) throw new DomainError('bid_notice_forged', 'This is not a notice of a bid of this server.');
    if (verdict.kind === 'expired')
      throw new DomainError('bid_expired', 'The bid expired unserved: its notice came after its tokens’ lifetime.');
    const clearingPriceMicros = clearingPriceOf(priceText, bidPriceMicros);
    const { claims } = verdict;
    const outcome = await inTransaction(this.db, async (trx) => {
      const win = await recordWin(trx, {
        impressionId: claims.clickId,
        offerId: claims.offerId,
        campaignId: claims.campaignId,
        blockId: claims.blockId,
        bidPriceMicros,
        clearingPriceMicros,
        bidAt: new Date(claims.issuedAt),
        at: new Date(nowMs),
        notice: event,
      });
      // Served when and where the bid was made: its views are counted there too, so a day's
      // views never exceed its served teasers.
      if (win.first) await recordEvents(trx, [servedEvent(claims)], this.timeZone);
      return win;
    });
    if (!outcome.first) return 'repeated';
    this.serving.tally.served += 1;
    if (outcome.viewedEarly) await this.countView(claims);
    return 'counted';
  }

  /**
   * Where a bid's click link leads. A won bid's click goes through the engine as any teaser's
   * (accepted, billed once at the campaign's rules); a bid not (yet) won leads to the ad unbilled.
   * Undefined: a forged link, or an ad that is rejected or deleted.
   */
  async follow(token: string, visitor: ClickVisitor, log: ClickLog): Promise<string | undefined> {
    const { userAgent } = visitor;
    const verdict = this.signer.verifyClick(token, this.clock.now());
    const { claims } = verdict;
    if (claims === undefined) return undefined;
    if (!(await hasWon(this.db, claims.clickId))) {
      log.debug({ clickId: claims.clickId }, 'click on an OpenRTB bid not won: not billed');
      return this.serving.clickTargetOf(claims.offerId, userAgent);
    }
    return (await this.serving.redirect(this.serving.signer.sign(claims).click, visitor, log))?.location;
  }

  /**
   * Takes the view pixel of a bid's markup: a won bid's view is counted as a beacon's (once, not
   * robots'); a view of a bid not won yet is remembered for its notice to count. Tokens of the
   * serving routes' own key (markup of bids made before wins were noticed) count as before.
   */
  async view(token: string, userAgent: string | undefined): Promise<void> {
    const verdict = this.signer.verifyView(token, this.clock.now());
    if (verdict.kind === 'forged') {
      await this.serving.recordViews([token], userAgent);
      return;
    }
    if (verdict.kind === 'expired' || visitorTraits(userAgent).bot) return;
    const { claims } = verdict;
    const { won } = await rememberEarlyView(this.db, {
      impressionId: claims.impressionId,
      offerId: claims.offerId,
      campaignId: claims.campaignId,
      blockId: claims.blockId,
      bidAt: new Date(claims.issuedAt),
      at: new Date(this.clock.now()),
    });
    if (won) await this.countView(claims);
  }

  /** Counts a won bid's view through the engine (its seen-set keeps it to once per impression). */
  private async countView(claims: ViewClaims | ClickClaims): Promise<void> {
    const teaser = 'impressionId' in claims ? { ...claims, clickId: claims.impressionId, chargeMicros: 0 } : claims;
    // The view half only: a view is not billed, so the charge it is signed with is never read.
    await this.serving.recordViews([this.serving.signer.sign(teaser).view], undefined);
  }
}

function servedEvent(claims: ClickClaims) {
  return {
    at: claims.issuedAt,
    campaignId: claims.campaignId,
    offerId: claims.offerId,
    siteId: claims.siteId,
    blockId: claims.blockId,
    device: claims.device as DeviceId,
    country: claims.country,
    served: 1,
  };
}

/**
 * The clearing price of a notice (`${AUCTION_PRICE}`, a CPM in currency units) in micros, or null
 * when the exchange gave none (the macro removed, or left unreplaced). Digits beyond the micro are
 * dropped: never more than was said. A price that is not a decimal number, or exceeds the bid, is
 * refused (400): the exchange's notice is wrong, and nothing of it is believed.
 */
export function clearingPriceOf(text: string | undefined, bidPriceMicros: number): number | null {
  if (text === undefined || text === '' || text === `\${AUCTION_PRICE}`) return null;
  const match = PRICE_PATTERN.exec(text.trim());
  if (match === null) throw new DomainError('clearing_price_refused', `The clearing price "${text}" is not a price.`);
  const micros = Number(match[1]) * 1_000_000 + Number((match[2] ?? '').slice(0, 6).padEnd(6, '0'));
  if (micros > bidPriceMicros)
    throw new DomainError(
      'clearing_price_refused',
      `The clearing price ${text} exceeds the bid (${bidPriceMicros / 1_000_000}).`,
    );
  return micros;
}
