import { Readable } from 'node:stream';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { Text } from '../../http/input-types.ts';
import { type App, accountOf } from '../../http/routes.ts';
import { errorResponses } from '../../http/schemas.ts';
import { ledgerPeriod, ledgerPeriodParameters } from '../ledger/index.ts';
import { readPeriod } from '../statistics/index.ts';
import type { Owner } from './export-repository.ts';
import {
  CLICK_COLUMNS,
  clicksExport,
  LEDGER_COLUMNS,
  ledgerStatement,
  readCampaignFilter,
  readGroupings,
  statisticsExport,
} from './export-service.ts';
import { CONTENT_TYPES, EXPORT_FORMATS, type ExportFormat, type FileColumn, type FileRow, fileChunks } from './table-file.ts';

const formatParameter = Type.Optional(
  Type.Union(
    EXPORT_FORMATS.map((format) => Type.Literal(format)),
    {
      description:
        'The file format: `csv` (RFC 4180, UTF-8, header line, a field quoted when it holds a comma, quote or line break, a text that starts with `=`, `+`, `-`, `@`, tab or carriage return prefixed with a single quote so that spreadsheets show it as text; the default) or `parquet` (one row group per 5000 rows, Snappy). The Accept header does not apply: the answer is a file.',
    },
  ),
);
const periodParameters = {
  dateFrom: Type.Optional(Text('First day, YYYY-MM-DD (platform time zone); none: from the first day with data.')),
  dateTo: Type.Optional(Text('Last day, inclusive; none: up to today.')),
};
const StatisticsExportQuery = Type.Object({
  format: formatParameter,
  ...periodParameters,
  groupBy: Type.Optional(
    Text(
      'Comma-separated groupings, in any order: day, campaign, ad, site, block, device, country (publishers: day, site, block, device, country). Columns come in that order; none: one row of totals. Default `day`.',
      { maxLength: 100 },
    ),
  ),
});
const campaignIdsParameter = Type.Optional(
  Text(
    "Comma-separated ids of the account's campaigns to include; none: every campaign. An unknown id or another account's is a 404.",
    { maxLength: 1000 },
  ),
);
const AdvertiserStatisticsExportQuery = Type.Object({
  ...StatisticsExportQuery.properties,
  campaignIds: campaignIdsParameter,
});
const ClicksExportQuery = Type.Object({ format: formatParameter, ...periodParameters, campaignIds: campaignIdsParameter });

const fileResponse = (description: string) => ({
  description,
  content: {
    [CONTENT_TYPES.csv]: { schema: Type.Unsafe<Readable>({ type: 'string' }) },
    [CONTENT_TYPES.parquet]: { schema: Type.Unsafe<Readable>({ type: 'string', format: 'binary' }) },
  },
});

/** Chunks read before the answer starts: the file's head and its first page of rows. */
const CHUNKS_BEFORE_ANSWER = 2;

/**
 * Streams the rows as a file, each page as the client reads it (backpressure). The head and the
 * first page are made before the status is sent, so a failure there is an ordinary error answer,
 * not a 200 with a header line alone. A failure later, with the 200 sent, destroys the stream:
 * the connection is cut without the end of the chunked body, so no client takes the part it got
 * for a whole file.
 */
async function sendFile(
  reply: FastifyReply,
  file: { name: string; format: ExportFormat; columns: readonly FileColumn[]; pages: AsyncIterable<FileRow[]> },
): Promise<Readable> {
  const chunks = fileChunks(file.format, file.columns, file.pages);
  const first: Buffer[] = [];
  for (let index = 0; index < CHUNKS_BEFORE_ANSWER; index++) {
    const next = await chunks.next();
    if (next.done === true) break;
    first.push(next.value);
  }
  reply.header('Cache-Control', 'no-store');
  reply.header('Content-Disposition', `attachment; filename="${file.name}.${file.format}"`);
  reply.type(CONTENT_TYPES[file.format]);
  async function* all(): AsyncGenerator<Buffer> {
    yield* first;
    yield* chunks;
  }
  return Readable.from(all(), { objectMode: false });
}

/** Statistics (advertisers and publishers) and the click log (advertisers) as streamed CSV or Parquet files. */
export function registerExportRoutes(app: App, context: AppContext): void {
  const { db, clock, config } = context;
  const tags = ['Export'];

  const statistics = (
    querystring: typeof StatisticsExportQuery | typeof AdvertiserStatisticsExportQuery,
    owner: (accountId: number, query: Static<typeof AdvertiserStatisticsExportQuery>) => Promise<Owner>,
    operationId: string,
    prefix: string,
  ) =>
    app.get(
      `${prefix}/statistics/export`,
      {
        schema: {
          tags,
          operationId,
          summary: 'Statistics for a period and grouping as a CSV or Parquet file, streamed.',
          description:
            'Read from the daily rollup. Columns: each grouping in the order day, campaign, ad, site, block, device, country, the ids of campaign, ad, site and block each followed by its name (`campaign_title`, `ad_title`, `site_domain`, `block_title`; as they are now, read in the same statement as the figures; `(deleted)` for a place whose row is gone, `(none)` for block 0); then advertisers’ `served, views, clicks, spend, conversions_purchase, conversions_registration, conversions_intermediate, refunded_clicks, refunded_spend` or publishers’ `served, views, clicks, income, refunded_clicks, refunded_income`. Counters are whole numbers. Money is in currency units and exact, every micro kept (the JSON statistics round to 4 fraction digits): in CSV as decimal text with up to 6 fraction digits (`0.007`, `12.5`); in Parquet as DECIMAL(18,6) on INT64, whose stored integer is the amount in micros. Rows come in the order of the groupings. Errors in the parameters are answered as usual (JSON or XML) before the file starts.',
          querystring,
          response: {
            200: fileResponse('The statistics file (Content-Disposition: attachment).'),
            ...errorResponses(401, 403, 404, 422),
          },
        },
      },
      async (request, reply) => {
        const query = request.query;
        const period = readPeriod({ from: query.dateFrom, to: query.dateTo });
        const who = await owner(accountOf(request), query);
        const groups = readGroupings(query.groupBy, who);
        const format = query.format ?? 'csv';
        const { columns, pages } = statisticsExport(db, {
          owner: who,
          period,
          groups,
          timeZone: config.timeZone,
          now: clock.now(),
        });
        return sendFile(reply, { name: 'nativa-statistics', format, columns, pages });
      },
    );
  statistics(
    AdvertiserStatisticsExportQuery,
    async (advertiserId, query) => ({ advertiserId, campaignIds: await readCampaignFilter(db, advertiserId, query.campaignIds) }),
    'exportAdvertiserStatistics',
    '/api/advertiser',
  );
  statistics(StatisticsExportQuery, async (publisherId) => ({ publisherId }), 'exportPublisherStatistics', '/api/webmaster');

  app.get(
    '/api/advertiser/clicks/export',
    {
      schema: {
        tags,
        operationId: 'exportClicks',
        summary:
          'Settled clicks of the period (every campaign, or those asked for) as a CSV or Parquet file, streamed, oldest first.',
        description:
          'Columns: time (ISO 8601, UTC), click_id, campaign, campaign_title, ad, ad_title, site, site_domain, block, block_title (names as they are now, read in the same statement; `(deleted)` for a place whose row is gone, `(none)` for block 0), device, country, outcome (`billed` or `refused`), reason (empty when billed; `bot` the fraud filter, `limit` a daily click or budget limit, `funds` the balance did not cover it), charge (currency units, exact: CSV decimal text with up to 6 fraction digits, Parquet DECIMAL(18,6) on INT64 holding the micros).',
        querystring: ClicksExportQuery,
        response: {
          200: fileResponse('The click log (Content-Disposition: attachment).'),
          ...errorResponses(401, 403, 404, 422),
        },
      },
    },
    async (request, reply) => {
      const period = readPeriod({ from: request.query.dateFrom, to: request.query.dateTo });
      const advertiserId = accountOf(request);
      const pages = await clicksExport(db, {
        advertiserId,
        campaignIds: await readCampaignFilter(db, advertiserId, request.query.campaignIds),
        period,
        timeZone: config.timeZone,
        now: clock.now(),
      });
      return sendFile(reply, { name: 'nativa-clicks', format: request.query.format ?? 'csv', columns: CLICK_COLUMNS, pages });
    },
  );

  app.get(
    '/api/me/ledger/export',
    {
      schema: {
        tags,
        operationId: 'exportOwnLedger',
        summary: 'The account’s own balance moves of a period as a CSV or Parquet file, oldest first (a statement).',
        description:
          'Columns: date (ISO 8601, UTC), kind, amount and balance (after the move) in currency units as decimal text, reference, comment.',
        querystring: Type.Object({ format: formatParameter, ...ledgerPeriodParameters }),
        response: { 200: fileResponse('The statement (Content-Disposition: attachment).'), ...errorResponses(401, 422) },
      },
    },
    async (request, reply) => {
      const accountId = accountOf(request);
      const period = ledgerPeriod(request.query);
      const pages = ledgerStatement(db, accountId, period);
      return sendFile(reply, { name: 'nativa-statement', format: request.query.format ?? 'csv', columns: LEDGER_COLUMNS, pages });
    },
  );
}
