import type { AppContext } from '../../app-context.ts';
import { notFound } from '../../errors.ts';
import { type App, accountOf } from '../../http/routes.ts';
import { errorResponses } from '../../http/schemas.ts';
import { ownCampaignIds } from '../advertiser/index.ts';
import { ownSiteIds } from '../publisher/index.ts';
import { readPeriod } from '../statistics/index.ts';
import {
  AdvertiserInvalidTrafficQuery,
  AdvertiserInvalidTrafficSchema,
  PublisherInvalidTrafficQuery,
  PublisherInvalidTrafficSchema,
  toAdvertiserInvalidTraffic,
  toPublisherInvalidTraffic,
} from './invalid-traffic-schema.ts';
import { invalidTrafficOf } from './invalid-traffic-service.ts';

/** What advertisers and publishers see of invalid traffic: the clicks kept from being paid, by reason. */
export function registerInvalidTrafficRoutes(app: App, context: AppContext): void {
  const { db, config } = context;

  app.get(
    '/api/advertiser/invalid-traffic',
    {
      schema: {
        tags: ['Statistics'],
        operationId: 'getAdvertiserInvalidTraffic',
        summary:
          'Invalid clicks filtered out of the advertiser’s traffic over a period, by reason: refused on arrival (never charged) and refunded after billing (extension).',
        querystring: AdvertiserInvalidTrafficQuery,
        response: { 200: AdvertiserInvalidTrafficSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { query } = request;
      const period = readPeriod({ from: query.dateFrom, to: query.dateTo });
      const advertiserId = accountOf(request);
      const { campaignId } = query;
      if (campaignId !== undefined && (await ownCampaignIds(db, advertiserId, [campaignId])).length === 0) {
        throw notFound('Campaign');
      }
      const rows = await invalidTrafficOf(db, { advertiserId, campaignId }, period, config.timeZone);
      return {
        dateFrom: period.from ?? null,
        dateTo: period.to ?? null,
        campaignId: campaignId ?? null,
        ...toAdvertiserInvalidTraffic(rows),
      };
    },
  );

  app.get(
    '/api/webmaster/invalid-traffic',
    {
      schema: {
        tags: ['Publisher'],
        operationId: 'getPublisherInvalidTraffic',
        summary:
          'Clicks on the publisher’s sites that were not paid over a period, and why: refused on arrival, or refunded with the income taken back (extension).',
        querystring: PublisherInvalidTrafficQuery,
        response: { 200: PublisherInvalidTrafficSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { query } = request;
      const period = readPeriod({ from: query.dateFrom, to: query.dateTo });
      const publisherId = accountOf(request);
      const { siteId } = query;
      if (siteId !== undefined && !(await ownSiteIds(db, publisherId, [siteId])).has(siteId)) throw notFound('Site');
      const rows = await invalidTrafficOf(db, { publisherId, siteId }, period, config.timeZone);
      return {
        dateFrom: period.from ?? null,
        dateTo: period.to ?? null,
        siteId: siteId ?? null,
        ...toPublisherInvalidTraffic(rows),
      };
    },
  );
}
