import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { CampaignsTable } from '../../../db/schema.ts';
import { microsToAmount } from '../../../money.ts';
import { MODERATION } from '../../moderation/index.ts';
import type { Totals } from '../../statistics/index.ts';
import { advertiserFigures, figureProperties } from '../../statistics/index.ts';
import { controlProperties, toControl } from './campaign-control.ts';

/** Campaign `status`: 0 moderation, 1 approved, 2 rejected, 3 archived (whatever the moderation said). */
export const CAMPAIGN_STATUSES = { ...MODERATION, archived: 3 } as const;

const campaignProperties = {
  id: Type.Integer({ description: 'Campaign id.' }),
  title: Type.String({ description: 'Title.' }),
  active: Type.Boolean({ description: 'Activity flag: whether the advertiser has it switched on.' }),
  maxclicks: Type.Integer({ description: 'Daily limit of clicks; 0 means none.' }),
  maxmoney: Type.Number({ description: 'Daily spending limit, in currency units; 0 means none.' }),
  isRetarget: Type.Boolean({ description: 'Whether it is a retargeting campaign.' }),
  category_id: Type.Union([Type.Integer(), Type.Null()], { description: 'Product category (a root category).' }),
  items: Type.Integer({ description: 'Number of the campaign’s ads that are not deleted.' }),
  status: Type.Integer({
    description: 'Status: 0 moderation, 1 approved, 2 rejected, 3 archived (archived shows 3 whatever the moderation decision).',
  }),
  archived: Type.Boolean({ description: 'Whether the campaign is archived (extension).' }),
  moderationReason: Type.Optional(
    Type.String({
      description: 'Why the campaign was rejected, in the operator’s words; present until it is approved (extension).',
    }),
  ),
  geo: Type.Array(Type.String(), {
    description: 'Targeted countries, ISO 3166-1 alpha-2; empty means everywhere (extension).',
  }),
  frequencyCap: Type.Optional(
    Type.Integer({
      description:
        'At most this many views of the campaign’s ads per visitor per day (the platform’s day); present only when set (extension).',
    }),
  ),
  schedule: Type.Optional(
    Type.Array(Type.Integer(), {
      description:
        'Hours of the week when the campaign serves, on the clock of `timeZone`: 0 is Monday 00:00–01:00, 167 Sunday 23:00–24:00; present only when set, absent means every hour (extension).',
    }),
  ),
  timeZone: Type.Optional(
    Type.String({
      description: 'IANA time zone of `schedule`; present only when set, absent means the platform’s time zone (extension).',
    }),
  ),
  ...controlProperties,
  ...figureProperties,
};

export const CampaignSchema = Type.Object(campaignProperties, {
  description: 'A campaign with its statistics for the requested period (lifetime when no dates are given).',
});

/** A Campaign with its ads embedded (`expand=offers`). */
export const campaignWithOffers = (offer: TSchema) =>
  Type.Object(
    {
      ...campaignProperties,
      offers: Type.Optional(Type.Array(offer, { description: 'The campaign’s ads (with expand=offers).' })),
    },
    { description: CampaignSchema.description },
  );

export type Campaign = Static<typeof CampaignSchema>;

/** A campaign row with the number of its ads that are not deleted. */
export type CampaignRecord = Selectable<CampaignsTable> & { items: number };

export function campaignStatus(row: Pick<CampaignRecord, 'archived' | 'moderation_status'>): number {
  return row.archived ? CAMPAIGN_STATUSES.archived : row.moderation_status;
}

/** The API's Campaign: spec field names, statistics from the rollup totals. */
export function toCampaign(row: CampaignRecord, totals: Totals): Campaign {
  return {
    id: row.id,
    title: row.title,
    active: row.active,
    maxclicks: row.daily_click_limit,
    maxmoney: microsToAmount(row.daily_budget_micros),
    isRetarget: row.is_retarget,
    category_id: row.category_id,
    items: row.items,
    status: campaignStatus(row),
    archived: row.archived,
    ...(row.moderation_reason === null ? {} : { moderationReason: row.moderation_reason }),
    geo: row.geo,
    ...(row.frequency_cap > 0 ? { frequencyCap: row.frequency_cap } : {}),
    ...(row.schedule_hours === null ? {} : { schedule: row.schedule_hours.map(Number) }),
    ...(row.time_zone === null ? {} : { timeZone: row.time_zone }),
    ...toControl(row),
    ...advertiserFigures(totals),
  };
}
