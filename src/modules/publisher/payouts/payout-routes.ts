import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { listPage, pageParameters } from '../../../http/pagination.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses, IdParams } from '../../../http/schemas.ts';
import { listPayouts } from './payout-repository.ts';
import { PayoutSchema, toPayout } from './payout-schema.ts';
import { getOwnPayout } from './payout-service.ts';

const ListQuery = Type.Object(pageParameters);

export function registerPayoutRoutes(app: App, context: AppContext): void {
  const { db } = context;
  const tags = ['Publisher'];

  app.get(
    '/api/webmaster/payment',
    {
      schema: {
        tags,
        operationId: 'listPayouts',
        summary: "The publisher's payouts, newest first.",
        querystring: ListQuery,
        response: { 200: Type.Array(PayoutSchema), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const publisherId = accountOf(request);
      const rows = await listPage(request, reply, (limit, offset) => listPayouts(db, { publisherId }, limit, offset));
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
}
