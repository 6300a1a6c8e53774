import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { notFound } from '../../../errors.ts';
import { Count, Id, Text } from '../../../http/input-types.ts';
import { pageParameters, slicePage } from '../../../http/pagination.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses } from '../../../http/schemas.ts';
import type { TargetId } from '../../statistics/index.ts';
import { readPeriod } from '../../statistics/index.ts';
import { CoefficientSchema, DeviceStatisticsSchema, SiteStatisticsSchema } from './coefficient-schema.ts';
import {
  campaignSiteCoefficients,
  deviceStatistics,
  setDeviceCoefficient,
  setSiteCoefficient,
  siteFigures,
  siteStatistics,
  targetSiteCoefficients,
} from './coefficient-service.ts';
import { parseDevice, parseSiteTarget } from './targets.ts';

const CampaignId = Id('Campaign id.');
const CampaignParams = Type.Object({ campaign: CampaignId });
const SiteParams = Type.Object({
  campaign: CampaignId,
  id: Text('Site id `123` (the whole site) or `123s45` (block 45 of site 123).', { pattern: '^\\d{1,10}(s\\d{1,10})?$' }),
});
const DeviceParams = Type.Object({
  campaign: CampaignId,
  type: Text('Device type: desktop, mobile, tablet (or 1, 2, 3).', { maxLength: 16 }),
});

const CoefBody = Type.Object(
  { coef: Type.Number({ minimum: 0.1, maximum: 10, description: 'Coefficient, from 0.1 to 10 (4 fraction digits kept).' }) },
  { additionalProperties: false },
);

const statisticsFilters = {
  dateFrom: Type.Optional(Text('First day, ISO 8601 (YYYY-MM-DD), platform time zone; none: from the start.')),
  dateTo: Type.Optional(Text('Last day, inclusive; none: up to now.')),
  targetId: Type.Optional(
    Count('Conversions counted as orders: 0 all, 1 purchase, 2 registration, 3 intermediate goal.', { maximum: 3 }),
  ),
};
const SiteStatisticsQuery = Type.Object({ ...pageParameters, ...statisticsFilters });
const DeviceStatisticsQuery = Type.Object(statisticsFilters);

const readFilters = (query: { dateFrom?: string; dateTo?: string; targetId?: number }) => ({
  period: readPeriod({ from: query.dateFrom, to: query.dateTo }),
  targetId: (query.targetId ?? 0) as TargetId,
});

/** Quality coefficients of a campaign per site, block and device type, and the statistics to set them by. */
export function registerCoefficientRoutes(app: App, context: AppContext): void {
  const { db, clock } = context;
  const tags = ['Quality coefficients'];
  const base = '/api/advertiser/campaigns/multipliers/:campaign';

  app.get(
    `${base}/site`,
    {
      schema: {
        tags,
        operationId: 'listSiteCoefficients',
        summary: 'Every site and block coefficient set for the campaign.',
        params: CampaignParams,
        querystring: Type.Object(pageParameters),
        response: { 200: Type.Array(CoefficientSchema), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const all = await campaignSiteCoefficients(db, accountOf(request), request.params.campaign);
      return slicePage(request, reply, all);
    },
  );

  app.get(
    `${base}/site/:id`,
    {
      schema: {
        tags,
        operationId: 'getSiteCoefficients',
        summary: 'The coefficients in force for a site (and its blocks) or for one block.',
        description:
          '`123`: the site’s own coefficient (1 when unset), then those set for its blocks. `123s45`: block 45 of site 123.',
        params: SiteParams,
        response: { 200: Type.Array(CoefficientSchema), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const { campaign, id } = request.params;
      const target = parseSiteTarget(id);
      if (target === undefined) throw notFound('Site');
      return targetSiteCoefficients(db, accountOf(request), campaign, target);
    },
  );

  app.put(
    `${base}/site/:id`,
    {
      schema: {
        tags,
        operationId: 'setSiteCoefficient',
        summary: 'Set the coefficient of a site (`123`) or of one of its blocks (`123s45`).',
        params: SiteParams,
        body: CoefBody,
        response: { 200: CoefficientSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { campaign, id } = request.params;
      const target = parseSiteTarget(id);
      if (target === undefined) throw notFound('Site');
      return setSiteCoefficient(db, {
        advertiserId: accountOf(request),
        campaignId: campaign,
        target,
        coef: request.body.coef,
        now: new Date(clock.now()),
      });
    },
  );

  app.put(
    `${base}/device/:type`,
    {
      schema: {
        tags,
        operationId: 'setDeviceCoefficient',
        summary: 'Set the coefficient of a device type.',
        params: DeviceParams,
        body: CoefBody,
        response: { 200: CoefficientSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { campaign, type } = request.params;
      const device = parseDevice(type);
      if (device === undefined) throw notFound('Device type');
      return setDeviceCoefficient(db, {
        advertiserId: accountOf(request),
        campaignId: campaign,
        device,
        coef: request.body.coef,
        now: new Date(clock.now()),
      });
    },
  );

  app.get(
    base,
    {
      schema: {
        tags,
        operationId: 'listCampaignSiteStatistics',
        summary: 'Site statistics of the campaign, with the coefficient of each site and block.',
        description:
          'One row per site that had traffic in the period or has a coefficient (`site_id` `123`, all its blocks), followed by one row per block with its own coefficient (`123s45`).',
        params: CampaignParams,
        querystring: SiteStatisticsQuery,
        response: { 200: Type.Array(SiteStatisticsSchema), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const rows = await siteStatistics(db, {
        advertiserId: accountOf(request),
        campaignId: request.params.campaign,
        ...readFilters(request.query),
      });
      return slicePage(request, reply, rows).map(siteFigures);
    },
  );

  app.get(
    `${base}/device`,
    {
      schema: {
        tags,
        operationId: 'listCampaignDeviceStatistics',
        summary: 'Device statistics of the campaign: desktop, mobile and tablet, with their coefficients.',
        params: CampaignParams,
        querystring: DeviceStatisticsQuery,
        response: { 200: Type.Array(DeviceStatisticsSchema), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      return deviceStatistics(db, {
        advertiserId: accountOf(request),
        campaignId: request.params.campaign,
        ...readFilters(request.query),
      });
    },
  );
}
