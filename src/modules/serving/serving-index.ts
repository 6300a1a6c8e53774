import type { Db } from '../../db/database.ts';
import { dayOf } from '../statistics/record-events.ts';
import { type Candidate, runAuction, smoothedCtr, type Winner } from './auction.ts';
import { adExclusion, campaignExclusion, type ImpressionFilters } from './eligibility.ts';
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
const CTR_DAYS = 30;

export function emptySnapshot(day: string): Snapshot {
  return {
    day,
    ads: [],
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
  for (const offer of offers) {
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
  snapshot.ads.sort((a, b) => b.bidMicros * b.ctr - a.bidMicros * a.ctr || a.offerId - b.offerId);
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
  const advertiser = campaign.advertiser;
  if (advertiser.balanceMicros <= 0) return false;
  if (advertiser.dailyBudgetMicros > 0 && advertiser.spentTodayMicros >= advertiser.dailyBudgetMicros) return false;
  if (campaign.dailyBudgetMicros > 0 && campaign.spentTodayMicros >= campaign.dailyBudgetMicros) return false;
  if (campaign.dailyClickLimit > 0 && campaign.clicksToday >= campaign.dailyClickLimit) return false;
  return true;
}

/**
 * The site/block coefficient times the device coefficient for one campaign and impression, or 0
 * when the campaign may not show here (limits reached, another country, not in the audience).
 */
function campaignFactor(campaign: CampaignState, impression: Impression, audience: Set<number> | undefined): number {
  if (!campaignCanServe(campaign)) return 0;
  if (impression.filters !== undefined && campaignExclusion(campaign, impression.filters) !== undefined) return 0;
  if (campaign.geo !== undefined && !campaign.geo.has(impression.country)) return 0;
  if (campaign.isRetarget && !audience?.has(campaign.advertiser.id)) return 0;
  const { block } = impression;
  const placement =
    campaign.blockCoefficients.get(`${block.siteId}:${block.id}`) ?? campaign.siteCoefficients.get(block.siteId) ?? 1;
  return placement * (campaign.deviceCoefficients[impression.device] ?? 1);
}

/**
 * Runs the auction for one impression of a block over the snapshot. Ads are visited best base
 * score first; once even the largest coefficient could not lift the next ad above the last place
 * that matters (the slots plus the one that sets the price), the rest cannot change the result.
 */
export function selectTeasers(snapshot: Snapshot, impression: Impression): Winner<AdEntry>[] {
  const audience = impression.visitorId === undefined ? undefined : snapshot.audiences.get(impression.visitorId);
  const factors = new Map<CampaignState, number>();
  const candidates: Candidate<AdEntry>[] = [];
  const places = impression.block.teaserCount + 1;
  const best: number[] = [];
  const { filters } = impression;
  // A block with unique campaigns takes each campaign's first ad: the best, as ads come best first.
  const campaignsTaken = impression.block.campaignsUnique ? new Set<CampaignState>() : undefined;
  for (const ad of snapshot.ads) {
    const base = ad.bidMicros * ad.ctr;
    if (best.length === places && base * snapshot.maxFactor < (best[places - 1] ?? 0)) break;
    if (filters !== undefined && adExclusion(ad.offerId, filters) !== undefined) continue;
    let factor = factors.get(ad.campaign);
    if (factor === undefined) {
      factor = campaignFactor(ad.campaign, impression, audience);
      factors.set(ad.campaign, factor);
    }
    if (factor <= 0) continue;
    if (campaignsTaken !== undefined) {
      if (campaignsTaken.has(ad.campaign)) continue;
      campaignsTaken.add(ad.campaign);
    }
    candidates.push({ ad, bidMicros: ad.bidMicros, coefficient: factor, ctr: ad.ctr });
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

/** The host of an ad's URL as a person reads it: `shop.example.com` for `https://www.shop.example.com/x`. */
export function domainOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
}
