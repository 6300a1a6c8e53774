import type { AgentTargets } from '../selection/agent-targets.ts';
import type { WeekSchedule } from '../selection/schedule.ts';

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
  /** Flight dates: it serves from `startsAtMs` (inclusive) until `endsAtMs` (exclusive); absent: open. */
  startsAtMs?: number;
  endsAtMs?: number;
  /** Lifetime budget (0: none) and what the campaign spent before today; today's spend is `spentTodayMicros`. */
  totalBudgetMicros?: number;
  spentBeforeTodayMicros?: number;
  /** Even pacing: the day's target spread over the day on the platform's clock (selection/pacing.ts). */
  pacing?: { dailyTargetMicros: number; timeZone: string };
  /** Device ids it serves to (1 desktop, 2 mobile, 3 tablet); absent: every device. */
  deviceTargets?: ReadonlySet<number>;
  /** Operating systems and browsers it targets; absent: every one. */
  osTargets?: AgentTargets;
  browserTargets?: AgentTargets;
  /** Sites it serves on only (allow list) and never (block list), by id; absent: no list. */
  siteAllow?: Set<number>;
  siteBlock?: Set<number>;
  /** Its product category (a root category), which a site may refuse. */
  categoryId?: number | null;
}

export interface AdEntry {
  offerId: number;
  campaign: CampaignState;
  bidMicros: number;
  title: string;
  description: string;
  priceText: string;
  /** The picture of square blocks (teaserPicture: the square one, else the wide one), by content hash. */
  image: string | null;
  /** The picture of wide blocks (widePicture: the 3:2 one, else the square one). */
  wideImage: string | null;
  url: string;
  urlMobile: string;
  /** The advertiser's domain, shown on the teaser (from the ad's URL, without `www.`). */
  domain: string;
  ctr: number;
  /** The ad's own product category (a sub-category), which a site may refuse. */
  subCategoryId?: number | null;
}

export interface BlockEntry {
  id: number;
  siteId: number;
  publisherId: number;
  title: string;
  teaserCount: number;
  /** The publisher's "no campaign repeats on a page": at most one ad per campaign per page view. */
  campaignsUnique?: boolean;
  /** The publisher's "never personalise" for the block's site: no impression of it uses personal data. */
  neverPersonalise?: boolean;
  /** The hosts the block serves on: its site's domain and extra domains (tracking/invalid-traffic.ts). */
  siteHosts?: readonly string[];
  /** The block's minimum CPC: an ad whose bid × coefficients is lower does not compete, and no click costs less. */
  floorMicros?: number;
  /** Product categories the block's site refuses (brand safety); absent: none. */
  refusedCategories?: ReadonlySet<number>;
  /** The block's design as the teasers answer carries it (JSON text, written once per rebuild); absent: none. */
  designJson?: string;
  /** The design's pictures are wide (3:2): its teasers carry the ads' wide pictures (decided once per rebuild). */
  wideImages?: boolean;
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
