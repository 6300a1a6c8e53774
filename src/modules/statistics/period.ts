import { type FieldError, validationFailed } from '../../errors.ts';

/** An inclusive range of platform-time-zone days; an open end means "no bound". */
export interface Period {
  from: string | undefined;
  to: string | undefined;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `text` is a real calendar date written YYYY-MM-DD. */
export function isIsoDate(text: string): boolean {
  const match = ISO_DATE.exec(text);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().slice(0, 10) === text;
}

/**
 * Reads a period from two optional parameters, naming them in 422 errors as the client wrote
 * them (`dateFrom`, `filter[dateFrom]`, ...). A period whose end is before its start is an error.
 */
export function readPeriod(
  values: { from?: unknown; to?: unknown },
  names: { from: string; to: string } = { from: 'dateFrom', to: 'dateTo' },
): Period {
  const problems: FieldError[] = [];
  const read = (value: unknown, name: string): string | undefined => {
    if (value === undefined || value === '') return undefined;
    if (typeof value !== 'string' || !isIsoDate(value)) {
      problems.push({ field: name, message: 'Must be a date in ISO 8601 format, YYYY-MM-DD.' });
      return undefined;
    }
    return value;
  };
  const from = read(values.from, names.from);
  const to = read(values.to, names.to);
  if (from !== undefined && to !== undefined && from > to) {
    problems.push({ field: names.to, message: `Must not be before ${names.from}.` });
  }
  if (problems.length > 0) throw validationFailed(problems);
  return { from, to };
}

/** The longest period hourly statistics are given for, in days. */
export const MAX_HOURLY_DAYS = 7;

/**
 * Checks that a period can be broken down by hour: both ends given and at most MAX_HOURLY_DAYS
 * days long (a 422 naming `field` otherwise), which bounds an hourly answer to 168 rows per key.
 */
export function requireHourlyPeriod(period: Period, field: string, names: { from: string; to: string }): void {
  if (period.from === undefined || period.to === undefined) {
    throw validationFailed([{ field, message: `Needs ${names.from} and ${names.to}, at most ${MAX_HOURLY_DAYS} days apart.` }]);
  }
  const days = (Date.parse(period.to) - Date.parse(period.from)) / 86_400_000 + 1;
  if (days > MAX_HOURLY_DAYS) {
    throw validationFailed([{ field, message: `The period must be at most ${MAX_HOURLY_DAYS} days long; it is ${days}.` }]);
  }
}
