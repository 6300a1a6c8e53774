/**
 * The auction, as pure functions: rank candidate ads by expected value per impression and price the
 * winners second-price style (billing/charge-split.ts divides the charge). No I/O here, so every
 * rule is covered by table-driven unit tests.
 */

/** A candidate after targeting: its bid and the coefficients that apply to this impression. */
export interface Candidate<T = unknown> {
  ad: T;
  bidMicros: number;
  /** Site or block coefficient times device coefficient (1 when none is set). */
  coefficient: number;
  /** Smoothed click-through rate estimate, a fraction of 1. */
  ctr: number;
}

export interface Winner<T = unknown> {
  ad: T;
  /** Expected value per impression in micros: bid × coefficients × CTR. */
  score: number;
  /** What a click on this teaser costs the advertiser, in micros. */
  chargeMicros: number;
}

/** A new ad is assumed to have seen this many views with this many clicks (a 1% prior). */
export const PRIOR_VIEWS = 200;
export const PRIOR_CLICKS = 2;

/** The smallest price of a click (0.01), unless the bid with coefficients is lower still. */
export const RESERVE_MICROS = 10_000;
/** The increment over the next bidder's price (0.01). */
export const INCREMENT_MICROS = 10_000;

/**
 * CTR with a Bayesian-style prior: (clicks + α) / (views + β). A new ad starts at α/β instead of
 * 0 (which would never win) or 1 (which would win everything); with traffic the estimate moves
 * to the observed rate.
 */
export function smoothedCtr(views: number, clicks: number): number {
  return (Math.max(0, clicks) + PRIOR_CLICKS) / (Math.max(0, views) + PRIOR_VIEWS);
}

/** The bid with every coefficient applied, in (fractional) micros. */
export function effectiveBid(candidate: Candidate): number {
  return candidate.bidMicros * candidate.coefficient;
}

/** Expected value per impression. */
export function score(candidate: Candidate): number {
  return effectiveBid(candidate) * candidate.ctr;
}

/**
 * Picks the `slots` best candidates by score (ties: the order given, so the caller decides) and
 * prices each against the candidate ranked just below it (generalized second price):
 * charge = next score / own CTR + increment, at least the reserve and the block's floor (its
 * minimum CPC: candidates bidding less were left out before), and never above the ad's own
 * bid × coefficients.
 */
export function runAuction<T>(candidates: readonly Candidate<T>[], slots: number, floorMicros = 0): Winner<T>[] {
  if (slots <= 0 || candidates.length === 0) return [];
  // Partial selection: keep the best slots + 1 (the last one only sets the price).
  const keep = slots + 1;
  const best: { candidate: Candidate<T>; score: number }[] = [];
  for (const candidate of candidates) {
    const value = score(candidate);
    if (!(value > 0)) continue;
    if (best.length === keep && value <= (best[keep - 1]?.score ?? 0)) continue;
    let index = best.length;
    while (index > 0 && (best[index - 1]?.score ?? 0) < value) index -= 1;
    best.splice(index, 0, { candidate, score: value });
    if (best.length > keep) best.pop();
  }
  const winners: Winner<T>[] = [];
  for (let rank = 0; rank < Math.min(slots, best.length); rank += 1) {
    const own = best[rank];
    if (own === undefined) break;
    const next = best[rank + 1];
    winners.push({ ad: own.candidate.ad, score: own.score, chargeMicros: priceClick(own.candidate, next?.score, floorMicros) });
  }
  return winners;
}

/** The second-price charge of a click, in whole micros; at least the block's floor. */
export function priceClick(candidate: Candidate, nextScore: number | undefined, floorMicros = 0): number {
  const cap = Math.floor(effectiveBid(candidate));
  const secondPrice = nextScore === undefined ? 0 : nextScore / candidate.ctr + INCREMENT_MICROS;
  const price = Math.ceil(Math.max(RESERVE_MICROS, floorMicros, secondPrice));
  return Math.max(1, Math.min(cap, price));
}
