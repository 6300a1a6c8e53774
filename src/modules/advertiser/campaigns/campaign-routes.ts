import { type Static, Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { readExpand } from '../../../http/expand.ts';
import { uncheckedBody } from '../../../http/field-rules.ts';
import { Count, Id, Money, Text } from '../../../http/input-types.ts';
import { listPage, pageParameters } from '../../../http/pagination.ts';
import { requestDb } from '../../../http/request-write.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses, Flag, IdParams } from '../../../http/schemas.ts';
import { searchParameter, sortParameter } from '../../../http/sorting.ts';
import { created } from '../../../http/urls.ts';
import { readSort } from '../../../shared/list-query.ts';
import type { Unchecked } from '../../../shared/unchecked.ts';
import { readPeriod, type TargetId, TargetIdParameter } from '../../statistics/index.ts';
import { AdSchema, toAd } from '../offers/offer-schema.ts';
import { controlBodyProperties } from './campaign-control.ts';
import { CAMPAIGN_SORT_FIELDS, type CampaignSortField } from './campaign-repository.ts';
import { CampaignSchema, campaignWithOffers } from './campaign-schema.ts';
import {
  type CampaignChange,
  type CampaignInput,
  campaignChangeFieldErrors,
  campaignFieldErrors,
  changeCampaign,
  createCampaign,
  getCampaignWithStats,
  listCampaignsWithStats,
  offersOfCampaign,
  selectedCampaignIds,
} from './campaign-service.ts';

const periodParameters = {
  dateFrom: Type.Optional(Text('First day of the statistics period (inclusive), YYYY-MM-DD.')),
  dateTo: Type.Optional(Text('Last day of the statistics period (inclusive), YYYY-MM-DD.')),
  targetId: TargetIdParameter,
};

const selectionParameters = {
  type: Type.Optional(Count('Campaign type: 1 retargeting, 2 standard.', { minimum: 1, maximum: 2 })),
  archived: Type.Optional(Count('Archived campaigns: 0 included, 1 not included (default).', { maximum: 1 })),
};

const CampaignListQuery = Type.Object({
  ...pageParameters,
  ...periodParameters,
  ...selectionParameters,
  id: Type.Optional(Text('Only these campaigns: comma-separated ids.')),
  q: searchParameter('title'),
  sort: sortParameter(CAMPAIGN_SORT_FIELDS, 'id'),
  filter: Type.Optional(
    Type.Object(
      { id: Type.Optional(Text('Only these campaigns: comma-separated ids.')) },
      { description: '`filter[id]`: the same as `id`.' },
    ),
  ),
});

const CampaignQuery = Type.Object({
  ...periodParameters,
  ...selectionParameters,
  expand: Type.Optional(Text('`offers` embeds the campaign’s ads.')),
});

/** The delivery fields, the same on create and change. */
const deliveryProperties = {
  frequencyCap: Type.Optional(
    Count('At most this many views of the campaign’s ads per visitor per day; 0 (default) means no cap (extension).', {
      maximum: 1_000_000,
    }),
  ),
  schedule: Type.Optional(
    Type.Union(
      [
        // The hours' range is the service's rule, so that a 422 names `schedule` whatever the form.
        Type.Array(Type.Integer({ description: 'An hour of the week, 0–167.' }), { maxItems: 168 }),
        Text('Hours and inclusive ranges, comma-separated.', { maxLength: 2000 }),
        Type.Null(),
      ],
      {
        description:
          'Hours of the week when the campaign serves, on the clock of `timeZone` (0 is Monday 00:00–01:00, 167 Sunday 23:00–24:00): integers, or a string such as `8-17,32-41`; null or empty (default) means every hour (extension).',
      },
    ),
  ),
  timeZone: Type.Optional(
    Type.Union([Text('An IANA time zone name.', { maxLength: 64 }), Type.Null()], {
      description:
        'IANA time zone of the schedule (`Europe/Berlin`); null or empty (default) means the platform’s time zone (extension).',
    }),
  ),
};

const CreateCampaignBody = Type.Object(
  {
    title: Text('Title.', { minLength: 1, maxLength: 255 }),
    category_id: Id('A root product category.'),
    geo: Type.Optional(
      Type.Union(
        [Type.Array(Text('A country code.', { maxLength: 8 }), { maxItems: 300 }), Text('Country codes.', { maxLength: 2000 })],
        {
          description:
            'Targeted countries: ISO 3166-1 alpha-2 codes as an array or a comma-separated string; empty means everywhere.',
        },
      ),
    ),
    isRetarget: Type.Optional(Flag('Whether it is a retargeting campaign (default false).')),
    maxmoney: Type.Optional(Money('Daily spending limit; 0 (default) means none.', { minimum: 0 })),
    maxclicks: Type.Optional(Count('Daily click limit; 0 (default) means none.', { maximum: 1_000_000_000 })),
    active: Type.Optional(Flag('Activity flag (default true).')),
    ...deliveryProperties,
    ...controlBodyProperties,
  },
  { additionalProperties: false },
);

export const ChangeCampaignBody = Type.Object(
  {
    active: Type.Optional(Flag('Switch the campaign on (true) or off (false).')),
    archived: Type.Optional(Flag('Archive (true) or restore (false) the campaign (extension).')),
    maxmoney: Type.Optional(
      Money('Daily spending limit; 0 means none. Takes effect at once, without moderation.', { minimum: 0 }),
    ),
    maxclicks: Type.Optional(
      Count('Daily click limit; 0 means none. Takes effect at once, without moderation.', { maximum: 1_000_000_000 }),
    ),
    ...deliveryProperties,
    ...controlBodyProperties,
  },
  { additionalProperties: false },
);

/** What only a single campaign's change may rename or re-aim (a bulk change takes the rest). */
const campaignDescriptionProperties = {
  title: Type.Optional(
    Text('A new title: the advertiser’s own name, never shown to visitors; no moderation.', { minLength: 1, maxLength: 255 }),
  ),
  category_id: Type.Optional(
    Id('A new root product category. A change sends the campaign back to moderation: a moderator checks its ads against it.'),
  ),
  geo: Type.Optional(
    Type.Union(
      [Type.Array(Text('A country code.', { maxLength: 8 }), { maxItems: 300 }), Text('Country codes.', { maxLength: 2000 })],
      {
        description:
          'New targeted countries: ISO 3166-1 alpha-2 codes as an array or a comma-separated string; empty means everywhere. Targeting, not content: no moderation.',
      },
    ),
  ),
};

const EditCampaignBody = Type.Object(
  { ...campaignDescriptionProperties, ...ChangeCampaignBody.properties },
  { additionalProperties: false },
);

const CampaignWithOffers = campaignWithOffers(AdSchema);

type CreateCampaignFields = Static<typeof CreateCampaignBody>;
type ChangeCampaignFields = Static<typeof EditCampaignBody>;

/** The API's names of a campaign change's fields, in the service's words (the daily limits' names differ). */
function toCampaignChange(body: ChangeCampaignFields): CampaignChange;
function toCampaignChange(body: Unchecked<ChangeCampaignFields>): Unchecked<CampaignChange>;
function toCampaignChange(body: Unchecked<ChangeCampaignFields>): Unchecked<CampaignChange> {
  const { maxmoney, maxclicks, category_id, ...rest } = body;
  return { ...rest, categoryId: category_id, dailyBudget: maxmoney, dailyClickLimit: maxclicks };
}

/** The API's names of a new campaign's fields, in the service's words. */
function toCampaignInput(body: CreateCampaignFields): CampaignInput;
function toCampaignInput(body: Unchecked<CreateCampaignFields>): Unchecked<CampaignInput>;
function toCampaignInput(body: Unchecked<CreateCampaignFields>): Unchecked<CampaignInput> {
  return {
    title: body.title,
    categoryId: body.category_id,
    geo: body.geo,
    isRetarget: body.isRetarget,
    active: body.active,
    dailyBudget: body.maxmoney,
    dailyClickLimit: body.maxclicks,
    frequencyCap: body.frequencyCap,
    schedule: body.schedule,
    timeZone: body.timeZone,
    startsAt: body.startsAt,
    endsAt: body.endsAt,
    totalBudget: body.totalBudget,
    pacing: body.pacing,
    devices: body.devices,
    os: body.os,
    browsers: body.browsers,
    siteAllow: body.siteAllow,
    siteBlock: body.siteBlock,
  };
}

const statsQuery = (query: { dateFrom?: string; dateTo?: string; targetId?: number }) => ({
  period: readPeriod({ from: query.dateFrom, to: query.dateTo }),
  targetId: (query.targetId ?? 0) as TargetId,
});

/** Advertiser campaigns: list, read (with their ads), create, switch on/off and archive. */
export function registerCampaignRoutes(app: App, context: AppContext): void {
  const { db, clock } = context;
  const platformTimeZone = context.config.timeZone;
  const tags = ['Campaigns'];

  app.get(
    '/api/advertiser/campaigns',
    {
      schema: {
        tags,
        operationId: 'listCampaigns',
        summary: 'The advertiser’s campaigns with statistics (lifetime, or for dateFrom–dateTo).',
        querystring: CampaignListQuery,
        response: { 200: Type.Array(CampaignSchema), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const { query } = request;
      const { period, targetId } = statsQuery(query);
      const ids = selectedCampaignIds(query.id, query.filter?.id);
      const advertiserId = accountOf(request);
      return listPage(request, reply, async (limit, offset) => {
        const { campaigns, total } = await listCampaignsWithStats(db, {
          advertiserId,
          retarget: query.type === undefined ? undefined : query.type === 1,
          includeArchived: query.archived === 0,
          ids,
          search: query.q?.trim() || undefined,
          sort: readSort(query.sort, { field: 'id' as CampaignSortField, descending: false }),
          period,
          targetId,
          limit,
          offset,
        });
        return { rows: campaigns, total };
      });
    },
  );

  app.get(
    '/api/advertiser/campaigns/:id',
    {
      schema: {
        tags,
        operationId: 'getCampaign',
        summary: 'One campaign with statistics; `expand=offers` embeds its ads with theirs.',
        params: IdParams,
        querystring: CampaignQuery,
        response: { 200: CampaignWithOffers, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { query } = request;
      const { period, targetId } = statsQuery(query);
      const { row, campaign } = await getCampaignWithStats(db, accountOf(request), request.params.id, period, targetId);
      if (!readExpand(request, ['offers']).has('offers')) return campaign;
      const { offers, totals } = await offersOfCampaign(db, row, query, period, targetId);
      return { ...campaign, offers: offers.map((offer) => toAd(request, offer, totals(offer.id))) };
    },
  );

  app.post(
    '/api/advertiser/campaigns',
    {
      schema: {
        tags,
        operationId: 'createCampaign',
        summary: 'Create a campaign (extension); it awaits moderation (status 0).',
        body: CreateCampaignBody,
        response: { 201: CampaignSchema, ...errorResponses(401, 403, 422) },
      },
      config: {
        fieldRules: (request) => campaignFieldErrors(db, toCampaignInput(uncheckedBody(request)), platformTimeZone),
        idempotent: true,
      },
    },
    async (request, reply) => {
      const campaign = await createCampaign(
        requestDb(request, db),
        accountOf(request),
        toCampaignInput(request.body),
        new Date(clock.now()),
        platformTimeZone,
      );
      return created(request, reply, `/api/advertiser/campaigns/${campaign.id}`, campaign);
    },
  );

  app.put(
    '/api/advertiser/campaigns/:id',
    {
      schema: {
        tags,
        operationId: 'updateCampaign',
        summary:
          'Switch a campaign on or off (`active`), archive or restore it (`archived`), change its daily limits (`maxmoney`, `maxclicks`), rename it (`title`), change its countries (`geo`), set or clear its frequency cap, schedule, time zone, flight dates, lifetime budget, pacing, OS and browser targets and site lists: none of these sends it back to moderation. A new category (`category_id`) does.',
        params: IdParams,
        body: EditCampaignBody,
        response: { 200: CampaignSchema, ...errorResponses(401, 403, 404, 422) },
      },
      config: {
        fieldRules: async (request) =>
          campaignChangeFieldErrors(toCampaignChange(uncheckedBody<ChangeCampaignFields>(request)), platformTimeZone),
      },
    },
    async (request) =>
      changeCampaign(
        db,
        accountOf(request),
        request.params.id,
        toCampaignChange(request.body),
        new Date(clock.now()),
        platformTimeZone,
      ),
  );
}
