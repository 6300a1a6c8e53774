import i18next from 'i18next';

/** How this platform writes money, numbers and days: its currency and time zone, the reader's language. */
export interface Platform {
  currency: string;
  timeZone: string;
  /** Whether e-mail leaves the server (`SMTP_URL`); else messages wait in the operators' outbox. */
  emailDelivery: boolean;
  /** The network's minimum payout (MIN_PAYOUT); 0: none. */
  minPayout?: number;
}

let platform: Platform = { currency: 'USD', timeZone: 'UTC', emailDelivery: false, minPayout: 0 };
export const setPlatform = (value: Platform) => {
  platform = value;
};
export const currentPlatform = () => platform;

const browserLocale = typeof navigator === 'undefined' ? 'en' : navigator.language;
let locale = browserLocale;

/**
 * Numbers, money and dates follow the app's language (web/src/i18n): the browser's own variant of
 * it when it has one (en-GB keeps its day-month order), else the language itself.
 */
export function setFormatLanguage(language: string): void {
  locale = browserLocale.toLowerCase().split('-')[0] === language ? browserLocale : language;
  cachedFormat = undefined;
}

/** The BCP 47 locale the app formats with now. */
export const formatLocale = () => locale;

/**
 * Money, by one rule everywhere (header, pages, tables, chart axes): at least 2 fraction digits and
 * at most 4, the precision the API keeps. A click's $0.007 is $0.007 in the header, on the page and
 * on a chart, never rounded to $0.01 in one place and not in another.
 */
export function money(amount: number): string {
  return moneyFormat().format(amount);
}

/** The same as `money` (one rule): the name pages used for per-click amounts. */
export const fineMoney = money;

let cachedFormat: { currency: string; format: Intl.NumberFormat } | undefined;
function moneyFormat(): Intl.NumberFormat {
  if (cachedFormat === undefined || cachedFormat.currency !== platform.currency) {
    cachedFormat = {
      currency: platform.currency,
      format: new Intl.NumberFormat(locale, {
        style: 'currency',
        currency: platform.currency,
        minimumFractionDigits: 2,
        maximumFractionDigits: 4,
      }),
    };
  }
  return cachedFormat.format;
}

/** The separators of the reader's language: "." and "," in English, "," and "." in German. */
function separators(language: string): { decimal: string; group: string } {
  const parts = new Intl.NumberFormat(language).formatToParts(12345.6);
  return {
    decimal: parts.find((part) => part.type === 'decimal')?.value ?? '.',
    group: parts.find((part) => part.type === 'group')?.value ?? ',',
  };
}

export type ParsedAmount = { ok: true; amount: string } | { ok: false; message: string };

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A positive amount typed by a person, read by the rules of their language (the page's locale),
 * as the decimal string the API takes (no float carries money). "1,000" is a thousand in English
 * and one in German; what could be read two ways ("1,5" in English, "1.000,5" anywhere the group
 * separator is ",") is refused with a message showing how to write it, never guessed.
 */
export function parseAmount(text: string, language = formatLocale(), { allowZero = false } = {}): ParsedAmount {
  const { decimal, group } = separators(language);
  const example = new Intl.NumberFormat(language, { minimumFractionDigits: 2 }).format(1250.5);
  const refuse: ParsedAmount = { ok: false, message: i18next.t('amount.writeAs', { example, decimal }) };
  // Languages that group with a space (French's narrow no-break one) take any space typed there.
  const spaced = /\s/.test(group);
  const written = spaced ? text.trim().replace(/\s+/g, ' ') : text.trim();
  const separator = spaced ? ' ' : group;
  if (written === '') return { ok: false, message: i18next.t('amount.empty') };
  if (written.startsWith('-')) return { ok: false, message: i18next.t('amount.noSign') };
  const [whole = '', fraction, ...more] = written.split(decimal);
  if (more.length > 0 || (fraction !== undefined && !/^\d{1,4}$/.test(fraction))) return refuse;
  const grouped = new RegExp(`^\\d{1,3}(${escapeRegExp(separator)}\\d{3})+$`);
  if (!/^\d+$/.test(whole) && !grouped.test(whole)) return refuse;
  const digits = whole
    .split(separator)
    .join('')
    .replace(/^0+(?=\d)/, '');
  if (digits.length > 10) return { ok: false, message: i18next.t('amount.tooLarge') };
  const amount = fraction === undefined ? digits : `${digits}.${fraction}`;
  if (Number(amount) === 0 && !allowZero) return { ok: false, message: i18next.t('amount.zero') };
  return { ok: true, amount };
}

export type ReadNumber<Value> = { ok: true; value: Value } | { ok: false; message: string };

/**
 * Money typed into an advertiser's form (a bid, a budget, a limit, a threshold), the one reading
 * every such field uses: by the reader's language (parseAmount), a minus refused in the form's
 * words (no button says which way the money goes here); with `optional` an empty field (or 0) is
 * none, with `zero` 0 is an amount like any other.
 */
export function readMoney(
  text: string,
  { optional = false, zero = false } = {},
  language = formatLocale(),
): ReadNumber<string | null> {
  if (optional && text.trim() === '') return { ok: true, value: null };
  if (/^\s*[-−]/.test(text)) return { ok: false, message: i18next.t('amount.negative') };
  const parsed = parseAmount(text, language, { allowZero: optional || zero });
  if (!parsed.ok) return parsed;
  return { ok: true, value: optional && !zero && Number(parsed.amount) === 0 ? null : parsed.amount };
}

/**
 * A whole number typed into an advertiser's form (a click limit, a cap, a price in whole units),
 * the one reading every such field uses: plain or grouped by the reader's language
 * (parseWholeNumber); with `optional`, an empty field as none. `price` words the refusal for a
 * price ("Write the price in whole units, like 1,990.").
 */
export function readWholeNumber(
  text: string,
  { optional = false, price = false } = {},
  language = formatLocale(),
): ReadNumber<number | null> {
  if (optional && text.trim() === '') return { ok: true, value: null };
  if (/^\s*[-−]/.test(text)) return { ok: false, message: i18next.t('number.negative') };
  const parsed = parseWholeNumber(text, language);
  if (parsed.ok) return parsed;
  if (!price) return parsed;
  return { ok: false, message: i18next.t('number.price', { example: new Intl.NumberFormat(language).format(1990) }) };
}

export type ParsedWholeNumber = { ok: true; value: number } | { ok: false; message: string };

/**
 * A whole number typed by a person, plain or grouped as their language writes it: "50,000" in
 * English, "50 000" in Russian (any space, as people type the no-break one as a plain space). A
 * space groups in every language, since it is never a decimal separator; anything else, a
 * fraction included, is refused with an example in the reader's language.
 */
export function parseWholeNumber(text: string, language = formatLocale()): ParsedWholeNumber {
  const { group } = separators(language);
  const written = text.trim().replace(/\s+/g, ' ');
  const groupMarks = /\s/.test(group) ? ' ' : `${escapeRegExp(group)}| `;
  const grouped = new RegExp(`^\\d{1,3}((${groupMarks})\\d{3})+$`);
  if (!/^\d+$/.test(written) && !grouped.test(written)) {
    return { ok: false, message: i18next.t('number.writeAs', { example: new Intl.NumberFormat(language).format(50000) }) };
  }
  return { ok: true, value: Number(written.replace(/\D/g, '')) };
}

/** An amount written back for a money field, in the reader's language, without grouping (`1250.5`, `1250,5`). */
export function amountInput(amount: number): string {
  return new Intl.NumberFormat(locale, { useGrouping: false, maximumFractionDigits: 4 }).format(amount);
}

/**
 * What became of a message to `to`, said truthfully: handed to the mail server, or (with no
 * `SMTP_URL`) waiting in the outbox, where an operator can read it and pass the link on.
 */
export function mailFate(what: string, to: string): string {
  return i18next.t(platform.emailDelivery ? 'mail.sent' : 'mail.queued', { what, to });
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

/** A YYYY-MM-DD day as a chart's axis writes it: day and month only ("5 May", "5 мая"). */
export function dayMonthLabel(day: string): string {
  return new Intl.DateTimeFormat(locale, { timeZone: 'UTC', day: 'numeric', month: 'short' }).format(
    new Date(`${day}T00:00:00Z`),
  );
}

/** A moment written in the platform time zone. */
export function moment(iso: string): string {
  return new Intl.DateTimeFormat(locale, { timeZone: platform.timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(
    new Date(iso),
  );
}
