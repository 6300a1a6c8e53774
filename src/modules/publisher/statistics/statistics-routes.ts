import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { Text } from '../../../http/input-types.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses, Flag } from '../../../http/schemas.ts';
import { readPeriod, requireHourlyPeriod } from '../../statistics/period.ts';
import { publisherFigureFields } from './figures.ts';
import { parseIdList, publisherStatistics } from './statistics-service.ts';

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

export const StatisticsRowSchema = Type.Object(
  {
    date: Type.String({ format: 'date', description: 'The day, ISO 8601 (YYYY-MM-DD, platform time zone).' }),
    hour: Type.Optional(Type.Integer({ description: 'The hour of `date`, 0–23 in the platform time zone (groupHour only).' })),
    ...publisherFigureFields,
  },
  { description: "One day of the publisher's statistics." },
);

export function registerStatisticsRoutes(app: App, context: AppContext): void {
  const { db } = context;

  app.get(
    '/api/webmaster/statistic',
    {
      schema: {
        tags: ['Publisher'],
        operationId: 'getPublisherStatistics',
        summary: "The publisher's statistics, one row per day (or with groupHour per hour) that has traffic, oldest first.",
        querystring: StatisticQuery,
        response: { 200: Type.Array(StatisticsRowSchema), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { query } = request;
      const period = readPeriod({ from: query.dateFrom, to: query.dateTo });
      const hourly = query.groupHour ?? false;
      if (hourly) requireHourlyPeriod(period, 'groupHour', { from: 'dateFrom', to: 'dateTo' });
      const siteIds = parseIdList(query.siteIds, 'siteIds');
      const blockIds = parseIdList(query.blockIds, 'blockIds');
      return publisherStatistics(db, accountOf(request), { period, siteIds, blockIds, hourly });
    },
  );
}
