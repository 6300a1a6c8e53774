import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, STATUS_OF } from '../../http/errors.ts';
import { sendHtmlPage } from '../../http/html-page.ts';
import { Text } from '../../http/input-types.ts';
import type { RegisterRoutes } from '../../http/routes.ts';
import { errorResponses } from '../../http/schemas.ts';
import { type ConfirmMailbox, confirmEmail } from './email-confirmation.ts';

const ConfirmParams = Type.Object({
  token: Text('The token of the link.', { minLength: 1, maxLength: 100 }),
});

const ConfirmedSchema = Type.Object(
  {
    userId: Type.Integer({ description: 'The account whose mailbox is now confirmed.' }),
    email: Type.String({ description: 'The confirmed address.' }),
    emailConfirmed: Type.Boolean({ description: 'Always true.' }),
  },
  { description: 'A confirmed mailbox.' },
);

/** A browser following the link from the e-mail gets a page; API clients get JSON or XML. */
const wantsHtml = (request: FastifyRequest): boolean => /\btext\/html\b/.test(request.headers.accept ?? '');

function page(reply: FastifyReply, status: number, title: string, text: string): FastifyReply {
  return sendHtmlPage(
    reply,
    status,
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>\n`,
  );
}

/**
 * Mailbox confirmation links, public (the operator's outbox: outbox-admin-routes.ts). A link
 * confirms an account's mailbox through `confirmMailbox`, the accounts module's write, which
 * app.ts hands in: accounts send mail, so mail does not import accounts.
 */
export const mailRoutes =
  (confirmMailbox: ConfirmMailbox): RegisterRoutes =>
  (app, context) => {
    const { db, clock } = context;

    app.get(
      '/api/confirm/:token',
      {
        config: { access: 'public', page: true, accountEntry: true },
        schema: {
          tags: ['User'],
          operationId: 'confirmEmail',
          summary: 'Confirm a mailbox with the link from the registration e-mail (single use, valid 7 days).',
          description:
            'Answers a small HTML page to browsers (Accept: text/html), JSON or XML otherwise. Spent or unknown link: 404; expired: 410.',
          security: [],
          params: ConfirmParams,
          response: { 200: ConfirmedSchema, ...errorResponses(404, 410) },
        },
      },
      async (request, reply) => {
        const { token } = request.params;
        try {
          const confirmed = await confirmEmail(db, confirmMailbox, token, new Date(clock.now()));
          if (wantsHtml(request)) return page(reply, 200, 'E-mail confirmed', 'Thank you: your e-mail address is confirmed.');
          return { userId: confirmed.accountId, email: confirmed.email, emailConfirmed: true };
        } catch (error) {
          if (!(error instanceof DomainError) || !wantsHtml(request)) throw error;
          return page(reply, STATUS_OF[error.code], 'Link not valid', error.message);
        }
      },
    );
  };
