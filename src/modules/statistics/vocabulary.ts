import { Type } from '@sinclair/typebox';
import { invalidField } from '../../errors.ts';
import { Count } from '../../http/input-types.ts';

/**
 * The words statistics are told in, for the write path (serving, refunds), the read path (both
 * roles' statistics, the figures beside campaigns, ads and sites) and tests alike.
 */

/** Device types as the API numbers them. */
export const DEVICES = { desktop: 1, mobile: 2, tablet: 3 } as const;
export type DeviceId = (typeof DEVICES)[keyof typeof DEVICES];

/** Conversion goals as the API numbers them (`targetId`). */
export const GOALS = { purchase: 1, registration: 2, intermediate: 3 } as const;
export type GoalId = (typeof GOALS)[keyof typeof GOALS];

/** `targetId`: which conversions count as orders. 0 all goals; otherwise one goal of GOALS. */
export type TargetId = 0 | GoalId;

/** `targetId` as every advertiser statistics route accepts it. */
export const TargetIdParameter = Type.Optional(
  Count('Which conversions count as orders: 0 all (default), 1 purchase, 2 registration, 3 intermediate goal.', {
    maximum: 3,
  }),
);

/** The summed columns of the rollup tables and of the summaries. */
export const ROLLUP_COUNTERS = [
  'views',
  'clicks',
  'spend_micros',
  'publisher_income_micros',
  'conversions_purchase',
  'conversions_registration',
  'conversions_intermediate',
  'pixel_conversions_purchase',
  'pixel_conversions_registration',
  'pixel_conversions_intermediate',
  'served',
  'refunded_clicks',
  'refunded_spend_micros',
  'refunded_publisher_income_micros',
  'invalid_clicks',
] as const;
export type RollupCounter = (typeof ROLLUP_COUNTERS)[number];

/**
 * What happened for one ad in one place: any mix of views, clicks, money and conversions.
 * The serving engine and tests describe traffic with these; nothing else writes statistics.
 */
export interface TrafficEvent {
  /** When it happened (epoch ms); the rollup day is taken in the platform time zone. */
  at: number;
  campaignId: number;
  offerId: number;
  siteId: number;
  blockId: number;
  device: DeviceId;
  /** ISO 3166-1 alpha-2, or '' when unknown. */
  country?: string;
  views?: number;
  clicks?: number;
  /** What the advertiser was charged. */
  spendMicros?: number;
  /** What the publisher earned from it. */
  publisherIncomeMicros?: number;
  conversions?: Partial<Record<GoalId, number>>;
  /** Those of `conversions` the browser pixel reported (not authenticated by a postback key). */
  pixelConversions?: Partial<Record<GoalId, number>>;
  /** Teasers served (views are the viewable ones among them). */
  served?: number;
  /** Clicks found invalid after billing, with the money given back (on the click's own day and place). */
  refundedClicks?: number;
  refundedSpendMicros?: number;
  refundedPublisherIncomeMicros?: number;
  /** Clicks refused on arrival as general invalid traffic: recorded, never billed (docs/invalid-traffic.md). */
  invalidClicks?: number;
}

/** The counters of one event, by rollup column. */
export const eventCounters = (event: TrafficEvent): Record<RollupCounter, number> => ({
  views: event.views ?? 0,
  clicks: event.clicks ?? 0,
  spend_micros: event.spendMicros ?? 0,
  publisher_income_micros: event.publisherIncomeMicros ?? 0,
  conversions_purchase: event.conversions?.[GOALS.purchase] ?? 0,
  conversions_registration: event.conversions?.[GOALS.registration] ?? 0,
  conversions_intermediate: event.conversions?.[GOALS.intermediate] ?? 0,
  pixel_conversions_purchase: event.pixelConversions?.[GOALS.purchase] ?? 0,
  pixel_conversions_registration: event.pixelConversions?.[GOALS.registration] ?? 0,
  pixel_conversions_intermediate: event.pixelConversions?.[GOALS.intermediate] ?? 0,
  served: event.served ?? 0,
  refunded_clicks: event.refundedClicks ?? 0,
  refunded_spend_micros: event.refundedSpendMicros ?? 0,
  refunded_publisher_income_micros: event.refundedPublisherIncomeMicros ?? 0,
  invalid_clicks: event.invalidClicks ?? 0,
});

/** The advertiser's totals that rates are derived from, and the served and refunded figures beside them. */
export interface Totals {
  views: number;
  clicks: number;
  spendMicros: number;
  orders: number;
  /** Those of `orders` the browser pixel reported; the rest came by authenticated postback. */
  pixelOrders: number;
  served: number;
  refundedClicks: number;
  refundedSpendMicros: number;
  /** Clicks refused on arrival as invalid; `clicks` does not include them. */
  invalidClicks: number;
}

/** The advertiser's totals of something without traffic. */
export const ZERO_TOTALS: Readonly<Totals> = Object.freeze({
  views: 0,
  clicks: 0,
  spendMicros: 0,
  orders: 0,
  pixelOrders: 0,
  served: 0,
  refundedClicks: 0,
  refundedSpendMicros: 0,
  invalidClicks: 0,
});

/** What the rollup holds for a publisher: counts and what the publisher earned. */
export interface PublisherTotals {
  views: number;
  clicks: number;
  incomeMicros: number;
  served: number;
  refundedClicks: number;
  refundedIncomeMicros: number;
  /** Clicks refused on arrival as invalid; `clicks` does not include them. */
  invalidClicks: number;
}

/** The publisher's totals of something without traffic. */
export const ZERO_PUBLISHER_TOTALS: Readonly<PublisherTotals> = Object.freeze({
  views: 0,
  clicks: 0,
  incomeMicros: 0,
  served: 0,
  refundedClicks: 0,
  refundedIncomeMicros: 0,
  invalidClicks: 0,
});

interface DayFormatter {
  format: Intl.DateTimeFormat;
  /** The last minute asked for and its day: time zone offsets are whole minutes, so it holds for that minute. */
  minute: number;
  day: string;
}

const dayFormatters = new Map<string, DayFormatter>();

/**
 * The calendar day (YYYY-MM-DD) of an instant in a time zone. Called for every served teaser and
 * every rollup line, so the last minute's answer is kept (formatting costs microseconds).
 */
export function dayOf(epochMs: number, timeZone: string): string {
  let formatter = dayFormatters.get(timeZone);
  if (formatter === undefined) {
    formatter = {
      format: new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }),
      minute: Number.NaN,
      day: '',
    };
    dayFormatters.set(timeZone, formatter);
  }
  const minute = Math.floor(epochMs / 60_000);
  if (minute !== formatter.minute) {
    formatter.day = formatter.format.format(epochMs);
    formatter.minute = minute;
  }
  return formatter.day;
}

const ID_LIST = /^\s*\d{1,10}\s*(,\s*\d{1,10}\s*)*$/;
const MAX_ID = 2_147_483_647;

/**
 * Reads a comma-separated list of numeric ids (`"1,2, 3"`), without repeats, naming `field` in
 * the 422 when it is malformed. An absent or blank value is "no filter" (undefined).
 */
export function readIdList(value: unknown, field: string): number[] | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  if (text === undefined || (typeof text === 'string' && text.trim() === '')) return undefined;
  if (typeof text !== 'string' || !ID_LIST.test(text)) {
    throw invalidField(field, 'Must be a comma-separated list of numeric ids.');
  }
  const ids = text.split(',').map((part) => Number(part.trim()));
  if (ids.some((id) => id < 1 || id > MAX_ID)) throw invalidField(field, `Ids must be from 1 to ${MAX_ID}.`);
  return [...new Set(ids)];
}
