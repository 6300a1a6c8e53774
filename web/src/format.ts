/** How this platform writes money, numbers and days: its currency and time zone, the reader's language. */
export interface Platform {
  currency: string;
  timeZone: string;
  /** The network's minimum payout (MIN_PAYOUT); 0: none. */
  minPayout?: number;
}

let platform: Platform = { currency: 'USD', timeZone: 'UTC', minPayout: 0 };
export const setPlatform = (value: Platform) => {
  platform = value;
};
export const currentPlatform = () => platform;

const locale = typeof navigator === 'undefined' ? 'en' : navigator.language;

export function money(amount: number): string {
  return new Intl.NumberFormat(locale, { style: 'currency', currency: platform.currency, maximumFractionDigits: 2 }).format(
    amount,
  );
}

/** Money per click and the like: up to four fraction digits, as the API keeps them. */
export function fineMoney(amount: number): string {
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: platform.currency,
    minimumFractionDigits: 2,
    maximumFractionDigits: 4,
  }).format(amount);
}

export function count(value: number): string {
  return new Intl.NumberFormat(locale).format(value);
}

export function percent(value: number): string {
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }).format(value)} %`;
}

/** Today's date (YYYY-MM-DD) in the platform time zone. */
export function today(): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: platform.timeZone }).format(new Date());
}

/** A YYYY-MM-DD day `days` away from `day`. */
export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** Every day from `from` to `to`, inclusive. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = from; day <= to && days.length < 3700; day = addDays(day, 1)) days.push(day);
  return days;
}

/** A YYYY-MM-DD day written for the reader (the day is already the platform's). */
export function dayLabel(day: string): string {
  return new Intl.DateTimeFormat(locale, { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric' }).format(
    new Date(`${day}T00:00:00Z`),
  );
}

/** A moment written in the platform time zone. */
export function moment(iso: string): string {
  return new Intl.DateTimeFormat(locale, { timeZone: platform.timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(
    new Date(iso),
  );
}
