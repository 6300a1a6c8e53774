import type { FieldError } from '../../../errors.ts';
import { HOURS_PER_WEEK, isTimeZone } from '../../serving/index.ts';

/**
 * A campaign's schedule as sent: hours of the week (0 = Monday 00:00–01:00, 167 = Sunday
 * 23:00–24:00) as an array of integers or as a comma-separated string of hours and inclusive
 * ranges (`8-17,32-41`). Null or an empty string clears it (always serves); absent leaves it.
 * Answers the sorted, de-duplicated hours, null to clear, or the field's 422 entry.
 */
export function checkSchedule(value: unknown, field = 'schedule'): number[] | null | undefined | FieldError {
  if (value === undefined) return undefined;
  if (value === null || value === '') return null;
  const items: unknown[] = Array.isArray(value) ? value : [value];
  const hours = new Set<number>();
  for (const item of items) {
    if (typeof item === 'number') {
      if (!isHour(item)) return { field, message: `${item} is not an hour of the week (0–167).` };
      hours.add(item);
      continue;
    }
    if (typeof item !== 'string')
      return { field, message: 'Must be hours of the week (0–167): integers or ranges such as 8-17.' };
    for (const part of item.split(',')) {
      const match = /^\s*(\d{1,3})\s*(?:-\s*(\d{1,3})\s*)?$/.exec(part);
      const from = Number(match?.[1]);
      const to = match?.[2] === undefined ? from : Number(match[2]);
      if (match === null || !isHour(from) || !isHour(to) || to < from) {
        return { field, message: `${part.trim()} is not an hour of the week (0–167) or a range of them (8-17).` };
      }
      for (let hour = from; hour <= to; hour += 1) hours.add(hour);
    }
  }
  if (hours.size === 0) return { field, message: 'Give at least one hour, or null to serve at every hour.' };
  return [...hours].sort((a, b) => a - b);
}

function isHour(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value < HOURS_PER_WEEK;
}

/** An IANA time zone name; null or an empty string clears it (the platform's zone); absent leaves it. */
export function checkTimeZone(value: unknown, field = 'timeZone'): string | null | undefined | FieldError {
  if (value === undefined) return undefined;
  if (value === null || value === '') return null;
  if (typeof value !== 'string' || !isTimeZone(value)) {
    return { field, message: 'Must be an IANA time zone name such as Europe/Berlin.' };
  }
  return value;
}
