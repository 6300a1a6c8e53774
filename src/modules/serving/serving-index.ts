import type { Db } from '../../db/database.ts';
import { dayOf } from '../statistics/record-events.ts';
import { type Candidate, runAuction, smoothedCtr, type Winner } from './auction.ts';
import { adExclusion, campaignExclusion, type FilterReason, type ImpressionFilters } from './eligibility.ts';
import { type WeekSchedule, weekSchedule } from './schedule.ts';
import {
  loadAdvertiserBalances,
  loadAudiences,
  loadCampaignSpend,
  loadDeviceCoefficients,
  loadOfferTraffic,
  loadServableBlocks,
  loadServableOffers,
  loadSiteCoefficients,
} from './serving-repository.ts';

/**
 * The in-memory snapshot of what can serve. It is rebuilt from the database every few seconds
 * (so changes made through the API, on any instance, take effect within seconds) and adjusted
 * in place after each local billing event (so an exhausted budget stops serving at once here).
 * Selecting teasers never touches the database.
 */

export interface AdvertiserState {
  id: number;
  balanceMicros: number;
  dailyBudgetMicros: number;
  spentTodayMicros: number;
}

export interface CampaignState {
  id: number;
  advertiser: AdvertiserState;
  geo: Set<string> | undefined;
  isRetarget: boolean;
  dailyBudgetMicros: number;
  dailyClickLimit: number;
  spentTodayMicros: number;
  clicksToday: number;
  /** Coefficients keyed by site id (whole site) and by `site:block`. */
  siteCoefficients: Map<number, number>;
  blockCoefficients: Map<string, number>;
  /** Index = device id (1 desktop, 2 mobile, 3 tablet). */
  deviceCoefficients: [number, number, number, number];
  /** Viewable impressions per visitor per day; absent or 0: no cap. */
  frequencyCap?: number;
  /** Hours of the week when it serves; absent: always. */
  schedule?: WeekSchedule;
}

export interface AdEntry {
  offerId: number;
  campaign: CampaignState;
  bidMicros: number;
  title: string;
  description: string;
  priceText: string;
  image: string | null;
  url: string;
  urlMobile: string;
  /** The advertiser's domain, shown on the teaser (from the ad's URL, without `www.`). */
  domain: string;
  ctr: number;
}

export interface BlockEntry {
  id: number;
  siteId: number;
  publisherId: number;
  title: string;
  teaserCount: number;
  /** The publisher's "no campaign repeats on a page": at most one ad per campaign per page view. */
  campaignsUnique?: boolean;
}

export interface Snapshot {
  day: string;
  /** Ads by bid × CTR, best first (ties by id): selection stops once no later ad can win. */
  ads: AdEntry[];
  /** The same ads in buckets by what an impression needs for them to serve (indexAds). */
  selection: SelectionIndex;
  /** The largest placement × device coefficient of any campaign: bounds what a later ad can score. */
  maxFactor: number;
  adsById: Map<number, AdEntry>;
  campaigns: Map<number, CampaignState>;
  advertisers: Map<number, AdvertiserState>;
  blocks: Map<number, BlockEntry>;
  /** visitor id → advertisers whose audience it is in. */
  audiences: Map<string, Set<number>>;
  /** Whether any campaign has a frequency cap: without one, no visitor's views are read or counted. */
  frequencyCapped?: boolean;
}

export interface Impression {
  block: BlockEntry;
  device: 1 | 2 | 3;
  country: string;
  visitorId: string | undefined;
  /** Page, frequency and schedule filters (eligibility.ts); absent: the auction alone. */
  filters?: ImpressionFilters;
}

const AUDIENCE_DAYS = 30;
/** Ads handled between two yields to the event loop while a snapshot is built (a few ms of work). */
const YIELD_EVERY = 4096;

const yieldToRequests = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const CTR_DAYS = 30;

export function emptySnapshot(day: string): Snapshot {
  return {
    day,
    ads: [],
    selection: indexAds([]),
    maxFactor: 1,
    adsById: new Map(),
    campaigns: new Map(),
    advertisers: new Map(),
    blocks: new Map(),
    audiences: new Map(),
  };
}

/** Reads everything the engine serves from; a handful of queries, none per ad. */
export async function buildSnapshot(db: Db, nowMs: number, timeZone: string): Promise<Snapshot> {
  const day = dayOf(nowMs, timeZone);
  const ctrFrom = dayOf(nowMs - CTR_DAYS * 86_400_000, timeZone);
  const [offers, blocks, siteCoefficients, deviceCoefficients, traffic, spend, audiences] = await Promise.all([
    loadServableOffers(db),
    loadServableBlocks(db),
    loadSiteCoefficients(db),
    loadDeviceCoefficients(db),
    loadOfferTraffic(db, ctrFrom),
    loadCampaignSpend(db, day),
    loadAudiences(db, new Date(nowMs - AUDIENCE_DAYS * 86_400_000)),
  ]);
  const snapshot = emptySnapshot(day);
  const spendByCampaign = new Map(spend.map((row) => [row.campaign_id, row]));
  const trafficByOffer = new Map(traffic.map((row) => [row.offer_id, row]));
  let sinceYield = 0;
  for (const offer of offers) {
    // A rebuild of 100,000 ads must not hold up the teasers served meanwhile: let them in.
    sinceYield += 1;
    if (sinceYield === YIELD_EVERY) {
      sinceYield = 0;
      await yieldToRequests();
    }
    let advertiser = snapshot.advertisers.get(offer.advertiser_id);
    if (advertiser === undefined) {
      advertiser = {
        id: offer.advertiser_id,
        balanceMicros: offer.balance_micros,
        dailyBudgetMicros: offer.advertiser_daily_budget_micros,
        spentTodayMicros: 0,
      };
      snapshot.advertisers.set(advertiser.id, advertiser);
    }
    let campaign = snapshot.campaigns.get(offer.campaign_id);
    if (campaign === undefined) {
      const today = spendByCampaign.get(offer.campaign_id);
      campaign = {
        id: offer.campaign_id,
        advertiser,
        geo: offer.geo.length > 0 ? new Set(offer.geo.map((code) => code.toUpperCase())) : undefined,
        isRetarget: offer.is_retarget,
        dailyBudgetMicros: offer.campaign_daily_budget_micros,
        dailyClickLimit: offer.daily_click_limit,
        spentTodayMicros: Number(today?.spend ?? 0),
        clicksToday: Number(today?.clicks ?? 0),
        siteCoefficients: new Map(),
        blockCoefficients: new Map(),
        deviceCoefficients: [1, 1, 1, 1],
        frequencyCap: offer.frequency_cap,
        schedule: offer.schedule_hours === null ? undefined : weekSchedule(offer.schedule_hours, offer.time_zone ?? timeZone),
      };
      advertiser.spentTodayMicros += campaign.spentTodayMicros;
      if (offer.frequency_cap > 0) snapshot.frequencyCapped = true;
      snapshot.campaigns.set(campaign.id, campaign);
    }
    const seen = trafficByOffer.get(offer.id);
    const ad: AdEntry = {
      offerId: offer.id,
      campaign,
      bidMicros: offer.bid_micros,
      title: offer.title,
      description: offer.description,
      priceText: offer.price_text,
      image: offer.image_square ?? offer.image_wide,
      url: offer.url,
      urlMobile: offer.url_mobile,
      domain: domainOf(offer.url),
      ctr: smoothedCtr(Number(seen?.views ?? 0), Number(seen?.clicks ?? 0)),
    };
    snapshot.ads.push(ad);
    snapshot.adsById.set(ad.offerId, ad);
  }
  for (const row of siteCoefficients) {
    const campaign = snapshot.campaigns.get(row.campaign_id);
    if (campaign === undefined) continue;
    if (row.block_id === 0) campaign.siteCoefficients.set(row.site_id, row.coef);
    else campaign.blockCoefficients.set(`${row.site_id}:${row.block_id}`, row.coef);
  }
  for (const row of deviceCoefficients) {
    const campaign = snapshot.campaigns.get(row.campaign_id);
    if (campaign !== undefined && row.device >= 1 && row.device <= 3) campaign.deviceCoefficients[row.device] = row.coef;
  }
  let maxPlacement = 1;
  let maxDevice = 1;
  for (const row of siteCoefficients) maxPlacement = Math.max(maxPlacement, row.coef);
  for (const row of deviceCoefficients) maxDevice = Math.max(maxDevice, row.coef);
  snapshot.maxFactor = maxPlacement * maxDevice;
  await sortAds(snapshot.ads, yieldToRequests);
  snapshot.selection = indexSortedAds(snapshot.ads);
  for (const block of blocks) {
    snapshot.blocks.set(block.id, {
      id: block.id,
      siteId: block.site_id,
      publisherId: block.publisher_id,
      title: block.title,
      teaserCount: block.teaser_count,
      campaignsUnique: block.no_campaign_repeats,
    });
  }
  for (const member of audiences) {
    let set = snapshot.audiences.get(member.visitor_id);
    if (set === undefined) {
      set = new Set();
      snapshot.audiences.set(member.visitor_id, set);
    }
    set.add(member.advertiser_id);
  }
  return snapshot;
}

/**
 * Brings balances and today's spend up to date in place (what other instances' clicks moved),
 * without rebuilding: two small queries.
 */
export async function refreshSpend(db: Db, snapshot: Snapshot): Promise<void> {
  const [balances, spend] = await Promise.all([loadAdvertiserBalances(db), loadCampaignSpend(db, snapshot.day)]);
  for (const row of balances) {
    const advertiser = snapshot.advertisers.get(row.id);
    if (advertiser === undefined) continue;
    advertiser.balanceMicros = row.balance_micros;
    advertiser.dailyBudgetMicros = row.daily_budget_micros;
    advertiser.spentTodayMicros = 0;
  }
  const spendByCampaign = new Map(spend.map((row) => [row.campaign_id, row]));
  for (const campaign of snapshot.campaigns.values()) {
    const today = spendByCampaign.get(campaign.id);
    campaign.spentTodayMicros = Number(today?.spend ?? 0);
    campaign.clicksToday = Number(today?.clicks ?? 0);
    campaign.advertiser.spentTodayMicros += campaign.spentTodayMicros;
  }
}

/** Whether a campaign may still buy clicks today: money, daily budgets, daily click limit. */
export function campaignCanServe(campaign: CampaignState): boolean {
  return campaignLimit(campaign) === undefined;
}

/**
 * Which limit stops a campaign buying clicks today, if any: the advertiser's balance, a daily
 * budget (the campaign's or the advertiser's), or the campaign's daily click limit.
 */
export function campaignLimit(campaign: CampaignState): LimitReason | undefined {
  const advertiser = campaign.advertiser;
  if (advertiser.balanceMicros <= 0) return 'balance';
  if (advertiser.dailyBudgetMicros > 0 && advertiser.spentTodayMicros >= advertiser.dailyBudgetMicros) return 'budget';
  if (campaign.dailyBudgetMicros > 0 && campaign.spentTodayMicros >= campaign.dailyBudgetMicros) return 'budget';
  if (campaign.dailyClickLimit > 0 && campaign.clicksToday >= campaign.dailyClickLimit) return 'daily_limit';
  return undefined;
}

/** The site or block coefficient of a campaign for a block (the block's own wins; 1 when none is set). */
export function placementCoefficient(campaign: CampaignState, block: BlockEntry): number {
  return campaign.blockCoefficients.get(`${block.siteId}:${block.id}`) ?? campaign.siteCoefficients.get(block.siteId) ?? 1;
}

/**
 * The site/block coefficient times the device coefficient for one campaign and impression, or why
 * the campaign may not show here (limits reached, another country, not in the audience).
 */
export function campaignFactor(
  campaign: CampaignState,
  impression: Impression,
  audience: Set<number> | undefined,
): number | SkipReason {
  const limit = campaignLimit(campaign);
  if (limit !== undefined) return limit;
  if (impression.filters !== undefined) {
    const excluded = campaignExclusion(campaign, impression.filters);
    if (excluded !== undefined) return excluded;
  }
  if (campaign.geo !== undefined && !campaign.geo.has(impression.country)) return 'geo';
  if (campaign.isRetarget && !audience?.has(campaign.advertiser.id)) return 'audience';
  return placementCoefficient(campaign, impression.block) * (campaign.deviceCoefficients[impression.device] ?? 1);
}

/** A spent limit: the balance, a daily budget (campaign or advertiser), the daily click limit. */
export type LimitReason = 'balance' | 'budget' | 'daily_limit';

/**
 * Why a per-request filter refused an ad (one ad per page view, frequency caps, schedules); a
 * filter that answers only `false` gives `filtered`.
 */
export type RequestFilterReason = FilterReason | 'filtered';

/** Why an ad visited by the selection did not become a candidate (for an explanation of a choice). */
export type SkipReason =
  | LimitReason
  /** The campaign targets other countries. */
  | 'geo'
  /** A retargeting campaign and the visitor is not in its advertiser's audience. */
  | 'audience'
  /** A per-request filter of the caller refused it. */
  | RequestFilterReason;

export interface SelectionOptions {
  /** Refuses single ads for this request: `true` lets the ad compete, anything else says why not. */
  filter?: (ad: AdEntry) => boolean | RequestFilterReason;
  /** Told of every ad the selection looked at and skipped, and why. */
  onSkip?: (ad: AdEntry, reason: SkipReason) => void;
  /** Told of every ad that became a candidate, in walk order (snapshot order), with its coefficients. */
  onCandidate?: (candidate: Candidate<AdEntry>) => void;
  /**
   * Walk every ad of the snapshot instead of the buckets that can serve this impression, and score
   * every ad instead of stopping where no later ad can win (an explanation ranks them all). The
   * winners and prices are those of the bucketed walk: the ads it leaves out cannot take a place.
   */
  exhaustive?: boolean;
}

/**
 * Runs the auction for one impression of a block over the snapshot. Only the buckets that can
 * serve the impression are walked (ads open to every country, ads targeting the visitor's country,
 * retargeting ads of advertisers whose audience holds the visitor), merged best base score first,
 * which is the order of `snapshot.ads`: the candidates, and so the winners and prices, are those
 * an exhaustive walk finds. Once even the largest coefficient could not lift the next ad above the
 * last place that matters (the slots plus the one that sets the price), the rest cannot change the
 * result. Skipped ads do not take a place, so early stopping holds when top ads are filtered out.
 */
export function selectTeasers(snapshot: Snapshot, impression: Impression, options: SelectionOptions = {}): Winner<AdEntry>[] {
  const audience = impression.visitorId === undefined ? undefined : snapshot.audiences.get(impression.visitorId);
  const exhaustive = options.exhaustive === true;
  const sources = exhaustive ? [snapshot.selection.all] : bucketsFor(snapshot.selection, impression, audience);
  const { filter, onSkip, onCandidate } = options;
  const factors = new Map<CampaignState, number | SkipReason>();
  const candidates: Candidate<AdEntry>[] = [];
  const places = impression.block.teaserCount + 1;
  const best: number[] = [];
  const heads = sources.map(() => 0);
  const { filters } = impression;
  // A block with unique campaigns takes each campaign's first ad: the best, as ads come best first.
  const campaignsTaken = impression.block.campaignsUnique ? new Set<CampaignState>() : undefined;
  for (;;) {
    const source = nextSource(sources, heads);
    if (source < 0) break;
    const bucket = sources[source] as AdBucket;
    const position = heads[source] as number;
    heads[source] = position + 1;
    const ad = bucket.ads[position] as AdEntry;
    const base = bucket.bases[position] as number;
    if (!exhaustive && best.length === places && base * snapshot.maxFactor < (best[places - 1] ?? 0)) break;
    const adExcluded = filters === undefined ? undefined : adExclusion(ad.offerId, filters);
    if (adExcluded !== undefined) {
      onSkip?.(ad, adExcluded);
      continue;
    }
    let factor = factors.get(ad.campaign);
    if (factor === undefined) {
      factor = campaignFactor(ad.campaign, impression, audience);
      factors.set(ad.campaign, factor);
    }
    if (typeof factor !== 'number') {
      onSkip?.(ad, factor);
      continue;
    }
    if (filter !== undefined) {
      const verdict = filter(ad);
      if (verdict !== true) {
        onSkip?.(ad, verdict === false ? 'filtered' : verdict);
        continue;
      }
    }
    if (campaignsTaken !== undefined) {
      if (campaignsTaken.has(ad.campaign)) {
        onSkip?.(ad, 'page_repeat');
        continue;
      }
      campaignsTaken.add(ad.campaign);
    }
    const candidate = { ad, bidMicros: ad.bidMicros, coefficient: factor, ctr: ad.ctr };
    candidates.push(candidate);
    onCandidate?.(candidate);
    const value = base * factor;
    if (best.length < places || value > (best[places - 1] ?? 0)) {
      let index = best.length;
      while (index > 0 && (best[index - 1] ?? 0) < value) index -= 1;
      best.splice(index, 0, value);
      if (best.length > places) best.pop();
    }
  }
  return runAuction(candidates, impression.block.teaserCount);
}

/** The buckets whose ads may serve this impression (the others would all be skipped). */
function bucketsFor(index: SelectionIndex, impression: Impression, audience: Set<number> | undefined): AdBucket[] {
  const buckets = [index.open];
  const local = index.byCountry.get(impression.country);
  if (local !== undefined) buckets.push(local);
  if (audience !== undefined) {
    for (const advertiserId of audience) {
      const retargeting = index.retargetingByAdvertiser.get(advertiserId);
      if (retargeting !== undefined) buckets.push(retargeting);
    }
  }
  return buckets;
}

/** The bucket whose next ad comes first in `snapshot.ads` order (base score, then id), or -1. */
function nextSource(sources: readonly AdBucket[], heads: readonly number[]): number {
  let chosen = -1;
  let chosenBase = 0;
  let chosenId = 0;
  for (let source = 0; source < sources.length; source += 1) {
    const bucket = sources[source] as AdBucket;
    const position = heads[source] as number;
    if (position >= bucket.ads.length) continue;
    const base = bucket.bases[position] as number;
    const id = (bucket.ads[position] as AdEntry).offerId;
    if (chosen < 0 || base > chosenBase || (base === chosenBase && id < chosenId)) {
      chosen = source;
      chosenBase = base;
      chosenId = id;
    }
  }
  return chosen;
}

/** Ads in `snapshot.ads` order with their base scores (bid × CTR) side by side. */
export interface AdBucket {
  ads: AdEntry[];
  bases: Float64Array;
}

/**
 * The snapshot's ads split by what an impression must have for them to serve, so that a request
 * walks only ads that can serve it: with ads geo-targeted to many countries, or many retargeting
 * campaigns, the walk no longer passes over thousands that cannot.
 */
export interface SelectionIndex {
  /** Every ad (the exhaustive walk of an explanation). */
  all: AdBucket;
  /** Ads of campaigns without geo targeting and without retargeting. */
  open: AdBucket;
  /** Ads of geo-targeted (not retargeting) campaigns, under each country they target. */
  byCountry: Map<string, AdBucket>;
  /** Ads of retargeting campaigns (any geo), under their advertiser. */
  retargetingByAdvertiser: Map<number, AdBucket>;
}

/** Sorts the ads best base score first (ties by id) and files them into the selection buckets. */
export function indexAds(ads: AdEntry[]): SelectionIndex {
  ads.sort(compareAds);
  return indexSortedAds(ads);
}

/** The order of `snapshot.ads`: best base score (bid × CTR) first, ties by id. */
function compareAds(a: AdEntry, b: AdEntry): number {
  return b.bidMicros * b.ctr - a.bidMicros * a.ctr || a.offerId - b.offerId;
}

/**
 * Sorts the ads in place in `compareAds` order, as a bottom-up merge sort that awaits `pause`
 * every few thousand moves, so that sorting 100,000 ads never blocks the event loop for long.
 */
export async function sortAds(ads: AdEntry[], pause: () => Promise<void>): Promise<void> {
  const run = YIELD_EVERY;
  for (let start = 0; start < ads.length; start += run) {
    const part = ads.slice(start, start + run).sort(compareAds);
    for (let offset = 0; offset < part.length; offset += 1) ads[start + offset] = part[offset] as AdEntry;
    await pause();
  }
  let from = ads;
  let to = new Array<AdEntry>(ads.length);
  let moved = 0;
  for (let width = run; width < ads.length; width *= 2) {
    for (let start = 0; start < ads.length; start += 2 * width) {
      const middle = Math.min(start + width, ads.length);
      const end = Math.min(start + 2 * width, ads.length);
      let left = start;
      let right = middle;
      for (let out = start; out < end; out += 1) {
        const a = from[left];
        const b = from[right];
        if (right >= end || (left < middle && compareAds(a as AdEntry, b as AdEntry) <= 0)) {
          to[out] = a as AdEntry;
          left += 1;
        } else {
          to[out] = b as AdEntry;
          right += 1;
        }
      }
      moved += end - start;
      if (moved >= run) {
        moved = 0;
        await pause();
      }
    }
    [from, to] = [to, from];
  }
  if (from !== ads) for (let index = 0; index < ads.length; index += 1) ads[index] = from[index] as AdEntry;
}

/** Files ads already in `snapshot.ads` order into the selection buckets (each bucket keeps that order). */
export function indexSortedAds(ads: AdEntry[]): SelectionIndex {
  const open: AdEntry[] = [];
  const byCountry = new Map<string, AdEntry[]>();
  const retargeting = new Map<number, AdEntry[]>();
  for (const ad of ads) {
    const { campaign } = ad;
    if (campaign.isRetarget) fileAd(retargeting, campaign.advertiser.id, ad);
    else if (campaign.geo === undefined) open.push(ad);
    else for (const country of campaign.geo) fileAd(byCountry, country, ad);
  }
  const index: SelectionIndex = {
    all: bucketOf(ads),
    open: bucketOf(open),
    byCountry: new Map(),
    retargetingByAdvertiser: new Map(),
  };
  for (const [country, list] of byCountry) index.byCountry.set(country, bucketOf(list));
  for (const [advertiserId, list] of retargeting) index.retargetingByAdvertiser.set(advertiserId, bucketOf(list));
  return index;
}

function fileAd<K>(map: Map<K, AdEntry[]>, key: K, ad: AdEntry): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [ad]);
  else list.push(ad);
}

function bucketOf(ads: AdEntry[]): AdBucket {
  const bases = new Float64Array(ads.length);
  for (let index = 0; index < ads.length; index += 1) {
    const ad = ads[index] as AdEntry;
    bases[index] = ad.bidMicros * ad.ctr;
  }
  return { ads, bases };
}

/** The host of an ad's URL as a person reads it: `shop.example.com` for `https://www.shop.example.com/x`. */
export function domainOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
}
