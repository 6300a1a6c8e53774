import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { ApiError, invalidField, notFound } from '../../http/errors.ts';
import { pageParameters, readPage, setPaginationHeaders } from '../../http/pagination.ts';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { absoluteUrl, created } from '../../http/urls.ts';
import { resendConfirmation } from './confirmation-service.ts';
import { confirmEmail } from './email-confirmation.ts';
import { findOutboxMessage, listOutbox, type OutboxRow } from './outbox-repository.ts';

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
  userId: Type.Optional(Type.Integer({ minimum: 1, description: 'Only messages about this account.' })),
});

const ConfirmParams = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 100, description: 'The token of the link.' }),
});

const ConfirmedSchema = Type.Object(
  {
    userId: Type.Integer({ description: 'The account whose mailbox is now confirmed.' }),
    email: Type.String({ description: 'The confirmed address.' }),
    emailConfirmed: Type.Boolean({ description: 'Always true.' }),
  },
  { description: 'A confirmed mailbox.' },
);

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

/** A browser following the link from the e-mail gets a page; API clients get JSON or XML. */
const wantsHtml = (request: FastifyRequest): boolean => /\btext\/html\b/.test(request.headers.accept ?? '');

function page(reply: FastifyReply, status: number, title: string, text: string): string {
  reply.code(status).type('text/html; charset=utf-8');
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>\n`;
}

/** Mailbox confirmation links (public) and the operator's view of the outbox. */
export function registerMailRoutes(app: FastifyInstance, context: AppContext): void {
  const { db, clock, mailer } = context;

  app.get(
    '/api/confirm/:token',
    {
      config: { access: 'public' },
      schema: {
        tags: ['User'],
        summary: 'Confirm a mailbox with the link from the registration e-mail (single use, valid 7 days).',
        description:
          'Answers a small HTML page to browsers (Accept: text/html), JSON or XML otherwise. Spent or unknown link: 404; expired: 410.',
        security: [],
        params: ConfirmParams,
        response: { 200: ConfirmedSchema, ...errorResponses(404, 410) },
      },
    },
    async (request, reply) => {
      const { token } = request.params as Static<typeof ConfirmParams>;
      try {
        const confirmed = await confirmEmail(db, token, new Date(clock.now()));
        if (wantsHtml(request)) return page(reply, 200, 'E-mail confirmed', 'Thank you: your e-mail address is confirmed.');
        return { userId: confirmed.accountId, email: confirmed.email, emailConfirmed: true };
      } catch (error) {
        if (!(error instanceof ApiError) || !wantsHtml(request)) throw error;
        return page(reply, error.status, 'Link not valid', error.message);
      }
    },
  );

  app.get(
    '/api/admin/outbox',
    {
      schema: {
        tags: ['Operator'],
        summary: 'E-mails the platform sent or tried to send, newest first.',
        querystring: OutboxQuery,
        response: { 200: Type.Array(OutboxMessageSchema), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const query = request.query as Static<typeof OutboxQuery>;
      const pageRequest = readPage(request);
      const { rows, total } = await listOutbox(
        db,
        { status: query.status, accountId: query.userId },
        pageRequest.perPage,
        pageRequest.offset,
      );
      setPaginationHeaders(request, reply, pageRequest, total);
      return rows.map(toOutboxMessage);
    },
  );

  app.get(
    '/api/admin/outbox/:id',
    {
      schema: {
        tags: ['Operator'],
        summary: 'One e-mail of the outbox.',
        params: IdParams,
        response: { 200: OutboxMessageSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const message = await findOutboxMessage(db, (request.params as Static<typeof IdParams>).id);
      if (message === undefined) throw notFound('Message');
      return toOutboxMessage(message);
    },
  );

  app.post(
    '/api/admin/outbox/:id/send',
    {
      schema: {
        tags: ['Operator'],
        summary: 'Try to deliver a queued or failed message again (after fixing SMTP, say).',
        params: IdParams,
        response: { 200: OutboxMessageSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { id } = request.params as Static<typeof IdParams>;
      const message = await findOutboxMessage(db, id);
      if (message === undefined) throw notFound('Message');
      if (message.status === 'sent') throw invalidField('id', 'This message has been sent already.');
      await mailer.deliver(id, request.log);
      const after = await findOutboxMessage(db, id);
      if (after === undefined) throw notFound('Message');
      return toOutboxMessage(after);
    },
  );

  app.post(
    '/api/admin/users/:id/confirmation',
    {
      schema: {
        tags: ['Operator'],
        summary: 'Send an account a new mailbox confirmation link (no password in it).',
        params: IdParams,
        response: { 201: OutboxMessageSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const { id } = request.params as Static<typeof IdParams>;
      const outboxId = await resendConfirmation({ db, mailer, now: new Date(clock.now()), log: request.log }, id, (token) =>
        absoluteUrl(request, `/api/confirm/${token}`),
      );
      const message = await findOutboxMessage(db, outboxId);
      if (message === undefined) throw notFound('Message');
      return created(request, reply, `/api/admin/outbox/${message.id}`, toOutboxMessage(message));
    },
  );
}
