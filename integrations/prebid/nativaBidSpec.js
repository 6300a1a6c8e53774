/**
 * Nativa's bidder for Prebid.js: what the adapter does, as Prebid's `spec` object. It has no import
 * of Prebid's internals so that it can be tested on its own (nativaBidAdapter_spec.js);
 * nativaBidAdapter.js registers it with Prebid.
 *
 * Nativa is a self-hosted, cost-per-click native network: the adapter sends an OpenRTB 2.6 request
 * with the ad unit's native request (Native 1.2) to the publisher's Nativa server
 * (`POST /api/openrtb2/auction`) and answers Prebid the server's bid. Its CPM is the ad's expected
 * revenue per thousand impressions (bid per click × smoothed CTR × 1000) in the server's currency;
 * Nativa bills the click, never the win. A bid counts as served (and its click bills) only once
 * Nativa hears it won: the adapter fires the bid's win notice when Prebid says it won and its
 * billing notice when Prebid says it is billable (either is enough; both are counted once).
 */

export const BIDDER_CODE = 'nativa';
/** Prebid's name of the native media type (src/mediaTypes.js). */
export const NATIVE = 'native';
/** Seconds a bid may wait for the ad server: the click link and view token stay valid an hour. */
const TTL_SECONDS = 300;

const positiveInteger = (value) => {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return Number.isSafeInteger(number) && number > 0 ? number : undefined;
};

/** The Nativa server of the bid's params: its https origin, or undefined. */
function endpointOf(params) {
  try {
    const url = new URL(params?.endpoint);
    return url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The supply chain Prebid passes (ortb2.source.ext.schain since Prebid 9, or the bid's own). */
function schainOf(bid, bidderRequest) {
  return bid?.ortb2?.source?.ext?.schain ?? bidderRequest?.ortb2?.source?.ext?.schain ?? bid?.schain;
}

function regsOf(bidderRequest) {
  const regs = {};
  const user = {};
  const gdpr = bidderRequest?.gdprConsent;
  if (gdpr?.gdprApplies !== undefined) regs.gdpr = gdpr.gdprApplies ? 1 : 0;
  if (typeof gdpr?.consentString === 'string') user.consent = gdpr.consentString;
  const gpp = bidderRequest?.gppConsent;
  if (typeof gpp?.gppString === 'string') regs.gpp = gpp.gppString;
  if (Array.isArray(gpp?.applicableSections)) regs.gpp_sid = gpp.applicableSections;
  if (typeof bidderRequest?.uspConsent === 'string') regs.us_privacy = bidderRequest.uspConsent;
  const coppa = bidderRequest?.ortb2?.regs?.coppa;
  if (coppa === 1) regs.coppa = 1;
  return { regs, user };
}

export const spec = {
  code: BIDDER_CODE,
  supportedMediaTypes: [NATIVE],

  /** A bid needs a block id (a positive integer) and the https address of the Nativa server. */
  isBidRequestValid(bid) {
    const params = bid?.params ?? {};
    if (positiveInteger(params.blockId) === undefined) return false;
    if (params.siteId !== undefined && positiveInteger(params.siteId) === undefined) return false;
    if (params.publisherId !== undefined && positiveInteger(params.publisherId) === undefined) return false;
    return endpointOf(params) !== undefined && bid?.mediaTypes?.native !== undefined;
  },

  /** One OpenRTB request per Nativa server, an impression per ad unit. */
  buildRequests(validBidRequests, bidderRequest) {
    const byEndpoint = new Map();
    for (const bid of validBidRequests) {
      const endpoint = endpointOf(bid.params);
      const list = byEndpoint.get(endpoint) ?? [];
      list.push(bid);
      byEndpoint.set(endpoint, list);
    }
    const { regs, user } = regsOf(bidderRequest);
    const page = bidderRequest?.refererInfo?.page ?? undefined;
    const domain = bidderRequest?.refererInfo?.domain ?? undefined;
    return [...byEndpoint].map(([endpoint, bids]) => {
      const first = bids[0];
      const publisherId = positiveInteger(first.params.publisherId);
      const schain = schainOf(first, bidderRequest);
      const request = {
        id: bidderRequest?.bidderRequestId ?? first.bidId,
        imp: bids.map((bid) => {
          const siteId = positiveInteger(bid.params.siteId);
          const currency = typeof bid.params.currency === 'string' ? bid.params.currency : 'USD';
          const floor = typeof bid.getFloor === 'function' ? bid.getFloor({ currency, mediaType: NATIVE, size: '*' }) : undefined;
          return {
            id: bid.bidId,
            tagid: String(positiveInteger(bid.params.blockId)),
            native: { ver: '1.2', request: JSON.stringify(bid.nativeOrtbRequest ?? { ver: '1.2', assets: [] }) },
            ...(floor?.floor > 0 && floor?.currency ? { bidfloor: floor.floor, bidfloorcur: floor.currency } : {}),
            ...(siteId === undefined ? {} : { ext: { siteId } }),
          };
        }),
        site: {
          ...(domain ? { domain } : {}),
          ...(page ? { page } : {}),
          ...(publisherId === undefined ? {} : { publisher: { id: String(publisherId) } }),
        },
        device: { ua: typeof navigator === 'undefined' ? undefined : navigator.userAgent },
        ...(Object.keys(regs).length > 0 ? { regs } : {}),
        ...(Object.keys(user).length > 0 ? { user } : {}),
        ...(schain === undefined ? {} : { source: { schain, ext: { schain } } }),
        tmax: bidderRequest?.timeout,
      };
      return {
        method: 'POST',
        url: `${endpoint}/api/openrtb2/auction`,
        data: JSON.stringify(request),
        // text/plain: a simple request, no CORS preflight; Nativa reads it as JSON.
        options: { contentType: 'text/plain', withCredentials: false },
        bids,
      };
    });
  },

  /** The server's bids as Prebid's bid responses; 204 (no bid) or anything unreadable: none. */
  interpretResponse(serverResponse, request) {
    const body = serverResponse?.body;
    if (body === null || typeof body !== 'object' || !Array.isArray(body.seatbid)) return [];
    const requested = new Set((request?.bids ?? []).map((bid) => bid.bidId));
    const responses = [];
    for (const seat of body.seatbid) {
      for (const bid of seat.bid ?? []) {
        if (!requested.has(bid.impid) || typeof bid.price !== 'number' || bid.price <= 0) continue;
        let native;
        try {
          native = JSON.parse(bid.adm);
        } catch {
          continue;
        }
        responses.push({
          requestId: bid.impid,
          // Kept on Prebid's bid for onBidWon and onBidBillable; Prebid itself fires neither.
          ...(typeof bid.nurl === 'string' ? { nurl: bid.nurl } : {}),
          ...(typeof bid.burl === 'string' ? { burl: bid.burl } : {}),
          cpm: bid.price,
          currency: body.cur,
          ttl: TTL_SECONDS,
          creativeId: bid.crid,
          netRevenue: true,
          mediaType: NATIVE,
          native: { ortb: native },
          meta: { advertiserDomains: bid.adomain ?? [], networkName: 'Nativa', advertiserId: seat.seat },
        });
      }
    }
    return responses;
  },

  /** Prebid's BID_WON: the ad won the page's auction; Nativa's win notice counts it served. */
  onBidWon(bid) {
    fireNotice(bid?.nurl, bid);
  },

  /** Prebid's billing event (when the winning ad renders, unless billing is deferred). */
  onBidBillable(bid) {
    fireNotice(bid?.burl, bid);
  },

  /** Nativa sets no third-party cookies for syncing. */
  getUserSyncs() {
    return [];
  },
};

/**
 * Calls a notice URL of a bid as an image request: no CORS, no cookies, nothing to wait for.
 */
function fireNotice(url, bid) {
  if (typeof url !== 'string' || url === '' || typeof Image === 'undefined') return;
  new Image().src = noticeUrlOf(url, bid);
}

/**
 * A notice URL with its `${AUCTION_PRICE}` replaced by the price Prebid cleared: the bid's own CPM
 * before any adjustment (Prebid's auction is first-price), in the server's currency.
 */
export function noticeUrlOf(url, bid) {
  const price = Number(bid?.originalCpm ?? bid?.cpm);
  const cleared = Number.isFinite(price) && price >= 0 ? String(price) : '';
  return url.replaceAll('${AUCTION_PRICE}', encodeURIComponent(cleared));
}
