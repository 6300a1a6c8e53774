import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import { uncheckedBody } from '../../http/field-rules.ts';
import { Id, Text } from '../../http/input-types.ts';
import { listPage, pageParameters } from '../../http/pagination.ts';
import { actorOf, inRequestTransaction } from '../../http/request-write.ts';
import { type App, accountOf } from '../../http/routes.ts';
import { errorResponses, Flag, IdParams } from '../../http/schemas.ts';
import { created } from '../../http/urls.ts';
import { microsToAmount } from '../../money.ts';
import { recordAudit } from '../audit/index.ts';
import { listRefundedClicks, listRefunds } from './refund-repository.ts';
import {
  AdvertiserRefundedClickSchema,
  PublisherRefundedClickSchema,
  ReasonSchema,
  RefundSchema,
  toRefund,
} from './refund-schema.ts';
import { readSelection, type SelectionInput, selectionErrors } from './refund-selection.ts';
import { getRefund, MAX_REFUND_CLICK_IDS, refundClicks, storedRefundResults } from './refund-service.ts';

const CreateRefundBody = Type.Object(
  {
    clickIds: Type.Optional(
      Type.Array(Text('A click id.', { minLength: 1, maxLength: 64 }), {
        minItems: 1,
        maxItems: MAX_REFUND_CLICK_IDS,
        description: `Refund these clicks (at most ${MAX_REFUND_CLICK_IDS}); or select by range instead.`,
      }),
    ),
    siteId: Type.Optional(Id('Range selection: only clicks on this site.')),
    blockId: Type.Optional(Id('Range selection: only clicks on this block.')),
    network: Type.Optional(
      Text('Range selection: only clicks from this address range, CIDR (203.0.113.0/24, 2001:db8::/32) or one address.', {
        maxLength: 64,
      }),
    ),
    from: Type.Optional(
      Type.String({ format: 'date-time', description: 'Range selection: clicks at or after this instant, ISO 8601.' }),
    ),
    to: Type.Optional(
      Type.String({ format: 'date-time', description: 'Range selection: clicks before this instant, ISO 8601.' }),
    ),
    reason: ReasonSchema('Why the clicks are invalid.'),
    comment: Type.Optional(Text('A note kept with the refund and in its ledger rows.', { maxLength: 500 })),
    dryRun: Type.Optional(Flag('true: change nothing and answer 200 with what the refund would move.')),
  },
  { additionalProperties: false },
);

const ListRefundsQuery = Type.Object({
  ...pageParameters,
  reason: Type.Optional(ReasonSchema('Only refunds with this reason.')),
});

const RefundedClicksQuery = Type.Object({
  ...pageParameters,
  reason: Type.Optional(ReasonSchema('Only clicks refunded for this reason.')),
});

/** Refunds of invalid clicks: the operator applies and lists them; advertisers and publishers see their clicks. */
export function registerRefundRoutes(app: App, context: AppContext): void {
  const { db, clock, config } = context;

  app.post(
    '/api/admin/refunds',
    {
      schema: {
        tags: ['Operator'],
        operationId: 'adminCreateRefund',
        summary:
          'Refund invalid billed clicks (by ids, or by site/block, address range and time range): the advertiser gets the charge back, the publisher share and the platform margin are reversed. dryRun=true changes nothing.',
        body: CreateRefundBody,
        response: { 200: RefundSchema, 201: RefundSchema, ...errorResponses(401, 403, 409, 422) },
      },
      config: { fieldRules: async (request) => selectionErrors(uncheckedBody<SelectionInput>(request)), idempotent: true },
    },
    async (request, reply) => {
      const { body } = request;
      const now = new Date(clock.now());
      const result = await inRequestTransaction(request, db, async (trx) => {
        const refund = await refundClicks(
          trx,
          {
            selection: readSelection(body),
            reason: body.reason,
            comment: body.comment ?? '',
            operatorId: accountOf(request),
            dryRun: body.dryRun ?? false,
          },
          { timeZone: config.timeZone, now },
        );
        if (refund.id !== null) {
          const { plan } = refund;
          const after = {
            reason: refund.reason,
            clicks: refund.clickCount,
            refundedMicros: plan.refundedMicros,
            publisherReversedMicros: plan.publisherReversedMicros,
            publisherUnrecoveredMicros: plan.publisherUnrecoveredMicros,
            marginReversedMicros: plan.marginReversedMicros,
          };
          await recordAudit(
            trx,
            actorOf(request),
            { action: 'clicks.refund', objectType: 'refund', objectId: refund.id, after },
            now,
          );
        }
        return refund;
      });
      if (result.id === null) return toRefund(result);
      return created(request, reply, `/api/admin/refunds/${result.id}`, toRefund(result));
    },
  );

  app.get(
    '/api/admin/refunds',
    {
      schema: {
        tags: ['Operator'],
        operationId: 'adminListRefunds',
        summary: 'Refunds of invalid clicks, newest first.',
        querystring: ListRefundsQuery,
        response: { 200: Type.Array(RefundSchema), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const rows = await listPage(request, reply, (limit, offset) =>
        listRefunds(db, { reason: request.query.reason }, limit, offset),
      );
      return (await storedRefundResults(db, rows)).map(toRefund);
    },
  );

  app.get(
    '/api/admin/refunds/:id',
    {
      schema: {
        tags: ['Operator'],
        operationId: 'adminGetRefund',
        summary: 'One refund of invalid clicks.',
        params: IdParams,
        response: { 200: RefundSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => toRefund(await getRefund(db, request.params.id)),
  );

  app.get(
    '/api/advertiser/refunds',
    {
      schema: {
        tags: ['Advertiser'],
        operationId: 'listRefundedClicks',
        summary: "The advertiser's clicks found invalid and refunded, with why; newest refund first (extension).",
        querystring: Type.Object({
          ...RefundedClicksQuery.properties,
          campaignId: Type.Optional(Id('Only clicks on this campaign.')),
        }),
        response: { 200: Type.Array(AdvertiserRefundedClickSchema), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const filter = { advertiserId: accountOf(request), campaignId: request.query.campaignId, reason: request.query.reason };
      const rows = await listPage(request, reply, (limit, offset) => listRefundedClicks(db, filter, limit, offset));
      return rows.map((row) => ({
        clickId: row.click_id,
        date: row.created_at.toISOString(),
        refundId: row.refund_id,
        refundedAt: row.refunded_at.toISOString(),
        reason: row.reason,
        siteId: row.site_id,
        blockId: row.block_id,
        campaignId: row.campaign_id,
        offerId: row.offer_id,
        amount: microsToAmount(row.charge_micros),
      }));
    },
  );

  app.get(
    '/api/webmaster/refunds',
    {
      schema: {
        tags: ['Publisher'],
        operationId: 'listReversedClicks',
        summary:
          "Clicks on the publisher's sites found invalid, whose share was reversed, with why; newest refund first (extension).",
        querystring: Type.Object({ ...RefundedClicksQuery.properties, siteId: Type.Optional(Id('Only clicks on this site.')) }),
        response: { 200: Type.Array(PublisherRefundedClickSchema), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const filter = { publisherId: accountOf(request), siteId: request.query.siteId, reason: request.query.reason };
      const rows = await listPage(request, reply, (limit, offset) => listRefundedClicks(db, filter, limit, offset));
      return rows.map((row) => ({
        clickId: row.click_id,
        date: row.created_at.toISOString(),
        refundId: row.refund_id,
        refundedAt: row.refunded_at.toISOString(),
        reason: row.reason,
        siteId: row.site_id,
        blockId: row.block_id,
        income: microsToAmount(row.publisher_reversed_micros),
        unrecovered: microsToAmount(row.publisher_unrecovered_micros),
      }));
    },
  );
}
