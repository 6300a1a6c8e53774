import type { AdBucket, AdEntry, SelectionIndex } from './snapshot.ts';

/** Ads handled between two yields to the event loop while a snapshot is built (a few ms of work). */
export const YIELD_EVERY = 4096;

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
