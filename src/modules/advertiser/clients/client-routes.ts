import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.ts';
import { invalidField } from '../../../http/errors.ts';
import { readExpand } from '../../../http/expand.ts';
import { pageParameters, readPage, setPaginationHeaders } from '../../../http/pagination.ts';
import { errorResponses, IdParams, MoneyInput } from '../../../http/schemas.ts';
import { absoluteUrl, created } from '../../../http/urls.ts';
import { parseMoney } from '../../../money.ts';
import { listAccounts } from '../../accounts/account-repository.ts';
import { toUser, UserSchema } from '../../accounts/user-schema.ts';
import { SET_PASSWORD_PATH } from '../../sessions/session-routes.ts';
import { readPeriod } from '../../statistics/period.ts';
import { CampaignSchema } from '../campaigns/campaign-schema.ts';
import { listCampaignsWithStats } from '../campaigns/campaign-service.ts';
import type { TargetId } from '../statistics/advertiser-stats-repository.ts';
import { TargetIdParameter } from '../statistics/filters.ts';
import { createClient, getClient, moveClientBalance } from './client-service.ts';

const text = (description: string, maxLength = 255) => Type.Optional(Type.String({ maxLength, description }));

const CreateClientBody = Type.Object(
  {
    user: Type.String({ minLength: 3, maxLength: 64, pattern: '^[A-Za-z0-9_.@-]+$', description: 'Login of the new account.' }),
    email: Type.String({ format: 'email', maxLength: 254, description: 'E-mail; a confirmation link is sent there.' }),
    url: text('Company website.', 2048),
    name: text('Personal name.'),
    telegram: text('Messenger contact.', 64),
    skype: text('Messenger contact.', 64),
    whatsapp: text('Messenger contact.', 64),
    phone: text('Phone.', 32),
  },
  { additionalProperties: false },
);

const BalanceBody = Type.Object(
  {
    balance: MoneyInput(
      'Amount by which the client balance changes, taken from (positive) or returned to (negative) your own balance; at most 4 fraction digits.',
    ),
  },
  { additionalProperties: false },
);

const ClientQuery = Type.Object({
  expand: Type.Optional(Type.String({ description: 'Related lists to embed: `campaigns`.' })),
  dateFrom: Type.Optional(
    Type.String({ description: 'With expand=campaigns: first day of their statistics period, YYYY-MM-DD.' }),
  ),
  dateTo: Type.Optional(Type.String({ description: 'With expand=campaigns: last day of their statistics period, YYYY-MM-DD.' })),
  targetId: TargetIdParameter,
  archived: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 1,
      description: 'With expand=campaigns: archived campaigns 0 included, 1 not (default).',
    }),
  ),
});

/** A client with, on `expand=campaigns`, every campaign of the client and its statistics. */
const ClientSchema = Type.Object(
  {
    ...UserSchema.properties,
    campaigns: Type.Optional(Type.Array(CampaignSchema, { description: 'With expand=campaigns: the client’s campaigns.' })),
  },
  { description: UserSchema.description },
);

/** Every campaign of a client is embedded; an advertiser with more uses /advertiser/campaigns. */
const MAX_EMBEDDED_CAMPAIGNS = 1000;

/** The caller's own referral accounts ("clients"): list, read, register, fund. */
export function registerClientRoutes(app: FastifyInstance, context: AppContext): void {
  const { db, clock, mailer } = context;
  const tags = ['User'];
  const callerId = (request: FastifyRequest): number => request.principal?.accountId ?? 0;

  app.get(
    '/api/advertiser/users',
    {
      schema: {
        tags,
        summary: 'Your referrals (client accounts).',
        querystring: Type.Object(pageParameters),
        response: { 200: Type.Array(UserSchema), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const page = readPage(request);
      const { rows, total } = await listAccounts(db, { parentId: callerId(request) }, page.perPage, page.offset);
      setPaginationHeaders(request, reply, page, total);
      return rows.map(toUser);
    },
  );

  app.get(
    '/api/advertiser/users/:id',
    {
      schema: {
        tags,
        summary: 'One of your referrals.',
        params: IdParams,
        querystring: ClientQuery,
        response: { 200: ClientSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { id } = request.params as Static<typeof IdParams>;
      const query = request.query as Static<typeof ClientQuery>;
      const client = await getClient(db, callerId(request), id);
      if (!readExpand(request, ['campaigns']).has('campaigns')) return toUser(client);
      const { campaigns } = await listCampaignsWithStats(db, {
        advertiserId: client.id,
        includeArchived: query.archived === 0,
        period: readPeriod({ from: query.dateFrom, to: query.dateTo }),
        targetId: (query.targetId ?? 0) as TargetId,
        limit: MAX_EMBEDDED_CAMPAIGNS,
        offset: 0,
      });
      return { ...toUser(client), campaigns };
    },
  );

  app.post(
    '/api/advertiser/users',
    {
      schema: {
        tags,
        summary: 'Register an advertiser account as your referral.',
        description:
          'The new account gets a generated password and an unconfirmed mailbox; an e-mail with the password, a confirmation link and a single-use link to choose its own password instead (7 days) is sent to it.',
        body: CreateClientBody,
        response: { 201: UserSchema, ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const { user, ...fields } = request.body as Static<typeof CreateClientBody>;
      const { account } = await createClient(
        { db, mailer, now: new Date(clock.now()), log: request.log },
        callerId(request),
        { ...fields, username: user },
        (token) => absoluteUrl(request, `/api/confirm/${token}`),
        (token) => absoluteUrl(request, `${SET_PASSWORD_PATH}${token}`),
      );
      return created(request, reply, `/api/advertiser/users/${account.id}`, toUser(account));
    },
  );

  app.put(
    '/api/advertiser/users/:id',
    {
      schema: {
        tags,
        summary: "Move money between your balance and a referral's balance.",
        params: IdParams,
        body: BalanceBody,
        response: { 200: UserSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { id } = request.params as Static<typeof IdParams>;
      const amountMicros = parseMoney((request.body as Static<typeof BalanceBody>).balance);
      if (amountMicros === undefined) throw invalidField('balance', 'Must be an amount with at most 4 fraction digits.');
      return toUser(await moveClientBalance(db, { parentId: callerId(request), clientId: id, amountMicros }));
    },
  );
}
