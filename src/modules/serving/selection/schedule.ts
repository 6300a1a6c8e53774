/**
 * Campaign schedules: the hours of the week when a campaign serves, read on a wall clock of the
 * campaign's time zone (or the platform's). Hour 0 is Monday 00:00–01:00 and hour 167 is Sunday
 * 23:00–24:00, as the local clock shows them: across a daylight-saving change the hour that is
 * skipped never comes and the hour that repeats serves twice, which is what a person who wrote
 * "9 to 18 on weekdays" means. Pure functions; the clock is the caller's.
 */

export const HOURS_PER_WEEK = 168;

/** A schedule: one bit per hour of the week. */
export interface WeekSchedule {
  readonly bits: Uint8Array;
  readonly timeZone: string;
}

/** The bitmap of a list of hours of the week (each 0–167; the caller has validated them). */
export function weekSchedule(hours: readonly number[], timeZone: string): WeekSchedule {
  const bits = new Uint8Array(HOURS_PER_WEEK / 8);
  for (const hour of hours) bits[hour >> 3] = (bits[hour >> 3] ?? 0) | (1 << (hour & 7));
  return { bits, timeZone };
}

/** Whether an IANA time zone name is known to this runtime (`Europe/Berlin`, `UTC`). */
export function isTimeZone(name: string): boolean {
  if (name === '' || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const WEEKDAYS: Record<string, number> = { Mon: 0, Tue: 1, Wed: 2, Thu: 3, Fri: 4, Sat: 5, Sun: 6 };
const formatters = new Map<string, Intl.DateTimeFormat>();

/** The local hour of the week (0 = Monday 00:00) at an instant, in a time zone. */
export function hourOfWeek(nowMs: number, timeZone: string): number {
  let format = formatters.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', hour: 'numeric', hourCycle: 'h23' });
    formatters.set(timeZone, format);
  }
  let weekday = 0;
  let hour = 0;
  for (const part of format.formatToParts(nowMs)) {
    if (part.type === 'weekday') weekday = WEEKDAYS[part.value] ?? 0;
    else if (part.type === 'hour') hour = Number(part.value) % 24;
  }
  return weekday * 24 + hour;
}

/**
 * Every time zone's offset is a multiple of 15 minutes, so the hour of the week cannot change
 * within a quarter hour of UTC: one formatting per zone and quarter hour serves every request.
 */
const QUARTER_MS = 15 * 60_000;
const cache = new Map<string, { quarter: number; hour: number }>();

function cachedHourOfWeek(nowMs: number, timeZone: string): number {
  const quarter = Math.floor(nowMs / QUARTER_MS);
  const known = cache.get(timeZone);
  if (known !== undefined && known.quarter === quarter) return known.hour;
  const hour = hourOfWeek(nowMs, timeZone);
  cache.set(timeZone, { quarter, hour });
  return hour;
}

/** Whether a campaign with this schedule serves at `nowMs`. */
export function servesAt(schedule: WeekSchedule, nowMs: number): boolean {
  const hour = cachedHourOfWeek(nowMs, schedule.timeZone);
  return ((schedule.bits[hour >> 3] ?? 0) & (1 << (hour & 7))) !== 0;
}
