import { type Static, Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import { Text } from '../../http/input-types.ts';
import { pageParameters, slicePage } from '../../http/pagination.ts';
import { actorOf, inRequestTransaction } from '../../http/request-write.ts';
import type { App } from '../../http/routes.ts';
import { errorResponses, IdParams, NoContent } from '../../http/schemas.ts';
import { created } from '../../http/urls.ts';
import { recordAudit } from '../audit/index.ts';
import { issueToken, listAccountTokens, revokeTokenById } from './account-service.ts';

const TokenBody = Type.Object(
  { name: Type.Optional(Text('A label for the token, e.g. where it is used.', { maxLength: 100 })) },
  { additionalProperties: false },
);

const IssuedToken = Type.Object({
  id: Type.Integer({ description: 'Token id (for revoking it).' }),
  token: Type.String({ description: 'The token. It is shown only in this response.' }),
});

const TokenInfo = Type.Object({
  id: Type.Integer({ description: 'Token id.' }),
  userId: Type.Integer({ description: 'Owner account.' }),
  name: Type.String({ description: 'Label.' }),
  created: Type.String({ format: 'date-time', description: 'When it was issued.' }),
  revoked: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When it was revoked; null while valid.',
  }),
});

type TokenRow = Awaited<ReturnType<typeof listAccountTokens>>[number];
const toTokenInfo = (row: TokenRow): Static<typeof TokenInfo> => ({
  id: row.id,
  userId: row.account_id,
  name: row.name,
  created: row.created_at.toISOString(),
  revoked: row.revoked_at?.toISOString() ?? null,
});

/** The operator's API tokens of accounts: issue, list, revoke. */
export function registerTokenAdminRoutes(app: App, context: AppContext): void {
  const { db, clock } = context;
  const tags = ['Operator'];

  app.post(
    '/api/admin/users/:id/tokens',
    {
      schema: {
        tags,
        operationId: 'adminIssueToken',
        summary: 'Issue an API token for an account.',
        params: IdParams,
        body: TokenBody,
        response: { 201: IssuedToken, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const accountId = request.params.id;
      const name = request.body.name ?? '';
      const issued = await inRequestTransaction(request, db, async (trx) => {
        const token = await issueToken(trx, accountId, name);
        const change = {
          action: 'token.issue',
          objectType: 'token',
          objectId: token.id,
          subjectAccountId: accountId,
          after: { name },
        };
        await recordAudit(trx, actorOf(request), change, new Date(clock.now()));
        return token;
      });
      return created(request, reply, `/api/admin/tokens/${issued.id}`, issued);
    },
  );

  app.get(
    '/api/admin/users/:id/tokens',
    {
      schema: {
        tags,
        operationId: 'adminListTokens',
        summary: "List an account's tokens (never their values).",
        params: IdParams,
        querystring: Type.Object(pageParameters),
        response: { 200: Type.Array(TokenInfo), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => slicePage(request, reply, (await listAccountTokens(db, request.params.id)).map(toTokenInfo)),
  );

  app.delete(
    '/api/admin/tokens/:id',
    {
      schema: {
        tags,
        operationId: 'adminRevokeToken',
        summary: 'Revoke a token; it answers 401 from then on.',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const now = new Date(clock.now());
      await inRequestTransaction(request, db, async (trx) => {
        await revokeTokenById(trx, id, now);
        await recordAudit(trx, actorOf(request), { action: 'token.revoke', objectType: 'token', objectId: id }, now);
      });
      await context.tokens.revoked(id);
      reply.code(204);
    },
  );
}
