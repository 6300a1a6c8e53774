import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { listPage, pageParameters } from '../../../http/pagination.ts';
import { actorOf, inRequestTransaction } from '../../../http/request-write.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses, IdParams } from '../../../http/schemas.ts';
import { searchParameter, sortParameter } from '../../../http/sorting.ts';
import { readSort } from '../../../shared/list-query.ts';
import { recordAudit } from '../../audit/index.ts';
import { listPayouts, PAYOUT_SORT_FIELDS, type PayoutSortField } from './payout-repository.ts';
import { PayoutDetailsBody, PayoutSchema, PayoutSummarySchema, toPayout } from './payout-schema.ts';
import { changePayoutDetails, getOwnPayout, payoutSummary } from './payout-service.ts';

/** The search and order of a payout list (the publisher's payouts, the operator's). */
export const payoutListParameters = {
  q: searchParameter('destination (wallet)'),
  sort: sortParameter(PAYOUT_SORT_FIELDS, '-id'),
};

/** The search and order a payout list asks for (`q` and `sort`, checked by `payoutListParameters`). */
export const payoutListOrder = (query: { q?: string; sort?: string }) => ({
  search: query.q?.trim() || undefined,
  sort: readSort(query.sort, { field: 'id' as PayoutSortField, descending: true }),
});

const ListQuery = Type.Object({ ...pageParameters, ...payoutListParameters });

export function registerPayoutRoutes(app: App, context: AppContext): void {
  const { db, clock, config } = context;
  const tags = ['Publisher'];

  app.get(
    '/api/webmaster/payment',
    {
      schema: {
        tags,
        operationId: 'listPayouts',
        summary: "The publisher's payouts, newest first unless `sort` says otherwise; `q` searches destinations.",
        querystring: ListQuery,
        response: { 200: Type.Array(PayoutSchema), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const filter = { publisherId: accountOf(request), ...payoutListOrder(request.query) };
      const rows = await listPage(request, reply, (limit, offset) => listPayouts(db, filter, limit, offset));
      return rows.map(toPayout);
    },
  );

  app.get(
    '/api/webmaster/payment/:id',
    {
      schema: {
        tags,
        operationId: 'getPayout',
        summary: 'One payout (extension).',
        params: IdParams,
        response: { 200: PayoutSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => toPayout(await getOwnPayout(db, accountOf(request), request.params.id)),
  );

  app.get(
    '/api/webmaster/payout-summary',
    {
      schema: {
        tags,
        operationId: 'getPayoutSummary',
        summary: 'The balance, the minimum payout, what the next payout will pay, and the payout details (extension).',
        response: { 200: PayoutSummarySchema, ...errorResponses(401, 403) },
      },
    },
    async (request) => payoutSummary(db, accountOf(request), config.minPayoutMicros),
  );

  app.put(
    '/api/webmaster/payout-details',
    {
      schema: {
        tags,
        operationId: 'setPayoutDetails',
        summary: 'Say where to be paid: the method and its account (extension); every change is audited.',
        body: PayoutDetailsBody,
        response: { 200: PayoutSummarySchema, ...errorResponses(401, 403, 422) },
      },
    },
    async (request) => {
      const publisherId = accountOf(request);
      const now = new Date(clock.now());
      await inRequestTransaction(request, db, async (trx) => {
        const { before, after } = await changePayoutDetails(trx, publisherId, request.body, now);
        const change = {
          action: 'payout_details.update',
          objectType: 'account',
          objectId: publisherId,
          subjectAccountId: publisherId,
          before,
          after,
        };
        await recordAudit(trx, actorOf(request), change, now);
      });
      return payoutSummary(db, publisherId, config.minPayoutMicros);
    },
  );
}
