import type { Static } from '@sinclair/typebox';
import type { ServingEngine } from '../serving-engine.ts';
import { countryOf, visitorTraits } from '../tracking/visitor.ts';
import type { OpenRtbBids } from './bid-notices.ts';
import { CATTAX_IAB_CT1, type CategoryRules, categoriesAllowed, categoryRulesOf, iabCategoriesOf } from './iab-categories.ts';
import { type NativeAssetRequest, nativeResponse, readNativeRequest } from './native-markup.ts';
import type { BidRequestSchema, BidResponseSchema } from './openrtb-schema.ts';
import { type PrivacySignals, privacySignalsOf } from './privacy.ts';

export type BidRequest = Static<typeof BidRequestSchema>;
export type BidResponse = Static<typeof BidResponseSchema>;
type Bid = NonNullable<BidResponse['seatbid']>[number]['bid'][number];

/**
 * No-bid reasons Nativa answers in `nbr` (OpenRTB 3.0's list, which 2.6 refers to); every other
 * no-bid is a bare 204. 501 is Nativa's own (the list leaves 500+ to each party): the request
 * has no native impression, and Nativa bids on native impressions only (no banner, video or audio).
 */
export const NO_BID_REASONS = { knownWebCrawler: 3, noNativeImpression: 501 } as const;

export interface AuctionContext {
  /** Signs the bids' tokens and notices (bid-notices.ts). */
  bids: OpenRtbBids;
  /** Absolute URL of the API (`…/api`), for click links, images and the view pixel. */
  base: string;
  currency: string;
  /** The caller's address, when the request names no device address (a browser calling directly). */
  callerAddress: string;
  callerUserAgent: string | undefined;
  /**
   * What the privacy signals allow (see privacy.ts): whether the device's address and User-Agent
   * may key frequency caps. Given by the caller so that consent handling lives in one place.
   */
  mayUseDevice?: (signals: PrivacySignals) => boolean;
}

/**
 * Nativa's answer to an OpenRTB 2.6 bid request: for each native impression of a block of the
 * request's publisher, the best teaser the serving auction picks for that block, device and
 * country, as a bid whose CPM is its expected revenue per thousand impressions; nothing is
 * counted until a notice says the bid won (bid-notices.ts). Undefined: no bid (the route answers
 * 204); `nbr`: no bid for a reason worth telling. Throws a 400 for a native request it cannot read.
 */
export async function bidFor(
  serving: ServingEngine,
  request: BidRequest,
  context: AuctionContext,
): Promise<BidResponse | undefined> {
  // Every impression's markup is read first: a malformed one is a 400 before anything is selected.
  const natives = request.imp.map((imp) =>
    imp.native === undefined ? undefined : readNativeRequest(imp.native.request, imp.id),
  );
  if (natives.every((assets) => assets === undefined)) return { id: request.id, nbr: NO_BID_REASONS.noNativeImpression };
  if (!biddable(request, context.currency)) return undefined;
  const publisherId = request.site?.publisher?.id === undefined ? undefined : Number(request.site.publisher.id);
  const device = request.device ?? {};
  const userAgent = device.ua ?? context.callerUserAgent;
  const traits = visitorTraits(userAgent);
  if (traits.bot) return { id: request.id, nbr: NO_BID_REASONS.knownWebCrawler };
  const address = device.ip ?? device.ipv6 ?? context.callerAddress;
  const country = countryOf(address);
  const signals = privacySignalsOf(request);
  const mayUseDevice = context.mayUseDevice?.(signals) ?? defaultMayUseDevice(signals);
  const blocked = (request.badv ?? []).map(domainOf).filter((domain) => domain !== '');
  const categories = categoryRulesOf(request);
  const seats = new Map<number, Bid[]>();
  for (const [index, imp] of request.imp.entries()) {
    const assets = natives[index];
    if (assets === undefined) continue;
    const bid = await bidForImpression(serving, imp, assets, {
      publisherId,
      device: traits.device,
      country,
      viewer: mayUseDevice ? { pageId: undefined, cookieId: undefined, loaderId: undefined, address, userAgent } : undefined,
      blocked,
      categories,
      bids: context.bids,
      base: context.base,
      currency: context.currency,
      requestId: request.id,
    });
    if (bid === undefined) continue;
    const seat = seats.get(bid.advertiserId) ?? [];
    seat.push(bid.bid);
    seats.set(bid.advertiserId, seat);
  }
  if (seats.size === 0) return undefined;
  return {
    id: request.id,
    cur: context.currency,
    seatbid: [...seats].map(([advertiserId, bid]) => ({ seat: String(advertiserId), bid })),
  };
}

/**
 * Whether the request may get a bid at all. Nativa prices only in its own currency; it serves
 * sites (a request without `site`, an app's, gets none); it does not serve audiences of children
 * (COPPA). Blocked categories and domains are judged per ad (ADR 0044).
 */
function biddable(request: BidRequest, currency: string): boolean {
  if (request.cur !== undefined && request.cur.length > 0 && !request.cur.includes(currency)) return false;
  if (request.regs?.coppa === 1) return false;
  return request.site !== undefined;
}

/**
 * Without the consent handling of the teasers route wired in (AuctionContext.mayUseDevice), the
 * safe reading: where GDPR applies or the user opted out of sale (CCPA `1-Y-`), the device's
 * address and User-Agent key no frequency cap; the country and the device type still serve.
 */
function defaultMayUseDevice(signals: PrivacySignals): boolean {
  return !signals.gdprApplies && !signals.usPrivacyOptOut;
}

interface ImpressionContext {
  /** `site.publisher.id`, when the request names it: the block must be that publisher's. */
  publisherId: number | undefined;
  device: 1 | 2 | 3;
  country: string;
  viewer: Parameters<ServingEngine['serve']>[1];
  /** `badv`: blocked advertiser domains. */
  blocked: string[];
  /** `bcat`, `acat` and `cattax`. */
  categories: CategoryRules;
  bids: OpenRtbBids;
  base: string;
  currency: string;
  requestId: string;
}

async function bidForImpression(
  serving: ServingEngine,
  imp: BidRequest['imp'][number],
  assets: NativeAssetRequest[],
  context: ImpressionContext,
): Promise<{ advertiserId: number; bid: Bid } | undefined> {
  const blockId = Number(imp.tagid);
  const block = Number.isSafeInteger(blockId) ? serving.block(blockId) : undefined;
  // A block of another publisher, or of another site than the impression names, is as unknown
  // as a missing one (a block id alone is public: any page may embed it).
  if (block === undefined) return undefined;
  if (context.publisherId !== undefined && block.publisherId !== context.publisherId) return undefined;
  if (imp.ext?.siteId !== undefined && block.siteId !== imp.ext.siteId) return undefined;
  // One ad fills a native impression; when the request may refuse ads (blocked domains or
  // categories), the block's other places are the fallbacks. Nothing is counted until a notice
  // tells the bid won, so the ads passed over count nothing.
  const restricted =
    context.blocked.length > 0 || context.categories.blocked.length > 0 || context.categories.allowed !== undefined;
  const places = restricted ? block.teaserCount : 1;
  const offered = await serving.offer(
    { block: { ...block, teaserCount: places }, device: context.device, country: context.country, visitorId: undefined },
    context.viewer,
    context.bids.signer,
  );
  for (const teaser of offered) {
    const { ad } = teaser;
    if (isBlocked(ad.domain, context.blocked)) continue;
    const cat = iabCategoriesOf(ad);
    if (!categoriesAllowed(cat, context.categories)) continue;
    const priceMicros = cpmMicrosOf(ad.bidMicros, ad.ctr);
    const price = priceMicros / 1_000_000;
    // A floor in another currency is not converted (Nativa keeps no exchange rates): the wrapper's
    // own floor enforcement applies it.
    if (imp.bidfloor !== undefined && (imp.bidfloorcur ?? context.currency) === context.currency && price < imp.bidfloor)
      continue;
    const markup = nativeResponse(assets, {
      ad,
      imageUrl: ad.image === null ? null : `${context.base}/img/${ad.image}/328x328.jpg`,
      clickUrl: `${context.base}/openrtb2/click/${teaser.clickToken}`,
      viewPixelUrl: `${context.base}/serve/view.gif?token=${teaser.viewToken}`,
    });
    if (markup === undefined) continue;
    const notice = `${context.base}/openrtb2/notice?token=${context.bids.noticeToken(teaser.clickToken, priceMicros)}`;
    return {
      advertiserId: ad.campaign.advertiser.id,
      bid: {
        id: `${context.requestId}-${imp.id}`,
        impid: imp.id,
        price,
        adm: JSON.stringify(markup),
        nurl: `${notice}&event=win&price=\${AUCTION_PRICE}`,
        burl: `${notice}&event=billing&price=\${AUCTION_PRICE}`,
        adomain: [ad.domain],
        ...(cat.length > 0 ? { cat: [...cat], cattax: CATTAX_IAB_CT1 } : {}),
        crid: String(ad.offerId),
        cid: String(ad.campaign.id),
        mtype: MTYPE_NATIVE,
        exp: BID_EXPIRY_SECONDS,
      },
    };
  }
  return undefined;
}

/** The bid's markup type (OpenRTB 2.6 `mtype`): native. */
const MTYPE_NATIVE = 4;
/** How long a bid may wait for its win (`exp`): its tokens' lifetime, an hour. */
const BID_EXPIRY_SECONDS = 3600;

/**
 * The CPM of a cost-per-click ad in micros: what a thousand impressions are expected to earn,
 * the bid per click (micros) × the smoothed CTR × 1000, rounded to 100 micros (4 decimals, the
 * platform's precision). A win is not a charge: money moves only when a click is billed.
 */
export function cpmMicrosOf(bidMicros: number, ctr: number): number {
  return Math.round((bidMicros * ctr * 1000) / 100) * 100;
}

/** The CPM of a cost-per-click ad in currency units, as a bid's `price` (cpmMicrosOf). */
export function cpmOf(bidMicros: number, ctr: number): number {
  return cpmMicrosOf(bidMicros, ctr) / 1_000_000;
}

function domainOf(text: string): string {
  let domain = text.trim().toLowerCase();
  try {
    if (domain.includes('/')) domain = new URL(domain.includes('://') ? domain : `https://${domain}`).hostname;
  } catch {
    return '';
  }
  return domain.replace(/^www\./, '');
}

/** An ad's domain is blocked by `badv` when it is a blocked domain or one of its subdomains. */
function isBlocked(domain: string, blocked: readonly string[]): boolean {
  const own = domain.toLowerCase();
  return blocked.some((entry) => own === entry || own.endsWith(`.${entry}`));
}
