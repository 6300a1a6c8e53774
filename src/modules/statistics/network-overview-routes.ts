import { type Static, Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import { Text } from '../../http/input-types.ts';
import type { App } from '../../http/routes.ts';
import { errorResponses } from '../../http/schemas.ts';
import { microsToAmount } from '../../money.ts';
import { type FigureRow, networkTotals, topAdvertisers, topSites } from './network-overview-repository.ts';
import { readPeriod } from './period.ts';
import { dayOf } from './vocabulary.ts';

/** The period an overview covers when none is asked for: the last 30 days, today included. */
const DEFAULT_DAYS = 30;
const TOP = 10;

const OverviewQuery = Type.Object({
  dateFrom: Type.Optional(Text('First day, YYYY-MM-DD (inclusive, platform time zone). None: 29 days before `dateTo`.')),
  dateTo: Type.Optional(Text('Last day, YYYY-MM-DD (inclusive, platform time zone). None: today.')),
});

const figureProperties = {
  spend: Type.Number({ description: 'What advertisers were charged, net of refunds, in currency units.' }),
  earnings: Type.Number({ description: 'What publishers earned, net of refunds, in currency units.' }),
  margin: Type.Number({ description: 'The platform’s share: spend minus earnings.' }),
  served: Type.Integer({ description: 'Teasers served.' }),
  views: Type.Integer({ description: 'Teasers viewed (half visible for a second).' }),
  clicks: Type.Integer({ description: 'Clicks billed or refused.' }),
  invalidClicks: Type.Integer({ description: 'Invalid clicks: refused on arrival plus refunded after billing.' }),
};

const NetworkOverviewSchema = Type.Object(
  {
    dateFrom: Type.String({ format: 'date', description: 'The first day of the period.' }),
    dateTo: Type.String({ format: 'date', description: 'The last day of the period.' }),
    ...figureProperties,
    topSites: Type.Array(
      Type.Object({
        id: Type.Integer({ description: 'Site id.' }),
        url: Type.String({ description: 'Its address.' }),
        userId: Type.Integer({ description: 'Its publisher.' }),
        ...figureProperties,
      }),
      { description: `The ${TOP} sites with the most spend on them in the period, most first.` },
    ),
    topAdvertisers: Type.Array(
      Type.Object({
        id: Type.Integer({ description: 'Advertiser id.' }),
        name: Type.String({ description: 'Its name (its login when it has none).' }),
        ...figureProperties,
      }),
      { description: `The ${TOP} advertisers that spent most in the period, most first.` },
    ),
  },
  { description: 'The network in one period: money, traffic, invalid traffic, top sites and advertisers.' },
);

function figures(row: FigureRow) {
  const spend = Number(row.spend);
  const earnings = Number(row.earnings);
  return {
    spend: microsToAmount(spend),
    earnings: microsToAmount(earnings),
    margin: microsToAmount(spend - earnings),
    served: Number(row.served),
    views: Number(row.views),
    clicks: Number(row.clicks),
    invalidClicks: Number(row.invalid_clicks),
  };
}

/** The operators' overview of the network (docs/operating.md, "Network overview"). */
export function registerNetworkOverviewRoutes(app: App, context: AppContext): void {
  const { db, clock, config } = context;
  app.get(
    '/api/admin/overview',
    {
      schema: {
        tags: ['Operator'],
        operationId: 'adminNetworkOverview',
        summary: `The network in a period (default the last ${DEFAULT_DAYS} days): spend, publisher earnings, margin, traffic, invalid clicks, top sites and advertisers (extension).`,
        querystring: OverviewQuery,
        response: { 200: NetworkOverviewSchema, ...errorResponses(401, 403, 422) },
      },
    },
    async (request): Promise<Static<typeof NetworkOverviewSchema>> => {
      const today = dayOf(clock.now(), config.timeZone);
      const asked = readPeriod({ from: request.query.dateFrom, to: request.query.dateTo });
      const to = asked.to ?? (asked.from !== undefined && asked.from > today ? asked.from : today);
      const from = asked.from ?? new Date(Date.parse(to) - (DEFAULT_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
      const [totals, sites, advertisers] = await Promise.all([
        networkTotals(db, from, to),
        topSites(db, from, to, TOP),
        topAdvertisers(db, from, to, TOP),
      ]);
      return {
        dateFrom: from,
        dateTo: to,
        ...figures(totals),
        topSites: sites.map((row) => ({ id: row.id, url: row.url, userId: row.account_id, ...figures(row) })),
        topAdvertisers: advertisers.map((row) => ({ id: row.id, name: row.name, ...figures(row) })),
      };
    },
  );
}
