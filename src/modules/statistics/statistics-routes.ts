import { Type } from '@sinclair/typebox';
import { Text } from '../../http/input-types.ts';
import { accountOf, type RegisterRoutes } from '../../http/routes.ts';
import { errorResponses, Flag } from '../../http/schemas.ts';
import { figureProperties, publisherFigureFields } from './figures.ts';
import type { AdvertiserObjects, PublisherObjects } from './owned-objects.ts';
import { readPeriod, requireHourlyPeriod } from './period.ts';
import { advertiserStatistics, publisherStatistics } from './statistics-service.ts';
import { dayOf, readIdList, type TargetId, TargetIdParameter } from './vocabulary.ts';

const filterText = (description: string) => Type.Optional(Text(description));

const StatisticsQuery = Type.Object({
  scope: Type.Optional(
    Type.Union([Type.Literal('campaigns'), Type.Literal('offers')], {
      description: 'Absent (or `campaigns`): campaign statistics; `offers`: ad statistics, one row per ad.',
    }),
  ),
  filter: Type.Optional(
    Type.Object(
      {
        dateFrom: filterText('`filter[dateFrom]`: first day (inclusive), YYYY-MM-DD.'),
        dateTo: filterText('`filter[dateTo]`: last day (inclusive), YYYY-MM-DD.'),
        date: filterText('`filter[date]`: one exact day, YYYY-MM-DD (ads; required with filter[campaignId]).'),
        id: filterText('`filter[id]`: campaign ids, comma-separated (summed); with scope=offers one ad id.'),
        campaignId: filterText('`filter[campaignId]`: the ads of one campaign (scope=offers; needs filter[date]).'),
      },
      { description: 'Filters, written `filter[name]=value`.' },
    ),
  ),
  groupDate: Type.Optional(Flag('One row per day that has data instead of one row for the whole period.')),
  groupHour: Type.Optional(
    Flag(
      'One row per hour that has data (extension; `date` is its day, `hour` its hour in the platform time zone). Needs a period of at most 7 days: filter[dateFrom] and filter[dateTo], or filter[date].',
    ),
  ),
  targetId: TargetIdParameter,
});

const AdvertiserStatisticsRowSchema = Type.Object(
  {
    id: Type.Optional(Type.Integer({ description: 'The ad (scope=offers only).' })),
    date: Type.String({
      description: 'The day (YYYY-MM-DD) with groupDate; otherwise the ISO 8601 interval of the period, YYYY-MM-DD/YYYY-MM-DD.',
    }),
    hour: Type.Optional(Type.Integer({ description: 'The hour of `date`, 0–23 in the platform time zone (groupHour only).' })),
    ...figureProperties,
  },
  { description: 'Campaign Statistics / Ad Stats: one period or one day.' },
);

/** GET /advertiser/statistics: campaign statistics, or ad statistics with scope=offers (`objects`: which are the caller's). */
export const advertiserStatisticsRoutes =
  (objects: AdvertiserObjects): RegisterRoutes =>
  (app, context) => {
    const { db, clock, config } = context;
    app.get(
      '/api/advertiser/statistics',
      {
        schema: {
          tags: ['Statistics'],
          operationId: 'getAdvertiserStatistics',
          summary: 'Campaign statistics (summed over filter[id]) or, with scope=offers, statistics per ad.',
          querystring: StatisticsQuery,
          response: { 200: Type.Array(AdvertiserStatisticsRowSchema), ...errorResponses(401, 403, 404, 422) },
        },
      },
      async (request) => {
        const { query } = request;
        return advertiserStatistics(db, objects, {
          advertiserId: accountOf(request),
          scope: query.scope ?? 'campaigns',
          filter: query.filter ?? {},
          groupDate: query.groupDate ?? false,
          groupHour: query.groupHour ?? false,
          targetId: (query.targetId ?? 0) as TargetId,
          today: dayOf(clock.now(), config.timeZone),
        });
      },
    );
  };

const StatisticQuery = Type.Object({
  dateFrom: Type.Optional(Text('First day, YYYY-MM-DD (inclusive). None: from the first day with data.')),
  dateTo: Type.Optional(Text('Last day, YYYY-MM-DD (inclusive). None: up to today.')),
  siteIds: Type.Optional(Text('Comma-separated ids of own sites; only their traffic counts.')),
  blockIds: Type.Optional(Text('Comma-separated ids of own blocks; only their traffic counts.')),
  groupHour: Type.Optional(
    Flag(
      'One row per hour that has traffic (extension; `hour` is its hour in the platform time zone). Needs dateFrom and dateTo at most 7 days apart.',
    ),
  ),
});

const PublisherStatisticsRowSchema = Type.Object(
  {
    date: Type.String({ format: 'date', description: 'The day, ISO 8601 (YYYY-MM-DD, platform time zone).' }),
    hour: Type.Optional(Type.Integer({ description: 'The hour of `date`, 0–23 in the platform time zone (groupHour only).' })),
    ...publisherFigureFields,
  },
  { description: "One day of the publisher's statistics." },
);

/** GET /webmaster/statistic: the publisher's statistics per day or hour (`objects`: which sites and blocks are the caller's). */
export const publisherStatisticsRoutes =
  (objects: PublisherObjects): RegisterRoutes =>
  (app, context) => {
    const { db } = context;

    app.get(
      '/api/webmaster/statistic',
      {
        schema: {
          tags: ['Publisher'],
          operationId: 'getPublisherStatistics',
          summary: "The publisher's statistics, one row per day (or with groupHour per hour) that has traffic, oldest first.",
          querystring: StatisticQuery,
          response: { 200: Type.Array(PublisherStatisticsRowSchema), ...errorResponses(401, 403, 404, 422) },
        },
      },
      async (request) => {
        const { query } = request;
        const period = readPeriod({ from: query.dateFrom, to: query.dateTo });
        const hourly = query.groupHour ?? false;
        if (hourly) requireHourlyPeriod(period, 'groupHour', { from: 'dateFrom', to: 'dateTo' });
        const siteIds = readIdList(query.siteIds, 'siteIds');
        const blockIds = readIdList(query.blockIds, 'blockIds');
        return publisherStatistics(db, objects, accountOf(request), { period, siteIds, blockIds, hourly });
      },
    );
  };
