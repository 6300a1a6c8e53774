import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import { Count, Text } from '../../http/input-types.ts';
import { listPage, pageParameters } from '../../http/pagination.ts';
import { actorOf, inRequestTransaction } from '../../http/request-write.ts';
import { type App, accountOf } from '../../http/routes.ts';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { ReasonSchema as RefundReasonSchema } from '../refunds/index.ts';
import { dayOf, readPeriod } from '../statistics/index.ts';
import { DIMENSIONS, type ShareRow, type SiteReviewRow } from './invalid-traffic-repository.ts';
import { OutcomeSchema, PeriodQuery, ReasonSchema } from './invalid-traffic-schema.ts';
import {
  actOnReview,
  evidenceOf,
  getSiteReview,
  invalidTrafficShares,
  REVIEW_ACTIONS,
  siteReviewPage,
} from './invalid-traffic-service.ts';

const tags = ['Operator'];

/** How many days the operators' figures cover when no period is given: the last week, today included. */
const DEFAULT_DAYS = 7;

const SharesQuery = Type.Object({
  ...PeriodQuery,
  by: Type.Optional(
    Type.Union(
      DIMENSIONS.map((dimension) => Type.Literal(dimension)),
      {
        description:
          'Broken down by `site` (default), `block`, `reason` (invalid clicks only), `network` (the address’s /24, IPv6 /48) or `day` (the trend).',
      },
    ),
  ),
  limit: Type.Optional(
    Count('At most this many rows (default 50, at most 500); days come in order, the others most invalid first.', {
      minimum: 1,
      maximum: 500,
    }),
  ),
});

const ShareRowSchema = Type.Object(
  {
    key: Type.String({ description: 'The site id, block id, reason, network (CIDR; empty: address not kept) or day.' }),
    siteId: Type.Union([Type.Integer(), Type.Null()], { description: 'The site (by=site and by=block), else null.' }),
    siteUrl: Type.Union([Type.String(), Type.Null()], { description: 'The site’s address (by=site and by=block), else null.' }),
    clicks: Type.Integer({ description: 'Every click recorded (by=reason: the invalid ones of that reason).' }),
    refusedClicks: Type.Integer({ description: 'Clicks refused on arrival as invalid.' }),
    refundedClicks: Type.Integer({ description: 'Billed clicks refunded as invalid since.' }),
    invalidShare: Type.Number({ description: 'Refused and refunded clicks per hundred clicks, percent (2 fraction digits).' }),
  },
  { description: 'One site, block, reason, network or day of the invalid-traffic figures.' },
);

const SharesSchema = Type.Object(
  {
    by: Type.String({ description: 'What the rows are broken down by.' }),
    dateFrom: Type.String({ format: 'date', description: 'The first day counted.' }),
    dateTo: Type.String({ format: 'date', description: 'The last day counted.' }),
    rows: Type.Array(ShareRowSchema, { description: 'The rows.' }),
  },
  { description: 'The platform’s invalid traffic over a period, by one dimension.' },
);

const EvidenceSchema = Type.Object(
  {
    outcome: OutcomeSchema,
    reason: ReasonSchema,
    clicks: Type.Integer({ description: 'Clicks of the site in the review’s period with this outcome and reason.' }),
  },
  { description: 'Invalid clicks of one outcome and reason, as counted when the site was flagged.' },
);

const ReviewSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Review id.' }),
    siteId: Type.Integer({ description: 'The flagged site.' }),
    siteUrl: Type.String({ description: 'The site’s address.' }),
    userId: Type.Integer({ description: 'The site’s publisher.' }),
    flaggedAt: Type.String({ format: 'date-time', description: 'When the review rule flagged it.' }),
    periodFrom: Type.String({ format: 'date-time', description: 'Start of the period the evidence covers.' }),
    periodTo: Type.String({ format: 'date-time', description: 'End of the period the evidence covers (exclusive).' }),
    clicks: Type.Integer({ description: 'The site’s clicks in the period.' }),
    invalidClicks: Type.Integer({ description: 'Refused or refunded among them.' }),
    invalidShare: Type.Number({ description: 'invalidClicks per hundred clicks, percent (2 fraction digits).' }),
    evidence: Type.Array(EvidenceSchema, { description: 'The invalid clicks by outcome and reason.' }),
    status: Type.Union([Type.Literal('open'), Type.Literal('banned'), Type.Literal('dismissed')], {
      description: '`open` (in the queue), `banned` (the site was banned) or `dismissed`.',
    }),
    actions: Type.Array(Type.String(), {
      description: 'The operators’ actions on it so far, oldest first (refund, warn, ban, dismiss).',
    }),
    closedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When it was closed; null while open.',
    }),
  },
  { description: 'A site in the invalid-traffic review queue, with the evidence.' },
);

const ReviewListQuery = Type.Object({
  ...pageParameters,
  status: Type.Optional(
    Type.Union([Type.Literal('open'), Type.Literal('closed')], { description: '`open` (default: every review) or `closed`.' }),
  ),
});

const ActionBody = Type.Object(
  {
    action: Type.Union(
      REVIEW_ACTIONS.map((action) => Type.Literal(action)),
      {
        description:
          '`refund`: refund the site’s billed clicks of the review’s period (as POST /admin/refunds by range); `ban`: ban the site (moderation status 2), its blocks stop serving; `warn`: tell the publisher, in its language; `dismiss`: close the review. `ban` and `dismiss` close it.',
      },
    ),
    reason: Type.Optional(RefundReasonSchema('refund: why the clicks are invalid (default publisher_fraud).')),
    comment: Type.Optional(
      Text('A note kept with the action in the audit trail (refund: also with the refund; ban: the moderation reason).', {
        maxLength: 500,
      }),
    ),
  },
  { additionalProperties: false },
);

const ActionResultSchema = Type.Object(
  {
    review: ReviewSchema,
    refundId: Type.Union([Type.Integer(), Type.Null()], { description: 'The refund made by `refund`; null otherwise.' }),
  },
  { description: 'The review after the action.' },
);

const EvaluationSchema = Type.Object(
  {
    flagged: Type.Array(
      Type.Object(
        {
          reviewId: Type.Integer({ description: 'The review opened.' }),
          siteId: Type.Integer({ description: 'The site flagged.' }),
        },
        { description: 'A site put in the queue.' },
      ),
      { description: 'Sites put in the queue by this run; empty when none reached the rule.' },
    ),
  },
  { description: 'What a run of the review rule flagged.' },
);

const share = (invalid: number, clicks: number) => (clicks > 0 ? Math.round((invalid / clicks) * 10_000) / 100 : 0);

function toShareRow(row: ShareRow, by: string) {
  const placed = by === 'site' || by === 'block';
  return {
    key: row.key,
    siteId: placed ? row.site_id : null,
    siteUrl: placed ? row.site_url : null,
    clicks: row.clicks,
    refusedClicks: row.refused,
    refundedClicks: row.refunded,
    invalidShare: by === 'reason' ? 100 : share(row.refused + row.refunded, row.clicks),
  };
}

function toReview(row: SiteReviewRow) {
  return {
    id: row.id,
    siteId: row.site_id,
    siteUrl: row.site_url,
    userId: row.publisher_id,
    flaggedAt: row.flagged_at.toISOString(),
    periodFrom: row.period_from.toISOString(),
    periodTo: row.period_to.toISOString(),
    clicks: row.clicks,
    invalidClicks: row.invalid_clicks,
    invalidShare: share(row.invalid_clicks, row.clicks),
    evidence: evidenceOf(row),
    status: row.status as 'open' | 'banned' | 'dismissed',
    actions: row.actions,
    closedAt: row.closed_at?.toISOString() ?? null,
  };
}

/** The operators' invalid-traffic page: figures by site, block, reason, network and day, and the review queue with its actions. */
export function registerInvalidTrafficAdminRoutes(app: App, context: AppContext): void {
  const { db, clock, config } = context;

  app.get(
    '/api/admin/invalid-traffic',
    {
      schema: {
        tags,
        operationId: 'adminInvalidTraffic',
        summary: `Every click of a period (default the last ${DEFAULT_DAYS} days) with the refused and refunded ones among them, by site, block, reason, network or day.`,
        querystring: SharesQuery,
        response: { 200: SharesSchema, ...errorResponses(401, 403, 422) },
      },
    },
    async (request) => {
      const { query } = request;
      const today = dayOf(clock.now(), config.timeZone);
      const asked = readPeriod({ from: query.dateFrom, to: query.dateTo });
      const to = asked.to ?? (asked.from !== undefined && asked.from > today ? asked.from : today);
      const from = asked.from ?? new Date(Date.parse(to) - (DEFAULT_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
      const by = query.by ?? 'site';
      const rows = await invalidTrafficShares(db, { from, to }, by, { timeZone: config.timeZone, limit: query.limit ?? 50 });
      return { by, dateFrom: from, dateTo: to, rows: rows.map((row) => toShareRow(row, by)) };
    },
  );

  app.get(
    '/api/admin/invalid-traffic/reviews',
    {
      schema: {
        tags,
        operationId: 'adminListSiteReviews',
        summary: 'The review queue: sites flagged for their share of invalid clicks, with the evidence; newest first.',
        querystring: ReviewListQuery,
        response: { 200: Type.Array(ReviewSchema), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const rows = await listPage(request, reply, (limit, offset) => siteReviewPage(db, request.query.status, limit, offset));
      return rows.map(toReview);
    },
  );

  app.post(
    '/api/admin/invalid-traffic/reviews/evaluate',
    {
      schema: {
        tags,
        operationId: 'adminEvaluateSiteReviews',
        summary:
          'Runs the review rule now (it also runs every IVT_REVIEW_INTERVAL_SECONDS): sites over the configured invalid share are put in the queue.',
        response: { 200: EvaluationSchema, ...errorResponses(401, 403) },
      },
    },
    async () => {
      const job = context.siteReviews;
      const flagged = job === undefined ? [] : await job.evaluate();
      return { flagged: flagged.map(({ reviewId, siteId }) => ({ reviewId, siteId })) };
    },
  );

  app.get(
    '/api/admin/invalid-traffic/reviews/:id',
    {
      schema: {
        tags,
        operationId: 'adminGetSiteReview',
        summary: 'One review of the queue, with the evidence and the actions taken.',
        params: IdParams,
        response: { 200: ReviewSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => toReview(await getSiteReview(db, request.params.id)),
  );

  app.post(
    '/api/admin/invalid-traffic/reviews/:id/actions',
    {
      schema: {
        tags,
        operationId: 'adminActOnSiteReview',
        summary: 'Acts on a review: refund the period’s clicks, ban the site, warn the publisher, or dismiss. Audited.',
        params: IdParams,
        body: ActionBody,
        response: { 200: ActionResultSchema, ...errorResponses(401, 403, 404, 409, 422) },
      },
      config: { idempotent: true },
    },
    async (request) => {
      const now = new Date(clock.now());
      const { body } = request;
      const result = await inRequestTransaction(request, db, (trx) =>
        actOnReview(
          trx,
          request.params.id,
          { action: body.action, reason: body.reason, comment: body.comment },
          { actor: actorOf(request), operatorId: accountOf(request), now, timeZone: config.timeZone },
        ),
      );
      return { review: toReview(result.review), refundId: result.refundId };
    },
  );
}
