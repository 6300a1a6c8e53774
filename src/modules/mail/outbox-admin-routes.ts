import { type Static, Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import { Id } from '../../http/input-types.ts';
import { listPage, pageParameters } from '../../http/pagination.ts';
import type { App } from '../../http/routes.ts';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { absoluteUrl, created } from '../../http/urls.ts';
import { resendConfirmation } from './confirmation-service.ts';
import { listOutbox, type OutboxRow } from './outbox-repository.ts';
import { deliverAgain, getOutboxMessage } from './outbox-service.ts';

const OUTBOX_STATUSES = ['queued', 'sent', 'failed'] as const;

const OutboxMessageSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Message id.' }),
    kind: Type.String({ description: 'What the message is for, e.g. `email_confirmation`.' }),
    userId: Type.Union([Type.Integer(), Type.Null()], { description: 'The account the message is about.' }),
    to: Type.String({ description: 'Recipient address.' }),
    subject: Type.String({ description: 'Subject.' }),
    text: Type.String({
      description: 'Plain-text body. Empty once a message that carried a password has been delivered.',
    }),
    status: Type.Union(
      OUTBOX_STATUSES.map((status) => Type.Literal(status)),
      {
        description: 'queued (not delivered, or no SMTP_URL), sent (accepted by the SMTP server), failed (last attempt failed).',
      },
    ),
    attempts: Type.Integer({ description: 'Delivery attempts so far.' }),
    error: Type.String({ description: 'Why the last attempt failed; empty otherwise.' }),
    date: Type.String({ format: 'date-time', description: 'When the message was queued.' }),
    sentAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it was delivered.' }),
  },
  { description: 'An e-mail in the outbox.' },
);

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

function toOutboxMessage(row: OutboxRow): Static<typeof OutboxMessageSchema> {
  return {
    id: row.id,
    kind: row.kind,
    userId: row.account_id,
    to: row.recipient,
    subject: row.subject,
    text: row.body_text,
    status: row.status,
    attempts: row.attempts,
    error: row.last_error,
    date: row.created_at.toISOString(),
    sentAt: row.sent_at?.toISOString() ?? null,
  };
}

/** The operator's view of the outbox, and new confirmation links for accounts. */
export function registerOutboxAdminRoutes(app: App, context: AppContext): void {
  const { db, clock, mailer } = context;
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
    async (request) => toOutboxMessage(await deliverAgain(db, mailer, request.params.id, request.log)),
  );

  app.post(
    '/api/admin/users/:id/confirmation',
    {
      schema: {
        tags,
        operationId: 'adminSendEmailConfirmation',
        summary: 'Send an account a new mailbox confirmation link (no password in it).',
        params: IdParams,
        response: { 201: OutboxMessageSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const message = await resendConfirmation(
        { db, mailer, now: new Date(clock.now()), log: request.log },
        request.params.id,
        (token) => absoluteUrl(request, `/api/confirm/${token}`),
      );
      return created(request, reply, `/api/admin/outbox/${message.id}`, toOutboxMessage(message));
    },
  );
}
