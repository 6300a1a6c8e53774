import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app-context.ts';
import { pageParameters, readPage, setPaginationHeaders } from '../../../http/pagination.ts';
import { errorResponses, IdParams } from '../../../http/schemas.ts';
import { listPayouts } from './payout-repository.ts';
import { PayoutSchema, toPayout } from './payout-schema.ts';
import { getOwnPayout } from './payout-service.ts';

const ListQuery = Type.Object(pageParameters);

export function registerPayoutRoutes(app: FastifyInstance, context: AppContext): void {
  const { db } = context;
  const tags = ['Publisher'];

  app.get(
    '/api/webmaster/payment',
    {
      schema: {
        tags,
        summary: "The publisher's payouts, newest first.",
        querystring: ListQuery,
        response: { 200: Type.Array(PayoutSchema), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const page = readPage(request);
      const { rows, total } = await listPayouts(
        db,
        { publisherId: request.principal?.accountId ?? 0 },
        page.perPage,
        page.offset,
      );
      setPaginationHeaders(request, reply, page, total);
      return rows.map(toPayout);
    },
  );

  app.get(
    '/api/webmaster/payment/:id',
    {
      schema: {
        tags,
        summary: 'One payout (extension).',
        params: IdParams,
        response: { 200: PayoutSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) =>
      toPayout(await getOwnPayout(db, request.principal?.accountId ?? 0, (request.params as Static<typeof IdParams>).id)),
  );
}
