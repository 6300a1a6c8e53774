import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import { Id } from '../../http/input-types.ts';
import { listPage, pageParameters } from '../../http/pagination.ts';
import { actorOf } from '../../http/request-write.ts';
import type { App } from '../../http/routes.ts';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { recordAudit } from '../audit/index.ts';
import { listOutbox } from './outbox-repository.ts';
import { OUTBOX_STATUSES, OutboxMessageSchema, toOutboxMessage } from './outbox-schema.ts';
import { deliverAgain, getOutboxMessage } from './outbox-service.ts';

const OutboxQuery = Type.Object({
  ...pageParameters,
  status: Type.Optional(
    Type.Union(
      OUTBOX_STATUSES.map((status) => Type.Literal(status)),
      { description: 'Only messages in this state.' },
    ),
  ),
  userId: Type.Optional(Id('Only messages about this account.')),
});

/** The operator's view of the outbox (new confirmation links for accounts: account-admin-routes.ts). */
export function registerOutboxAdminRoutes(app: App, context: AppContext): void {
  const { db, mailer } = context;
  const tags = ['Operator'];

  app.get(
    '/api/admin/outbox',
    {
      schema: {
        tags,
        operationId: 'adminListOutbox',
        summary: 'E-mails the platform sent or tried to send, newest first.',
        querystring: OutboxQuery,
        response: { 200: Type.Array(OutboxMessageSchema), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const filter = { status: request.query.status, accountId: request.query.userId };
      const rows = await listPage(request, reply, (limit, offset) => listOutbox(db, filter, limit, offset));
      return rows.map(toOutboxMessage);
    },
  );

  app.get(
    '/api/admin/outbox/:id',
    {
      schema: {
        tags,
        operationId: 'adminGetOutboxMessage',
        summary: 'One e-mail of the outbox.',
        params: IdParams,
        response: { 200: OutboxMessageSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => toOutboxMessage(await getOutboxMessage(db, request.params.id)),
  );

  app.post(
    '/api/admin/outbox/:id/send',
    {
      schema: {
        tags,
        operationId: 'adminResendOutboxMessage',
        summary: 'Try to deliver a queued or failed message again (after fixing SMTP, say).',
        params: IdParams,
        response: { 200: OutboxMessageSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const message = await deliverAgain(db, mailer, request.params.id, request.log);
      // Delivery is not a database transaction: the entry records the attempt and how it ended.
      const change = {
        action: 'outbox.send',
        objectType: 'outbox_message',
        objectId: message.id,
        after: { status: message.status },
      };
      await recordAudit(db, actorOf(request), change, new Date(context.clock.now()));
      return toOutboxMessage(message);
    },
  );
}
