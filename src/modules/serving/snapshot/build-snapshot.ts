import type { Db } from '../../../db/database.ts';
import { dayOf } from '../../statistics/index.ts';
import { agentTargets, DEVICE_TYPES, type DeviceType } from '../selection/agent-targets.ts';
import { smoothedCtr } from '../selection/auction.ts';
import { lifetimeDailyTarget } from '../selection/pacing.ts';
import { weekSchedule } from '../selection/schedule.ts';
import { domainOf, teaserPicture, widePicture } from '../teaser-render.ts';
import { siteHostsOf } from '../tracking/invalid-traffic.ts';
import type { AdEntry, CampaignState, Snapshot } from './snapshot.ts';
import {
  loadAdvertiserBalances,
  loadAudiences,
  loadCampaignSpend,
  loadDeviceCoefficients,
  loadOfferTraffic,
  loadServableBlocks,
  loadServableOffers,
  loadSiteCoefficients,
  loadSpendBefore,
} from './snapshot-repository.ts';
import { indexAds, indexSortedAds, sortAds, YIELD_EVERY } from './sorted-index.ts';

const AUDIENCE_DAYS = 30;

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
  const [offers, blocks, siteCoefficients, deviceCoefficients, traffic, spend, audiences, spendBefore] = await Promise.all([
    loadServableOffers(db),
    loadServableBlocks(db),
    loadSiteCoefficients(db),
    loadDeviceCoefficients(db),
    loadOfferTraffic(db, ctrFrom),
    loadCampaignSpend(db, day),
    loadAudiences(db, new Date(nowMs - AUDIENCE_DAYS * 86_400_000)),
    loadSpendBefore(db, day),
  ]);
  const spentBefore = new Map(spendBefore.map((row) => [row.campaign_id, Number(row.spend ?? 0)]));
  const siteHosts = new Map(blocks.map((block) => [block.site_id, domainOf(block.url)]));
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
        ...campaignControl(offer, spentBefore.get(offer.campaign_id) ?? 0, siteHosts, nowMs, timeZone),
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
      image: teaserPicture(offer.image_square, offer.image_wide),
      wideImage: widePicture(offer.image_square, offer.image_wide),
      url: offer.url,
      urlMobile: offer.url_mobile,
      domain: domainOf(offer.url),
      ctr: smoothedCtr(Number(seen?.views ?? 0), Number(seen?.clicks ?? 0)),
      subCategoryId: offer.sub_category_id,
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
      neverPersonalise: block.never_personalise,
      siteHosts: siteHostsOf(block.url, block.domains),
      ...(block.min_cpc_micros > 0 ? { floorMicros: Number(block.min_cpc_micros) } : {}),
      ...(block.refused_categories.length > 0 ? { refusedCategories: new Set(block.refused_categories) } : {}),
      ...(block.design === null ? {} : { designJson: JSON.stringify(block.design) }),
      ...(hasWidePictures(block.design) ? { wideImages: true } : {}),
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

/** A campaign's row as the snapshot reads it, for its flight, budgets, pacing and targets. */
interface ControlRow {
  campaign_id: number;
  category_id: number | null;
  starts_at: Date | string | null;
  ends_at: Date | string | null;
  total_budget_micros: number | string;
  campaign_daily_budget_micros: number;
  pacing: string;
  device_targets: string[];
  os_targets: string[];
  browser_targets: string[];
  site_allow: string[];
  site_block: string[];
}

const epochMs = (value: Date | string | null) => (value === null ? undefined : new Date(value).getTime());

/**
 * Flight dates, lifetime budget, pacing, device, OS and browser targets and site lists of a campaign, in
 * the snapshot's terms. Site lists name sites by id or by domain; a domain takes the site of that
 * host and of its subdomains, among the sites that can serve now.
 */
function campaignControl(
  row: ControlRow,
  spentBeforeTodayMicros: number,
  siteHosts: ReadonlyMap<number, string>,
  nowMs: number,
  timeZone: string,
): Partial<CampaignState> {
  const totalBudgetMicros = Number(row.total_budget_micros);
  const endsAtMs = epochMs(row.ends_at);
  let dailyTargetMicros = row.campaign_daily_budget_micros;
  if (dailyTargetMicros === 0 && totalBudgetMicros > 0 && endsAtMs !== undefined) {
    dailyTargetMicros = lifetimeDailyTarget(totalBudgetMicros - spentBeforeTodayMicros, nowMs, endsAtMs);
  }
  const control: Partial<CampaignState> = { categoryId: row.category_id };
  const startsAtMs = epochMs(row.starts_at);
  if (startsAtMs !== undefined) control.startsAtMs = startsAtMs;
  if (endsAtMs !== undefined) control.endsAtMs = endsAtMs;
  if (totalBudgetMicros > 0) {
    control.totalBudgetMicros = totalBudgetMicros;
    control.spentBeforeTodayMicros = spentBeforeTodayMicros;
  }
  if (row.pacing === 'even' && dailyTargetMicros > 0) control.pacing = { dailyTargetMicros, timeZone };
  if (row.device_targets.length > 0) control.deviceTargets = deviceIds(row.device_targets);
  const osTargets = agentTargets(row.os_targets);
  if (osTargets !== undefined) control.osTargets = osTargets;
  const browserTargets = agentTargets(row.browser_targets);
  if (browserTargets !== undefined) control.browserTargets = browserTargets;
  if (row.site_allow.length > 0) control.siteAllow = resolveSites(row.site_allow, siteHosts);
  if (row.site_block.length > 0) control.siteBlock = resolveSites(row.site_block, siteHosts);
  return control;
}

/** Device types as the impression's device ids (1 desktop, 2 mobile, 3 tablet). */
function deviceIds(devices: readonly string[]): Set<number> {
  return new Set(devices.map((device) => DEVICE_TYPES.indexOf(device as DeviceType) + 1).filter((id) => id > 0));
}

/** The ids of a site list's entries: ids as they are, domains by the hosts of the sites. */
function resolveSites(entries: readonly string[], siteHosts: ReadonlyMap<number, string>): Set<number> {
  const ids = new Set<number>();
  for (const entry of entries) {
    if (/^\d+$/.test(entry)) {
      ids.add(Number(entry));
      continue;
    }
    for (const [siteId, host] of siteHosts) {
      if (host === entry || host.endsWith(`.${entry}`)) ids.add(siteId);
    }
  }
  return ids;
}

/** Whether a block's design (JSON as stored) shows wide pictures: `imageShape` is `wide`. */
function hasWidePictures(design: unknown): boolean {
  return typeof design === 'object' && design !== null && (design as { imageShape?: unknown }).imageShape === 'wide';
}
