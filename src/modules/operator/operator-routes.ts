import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { invalidField } from '../../http/errors.ts';
import { pageParameters, readPage, setPaginationHeaders } from '../../http/pagination.ts';
import { errorResponses, IdParams, MoneyInput, NoContent } from '../../http/schemas.ts';
import { absoluteUrl, created } from '../../http/urls.ts';
import { microsToAmount, parseMoney } from '../../money.ts';
import { listAccounts, listTokens } from '../accounts/account-repository.ts';
import { adjustBalance, createAccount, getAccount, issueToken, revokeTokenById } from '../accounts/account-service.ts';
import { toUser, UserSchema } from '../accounts/user-schema.ts';
import { listLedgerEntries } from '../ledger/ledger.ts';
import { SET_PASSWORD_PATH } from '../sessions/session-routes.ts';
import { queuePasswordLink } from '../sessions/session-service.ts';

const text = (description: string, maxLength = 255) => Type.Optional(Type.String({ maxLength, description }));

const CreateUserBody = Type.Object(
  {
    type: Type.Union(
      [Type.Literal('advertiser'), Type.Literal('publisher'), Type.Literal('webmaster'), Type.Literal('operator')],
      {
        description: 'Account kind; `webmaster` is an alias of publisher.',
      },
    ),
    username: Type.String({ minLength: 3, maxLength: 64, pattern: '^[A-Za-z0-9_.@-]+$', description: 'Login.' }),
    email: Type.String({ format: 'email', maxLength: 254, description: 'E-mail.' }),
    name: text('Personal name.'),
    url: text('Company website.', 2048),
    whatsapp: text('Messenger contact.', 64),
    telegram: text('Messenger contact.', 64),
    skype: text('Messenger contact.', 64),
    phone: text('Phone.', 32),
    maxmoney: Type.Optional(MoneyInput('Daily budget across all campaigns; 0 means none.')),
    parentId: Type.Optional(Type.Integer({ minimum: 1, description: 'Id of the account this one is a referral of.' })),
  },
  { additionalProperties: false },
);

const ListUsersQuery = Type.Object({
  ...pageParameters,
  type: Type.Optional(
    Type.Union([Type.Literal('advertiser'), Type.Literal('publisher'), Type.Literal('operator')], {
      description: 'Only accounts of this kind.',
    }),
  ),
});

const TokenBody = Type.Object(
  { name: text('A label for the token, e.g. where it is used.', 100) },
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

const BalanceBody = Type.Object(
  {
    amount: MoneyInput('Amount to credit (positive) or debit (negative), at most 4 fraction digits.'),
    comment: Type.String({ minLength: 1, maxLength: 500, description: 'Why; kept in the ledger.' }),
  },
  { additionalProperties: false },
);

const LedgerEntry = Type.Object({
  id: Type.Integer({ description: 'Entry id.' }),
  amount: Type.Number({ description: 'Change of the balance.' }),
  balance: Type.Number({ description: 'Balance after the change.' }),
  kind: Type.String({
    description:
      'What moved the money: deposit, withdrawal, client_transfer, payout, payout_cancel, or for billed clicks click_charge (advertiser), click_revenue (publisher), click_margin (platform).',
  }),
  counterpartyId: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The other account of a move; null when there is none or, for a batch of clicks, more than one.',
  }),
  reference: Type.Union([Type.String(), Type.Null()], {
    description:
      "Business object behind the entry: a payout id, or for click_* entries the billing batch (the clicks' billing_batch): one entry per account and kind sums that batch's clicks.",
  }),
  comment: Type.String({ description: 'Comment.' }),
  date: Type.String({ format: 'date-time', description: 'When.' }),
});

type TokenRow = Awaited<ReturnType<typeof listTokens>>[number];
const toTokenInfo = (row: TokenRow): Static<typeof TokenInfo> => ({
  id: row.id,
  userId: row.account_id,
  name: row.name,
  created: row.created_at.toISOString(),
  revoked: row.revoked_at?.toISOString() ?? null,
});

/** The operator ("support team") API: accounts, tokens and balances. */
export function registerOperatorAccountRoutes(app: FastifyInstance, context: AppContext): void {
  const { db, clock } = context;
  const tags = ['Operator'];

  app.post(
    '/api/admin/users',
    {
      schema: {
        tags,
        summary: 'Create an account.',
        description:
          'The account’s mailbox receives an invitation: a link, valid 7 days and usable once, to choose its password for signing in.',
        body: CreateUserBody,
        response: { 201: UserSchema, ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const body = request.body as Static<typeof CreateUserBody>;
      const dailyBudgetMicros = body.maxmoney === undefined ? 0 : parseMoney(body.maxmoney);
      if (dailyBudgetMicros === undefined || dailyBudgetMicros < 0)
        throw invalidField('maxmoney', 'Must be a non-negative amount with at most 4 fraction digits.');
      const now = new Date(clock.now());
      const { account, invitationId } = await db.transaction().execute(async (trx) => {
        if (body.parentId !== undefined)
          await getAccount(trx, body.parentId).catch(() => {
            throw invalidField('parentId', 'No such account.');
          });
        const account = await createAccount(
          trx,
          { ...body, kind: body.type === 'webmaster' ? 'publisher' : body.type, dailyBudgetMicros, emailConfirmed: true },
          now,
        );
        const invitationId = await queuePasswordLink(trx, account, 'invitation', now, (token) =>
          absoluteUrl(request, `${SET_PASSWORD_PATH}${token}`),
        );
        return { account, invitationId };
      });
      await context.mailer.deliver(invitationId, request.log);
      return created(request, reply, `/api/admin/users/${account.id}`, toUser(account));
    },
  );

  app.get(
    '/api/admin/users',
    {
      schema: {
        tags,
        summary: 'List accounts.',
        querystring: ListUsersQuery,
        response: { 200: Type.Array(UserSchema), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const page = readPage(request);
      const { type } = request.query as Static<typeof ListUsersQuery>;
      const { rows, total } = await listAccounts(db, { kind: type }, page.perPage, page.offset);
      setPaginationHeaders(request, reply, page, total);
      return rows.map(toUser);
    },
  );

  app.get(
    '/api/admin/users/:id',
    {
      schema: {
        tags,
        summary: 'Read an account.',
        params: IdParams,
        response: { 200: UserSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => toUser(await getAccount(db, (request.params as Static<typeof IdParams>).id)),
  );

  app.post(
    '/api/admin/users/:id/tokens',
    {
      schema: {
        tags,
        summary: 'Issue an API token for an account.',
        params: IdParams,
        body: TokenBody,
        response: { 201: IssuedToken, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const { id } = request.params as Static<typeof IdParams>;
      const { name } = request.body as Static<typeof TokenBody>;
      const issued = await issueToken(db, id, name ?? '');
      return created(request, reply, `/api/admin/tokens/${issued.id}`, issued);
    },
  );

  app.get(
    '/api/admin/users/:id/tokens',
    {
      schema: {
        tags,
        summary: "List an account's tokens (never their values).",
        params: IdParams,
        response: { 200: Type.Array(TokenInfo), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const { id } = request.params as Static<typeof IdParams>;
      await getAccount(db, id);
      return (await listTokens(db, id)).map(toTokenInfo);
    },
  );

  app.delete(
    '/api/admin/tokens/:id',
    {
      schema: {
        tags,
        summary: 'Revoke a token; it answers 401 from then on.',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { id } = request.params as Static<typeof IdParams>;
      await revokeTokenById(db, id, new Date(clock.now()));
      await context.tokens.revoked(id);
      reply.code(204);
    },
  );

  app.post(
    '/api/admin/users/:id/balance',
    {
      schema: {
        tags,
        summary: 'Credit or debit a balance (one ledger entry).',
        params: IdParams,
        body: BalanceBody,
        response: { 200: UserSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { id } = request.params as Static<typeof IdParams>;
      const body = request.body as Static<typeof BalanceBody>;
      const amountMicros = parseMoney(body.amount);
      if (amountMicros === undefined || amountMicros === 0)
        throw invalidField('amount', 'Must be a non-zero amount with at most 4 fraction digits.');
      const account = await adjustBalance(db, {
        accountId: id,
        amountMicros,
        comment: body.comment,
        operatorId: request.principal?.accountId ?? 0,
      });
      return toUser(account);
    },
  );

  app.get(
    '/api/admin/users/:id/ledger',
    {
      schema: {
        tags,
        summary: "An account's ledger, newest first.",
        params: IdParams,
        querystring: Type.Object(pageParameters),
        response: { 200: Type.Array(LedgerEntry), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { id } = request.params as Static<typeof IdParams>;
      await getAccount(db, id);
      const page = readPage(request);
      const { rows, total } = await listLedgerEntries(db, id, page.perPage, page.offset);
      setPaginationHeaders(request, reply, page, total);
      return rows.map((row) => ({
        id: row.id,
        amount: microsToAmount(row.amount_micros),
        balance: microsToAmount(row.balance_after_micros),
        kind: row.kind,
        counterpartyId: row.counterparty_id,
        reference: row.reference,
        comment: row.comment,
        date: row.created_at.toISOString(),
      }));
    },
  );
}
