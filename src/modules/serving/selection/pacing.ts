/**
 * Even pacing (docs/serving.md, Pacing): a campaign that asks for it spends its day's target
 * across the day instead of as fast as the auction lets it. At an instant `f` of the way through
 * the platform's day (0 at midnight, 1 at the next), it may have spent at most
 * `target × min(1, f + LEAD)`; once today's spend reaches that, it sits out until the day catches
 * up. The lead of one hour lets a campaign start at midnight and absorbs the lumpiness of single
 * clicks. The target is the daily budget, or, without one, what is left of the lifetime budget
 * divided by the days left until the end date (snapshot/build-snapshot.ts). Pure functions.
 */

/** How far ahead of the straight line a campaign may spend: one hour of its day. */
export const PACING_LEAD = 1 / 24;

const MINUTE_MS = 60_000;
const formatters = new Map<string, Intl.DateTimeFormat>();
const cache = new Map<string, { minute: number; fraction: number }>();

/** How far through its day the clock of `timeZone` is at `nowMs`: 0 at midnight, just under 1 at 23:59. */
export function dayFraction(nowMs: number, timeZone: string): number {
  const minute = Math.floor(nowMs / MINUTE_MS);
  const known = cache.get(timeZone);
  if (known !== undefined && known.minute === minute) return known.fraction;
  let format = formatters.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hour: 'numeric', minute: 'numeric', hourCycle: 'h23' });
    formatters.set(timeZone, format);
  }
  let hour = 0;
  let minutes = 0;
  for (const part of format.formatToParts(nowMs)) {
    if (part.type === 'hour') hour = Number(part.value) % 24;
    else if (part.type === 'minute') minutes = Number(part.value);
  }
  const fraction = (hour * 60 + minutes) / 1440;
  cache.set(timeZone, { minute, fraction });
  return fraction;
}

/** What an evenly paced campaign may have spent by `nowMs` of its day, in micros. */
export function pacedAllowance(dailyTargetMicros: number, fraction: number): number {
  return Math.floor(dailyTargetMicros * Math.min(1, fraction + PACING_LEAD));
}

/** Whether an evenly paced campaign that spent `spentTodayMicros` is ahead of its allowance now. */
export function aheadOfPace(pacing: { dailyTargetMicros: number; timeZone: string }, spentTodayMicros: number, nowMs: number) {
  return spentTodayMicros >= pacedAllowance(pacing.dailyTargetMicros, dayFraction(nowMs, pacing.timeZone));
}

/**
 * The day's target of a campaign with a lifetime budget and an end date but no daily budget:
 * what is left, spread evenly over the days left (today counted as one); 0 when nothing is left.
 */
export function lifetimeDailyTarget(leftMicros: number, nowMs: number, endsAtMs: number): number {
  if (leftMicros <= 0) return 0;
  const daysLeft = Math.max(1, Math.ceil((endsAtMs - nowMs) / 86_400_000));
  return Math.ceil(leftMicros / daysLeft);
}
