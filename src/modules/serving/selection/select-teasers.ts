import type { AdBucket, AdEntry, SelectionIndex, Snapshot } from '../snapshot/snapshot.ts';
import { type Candidate, runAuction, type Winner } from './auction.ts';
import { type AdFilter, type Impression, judgeAd, type SkipReason, startJudgement } from './judgement.ts';

export interface SelectionOptions {
  /** Refuses single ads for this request: `true` lets the ad compete, anything else says why not. */
  filter?: AdFilter;
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
  const { onSkip, onCandidate } = options;
  const judgement = startJudgement(impression, audience, options.filter);
  const candidates: Candidate<AdEntry>[] = [];
  const places = impression.block.teaserCount + 1;
  const best: number[] = [];
  const heads = sources.map(() => 0);
  for (;;) {
    const source = nextSource(sources, heads);
    if (source < 0) break;
    const bucket = sources[source] as AdBucket;
    const position = heads[source] as number;
    heads[source] = position + 1;
    const ad = bucket.ads[position] as AdEntry;
    const base = bucket.bases[position] as number;
    if (!exhaustive && best.length === places && base * snapshot.maxFactor < (best[places - 1] ?? 0)) break;
    const factor = judgeAd(judgement, ad);
    if (typeof factor !== 'number') {
      onSkip?.(ad, factor);
      continue;
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
  return runAuction(candidates, impression.block.teaserCount, impression.block.floorMicros ?? 0);
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
