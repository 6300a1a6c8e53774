import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.ts';
import { invalidField } from '../../../http/errors.ts';
import { readExpand } from '../../../http/expand.ts';
import { pageParameters, readPage, setPaginationHeaders } from '../../../http/pagination.ts';
import { errorResponses, Flag, IdParams, MoneyInput } from '../../../http/schemas.ts';
import { created } from '../../../http/urls.ts';
import { parseMoney } from '../../../money.ts';
import { readPeriod } from '../../statistics/period.ts';
import { listOffersOfCampaign } from '../offers/offer-repository.ts';
import { AdSchema, toAd } from '../offers/offer-schema.ts';
import { offerTotals } from '../offers/offer-service.ts';
import type { TargetId } from '../statistics/advertiser-stats-repository.ts';
import { readIdList, TargetIdParameter } from '../statistics/filters.ts';
import { CampaignSchema, campaignWithOffers } from './campaign-schema.ts';
import { changeCampaign, createCampaign, getCampaignWithStats, listCampaignsWithStats } from './campaign-service.ts';
import { readGeo } from './geo.ts';

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

function readStatsQuery(request: FastifyRequest) {
  const query = request.query as { dateFrom?: string; dateTo?: string; targetId?: number };
  return { period: readPeriod({ from: query.dateFrom, to: query.dateTo }), targetId: (query.targetId ?? 0) as TargetId };
}

/** Advertiser campaigns: list, read (with their ads), create, switch on/off and archive. */
export function registerCampaignRoutes(app: FastifyInstance, context: AppContext): void {
  const { db, clock } = context;
  const tags = ['Campaigns'];
  const advertiserOf = (request: FastifyRequest) => request.principal?.accountId ?? 0;

  app.get(
    '/api/advertiser/campaigns',
    {
      schema: {
        tags,
        summary: 'The advertiser’s campaigns with statistics (lifetime, or for dateFrom–dateTo).',
        querystring: CampaignListQuery,
        response: { 200: Type.Array(CampaignSchema), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const query = request.query as Static<typeof CampaignListQuery>;
      const { period, targetId } = readStatsQuery(request);
      const idsFromFilter = readIdList(query.filter?.id, 'filter[id]');
      const idsFromQuery = readIdList(query.id, 'id');
      const ids =
        idsFromQuery && idsFromFilter ? idsFromQuery.filter((id) => idsFromFilter.includes(id)) : (idsFromQuery ?? idsFromFilter);
      const page = readPage(request);
      const { campaigns, total } = await listCampaignsWithStats(db, {
        advertiserId: advertiserOf(request),
        retarget: query.type === undefined ? undefined : query.type === 1,
        includeArchived: query.archived === 0,
        ids,
        period,
        targetId,
        limit: page.perPage,
        offset: page.offset,
      });
      setPaginationHeaders(request, reply, page, total);
      return campaigns;
    },
  );

  app.get(
    '/api/advertiser/campaigns/:id',
    {
      schema: {
        tags,
        summary: 'One campaign with statistics; `expand=offers` embeds its ads with theirs.',
        params: IdParams,
        querystring: CampaignQuery,
        response: { 200: CampaignWithOffers, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { id } = request.params as Static<typeof IdParams>;
      const query = request.query as Static<typeof CampaignQuery>;
      const { period, targetId } = readStatsQuery(request);
      const { row, campaign } = await getCampaignWithStats(db, advertiserOf(request), id, period, targetId);
      if (!readExpand(request, ['offers']).has('offers')) return campaign;
      // `type` and `archived` select ads by their campaign, as on the campaign list: the ads of an
      // archived campaign are listed only with archived=0, those of the other type not at all.
      const typeMatches = query.type === undefined || (query.type === 1) === row.is_retarget;
      const archiveMatches = query.archived === 0 || !row.archived;
      const offers = typeMatches && archiveMatches ? await listOffersOfCampaign(db, id) : [];
      const totals = await offerTotals(
        db,
        offers.map((offer) => offer.id),
        period,
        targetId,
      );
      return { ...campaign, offers: offers.map((offer) => toAd(request, offer, totals(offer.id))) };
    },
  );

  app.post(
    '/api/advertiser/campaigns',
    {
      schema: {
        tags,
        summary: 'Create a campaign (extension); it awaits moderation (status 0).',
        body: CreateCampaignBody,
        response: { 201: CampaignSchema, ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const body = request.body as Static<typeof CreateCampaignBody>;
      const dailyBudgetMicros = body.maxmoney === undefined ? 0 : parseMoney(body.maxmoney);
      if (dailyBudgetMicros === undefined || dailyBudgetMicros < 0) {
        throw invalidField('maxmoney', 'Must be a non-negative amount with at most 4 fraction digits.');
      }
      const id = await createCampaign(db, {
        advertiserId: advertiserOf(request),
        title: body.title.trim(),
        categoryId: body.category_id,
        geo: readGeo(body.geo),
        isRetarget: body.isRetarget ?? false,
        active: body.active ?? true,
        dailyBudgetMicros,
        dailyClickLimit: body.maxclicks ?? 0,
        now: new Date(clock.now()),
      });
      const { campaign } = await getCampaignWithStats(db, advertiserOf(request), id, { from: undefined, to: undefined }, 0);
      return created(request, reply, `/api/advertiser/campaigns/${id}`, campaign);
    },
  );

  app.put(
    '/api/advertiser/campaigns/:id',
    {
      schema: {
        tags,
        summary: 'Switch a campaign on or off (`active`), archive or restore it (`archived`).',
        params: IdParams,
        body: ChangeCampaignBody,
        response: { 200: CampaignSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { id } = request.params as Static<typeof IdParams>;
      const body = request.body as Static<typeof ChangeCampaignBody>;
      await changeCampaign(db, advertiserOf(request), id, body, new Date(clock.now()));
      const { campaign } = await getCampaignWithStats(db, advertiserOf(request), id, { from: undefined, to: undefined }, 0);
      return campaign;
    },
  );
}
