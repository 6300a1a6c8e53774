import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { Text } from '../../../http/input-types.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses, Flag } from '../../../http/schemas.ts';
import { dayOf } from '../../statistics/record-events.ts';
import { figureProperties } from '../campaigns/campaign-schema.ts';
import type { TargetId } from './advertiser-stats-repository.ts';
import { TargetIdParameter } from './filters.ts';
import { advertiserStatistics } from './statistics-service.ts';

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

const StatisticsRowSchema = Type.Object(
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

/** GET /advertiser/statistics: campaign statistics, or ad statistics with scope=offers. */
export function registerAdvertiserStatisticsRoutes(app: App, context: AppContext): void {
  const { db, clock, config } = context;
  app.get(
    '/api/advertiser/statistics',
    {
      schema: {
        tags: ['Statistics'],
        operationId: 'getAdvertiserStatistics',
        summary: 'Campaign statistics (summed over filter[id]) or, with scope=offers, statistics per ad.',
        querystring: StatisticsQuery,
        response: { 200: Type.Array(StatisticsRowSchema), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { query } = request;
      return advertiserStatistics(db, {
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
}
