import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { readExpand } from '../../../http/expand.ts';
import { readMoney } from '../../../http/money-input.ts';
import { listPage, pageParameters } from '../../../http/pagination.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses, Flag, IdParams, MoneyInput } from '../../../http/schemas.ts';
import { created } from '../../../http/urls.ts';
import { readPeriod } from '../../statistics/period.ts';
import { AdSchema, toAd } from '../offers/offer-schema.ts';
import type { TargetId } from '../statistics/advertiser-stats-repository.ts';
import { TargetIdParameter } from '../statistics/filters.ts';
import { CampaignSchema, campaignWithOffers } from './campaign-schema.ts';
import {
  changeCampaign,
  createCampaign,
  getCampaignWithStats,
  listCampaignsWithStats,
  offersOfCampaign,
  selectedCampaignIds,
} from './campaign-service.ts';

const periodParameters = {
  dateFrom: Type.Optional(Type.String({ description: 'First day of the statistics period (inclusive), YYYY-MM-DD.' })),
  dateTo: Type.Optional(Type.String({ description: 'Last day of the statistics period (inclusive), YYYY-MM-DD.' })),
  targetId: TargetIdParameter,
};

const selectionParameters = {
  type: Type.Optional(Type.Integer({ minimum: 1, maximum: 2, description: 'Campaign type: 1 retargeting, 2 standard.' })),
  archived: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 1, description: 'Archived campaigns: 0 included, 1 not included (default).' }),
  ),
};

const CampaignListQuery = Type.Object({
  ...pageParameters,
  ...periodParameters,
  ...selectionParameters,
  id: Type.Optional(Type.String({ description: 'Only these campaigns: comma-separated ids.' })),
  filter: Type.Optional(
    Type.Object(
      { id: Type.Optional(Type.String({ description: 'Only these campaigns: comma-separated ids.' })) },
      { description: '`filter[id]`: the same as `id`.' },
    ),
  ),
});

const CampaignQuery = Type.Object({
  ...periodParameters,
  ...selectionParameters,
  expand: Type.Optional(Type.String({ description: '`offers` embeds the campaign’s ads.' })),
});

const CreateCampaignBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 255, description: 'Title.' }),
    category_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'A root product category.' }),
    geo: Type.Optional(
      Type.Union([Type.Array(Type.String({ maxLength: 8 }), { maxItems: 300 }), Type.String({ maxLength: 2000 })], {
        description:
          'Targeted countries: ISO 3166-1 alpha-2 codes as an array or a comma-separated string; empty means everywhere.',
      }),
    ),
    isRetarget: Type.Optional(Flag('Whether it is a retargeting campaign (default false).')),
    maxmoney: Type.Optional(MoneyInput('Daily spending limit; 0 (default) means none.')),
    maxclicks: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'Daily click limit; 0 (default) means none.' }),
    ),
    active: Type.Optional(Flag('Activity flag (default true).')),
  },
  { additionalProperties: false },
);

const ChangeCampaignBody = Type.Object(
  {
    active: Type.Optional(Flag('Switch the campaign on (true) or off (false).')),
    archived: Type.Optional(Flag('Archive (true) or restore (false) the campaign (extension).')),
  },
  { additionalProperties: false },
);

const CampaignWithOffers = campaignWithOffers(AdSchema);

const statsQuery = (query: { dateFrom?: string; dateTo?: string; targetId?: number }) => ({
  period: readPeriod({ from: query.dateFrom, to: query.dateTo }),
  targetId: (query.targetId ?? 0) as TargetId,
});

/** Advertiser campaigns: list, read (with their ads), create, switch on/off and archive. */
export function registerCampaignRoutes(app: App, context: AppContext): void {
  const { db, clock } = context;
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
    },
    async (request, reply) => {
      const { body } = request;
      const dailyBudgetMicros = body.maxmoney === undefined ? 0 : readMoney(body.maxmoney, 'maxmoney', { sign: 'non-negative' });
      const campaign = await createCampaign(
        db,
        accountOf(request),
        {
          title: body.title,
          categoryId: body.category_id,
          geo: body.geo,
          isRetarget: body.isRetarget,
          active: body.active,
          dailyBudgetMicros,
          dailyClickLimit: body.maxclicks,
        },
        new Date(clock.now()),
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
        summary: 'Switch a campaign on or off (`active`), archive or restore it (`archived`).',
        params: IdParams,
        body: ChangeCampaignBody,
        response: { 200: CampaignSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => changeCampaign(db, accountOf(request), request.params.id, request.body, new Date(clock.now())),
  );
}
