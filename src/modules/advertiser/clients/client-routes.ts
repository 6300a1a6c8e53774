import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { readExpand } from '../../../http/expand.ts';
import { uncheckedBody } from '../../../http/field-rules.ts';
import { Count, Money, Text } from '../../../http/input-types.ts';
import { listPage, pageParameters } from '../../../http/pagination.ts';
import { actorOf, inRequestTransaction, requestDb } from '../../../http/request-write.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses, IdParams } from '../../../http/schemas.ts';
import { created, emailLink } from '../../../http/urls.ts';
import { readMoney } from '../../../shared/money-input.ts';
import {
  accountListOrder,
  accountListParameters,
  answerInvitationLink,
  INVITATION_LINK_DESCRIPTION,
  InvitationLinkSchema,
  listAccountsPage,
  SET_PASSWORD_PATH,
  toUser,
  UserSchema,
} from '../../accounts/index.ts';
import { recordAudit } from '../../audit/index.ts';
import { readPeriod, type TargetId, TargetIdParameter } from '../../statistics/index.ts';
import { CampaignSchema } from '../campaigns/campaign-schema.ts';
import { listCampaignsWithStats } from '../campaigns/campaign-service.ts';
import { clientFieldErrors, createClient, getClient, moveClientBalance } from './client-service.ts';

const text = (description: string, maxLength = 255) => Type.Optional(Text(description, { maxLength }));

const CreateClientBody = Type.Object(
  {
    user: Text('Login of the new account.', { minLength: 3, maxLength: 64, pattern: '^[A-Za-z0-9_.@-]+$' }),
    email: Text('E-mail; a confirmation link is sent there.', { format: 'email', maxLength: 254 }),
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
    balance: Money(
      'Amount by which the client balance changes, taken from (positive) or returned to (negative) your own balance; at most 4 fraction digits.',
    ),
  },
  { additionalProperties: false },
);

const ClientQuery = Type.Object({
  expand: Type.Optional(Text('Related lists to embed: `campaigns`.')),
  dateFrom: Type.Optional(Text('With expand=campaigns: first day of their statistics period, YYYY-MM-DD.')),
  dateTo: Type.Optional(Text('With expand=campaigns: last day of their statistics period, YYYY-MM-DD.')),
  targetId: TargetIdParameter,
  archived: Type.Optional(Count('With expand=campaigns: archived campaigns 0 included, 1 not (default).', { maximum: 1 })),
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
export function registerClientRoutes(app: App, context: AppContext): void {
  const { db, clock, mailer } = context;
  const tags = ['User'];

  app.get(
    '/api/advertiser/users',
    {
      schema: {
        tags,
        operationId: 'listClients',
        summary: 'Your referrals (client accounts); `q` searches them, `sort` orders them.',
        querystring: Type.Object({ ...pageParameters, ...accountListParameters }),
        response: { 200: Type.Array(UserSchema), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const parentId = accountOf(request);
      const filter = { parentId, ...accountListOrder(request.query) };
      const rows = await listPage(request, reply, (limit, offset) => listAccountsPage(db, filter, limit, offset));
      return rows.map(toUser);
    },
  );

  app.post(
    '/api/advertiser/users/:id/invitation-link',
    {
      schema: {
        tags,
        operationId: 'createClientInvitationLink',
        summary: 'A new invitation link for one of your referrals, to hand over yourself.',
        description: INVITATION_LINK_DESCRIPTION,
        params: IdParams,
        response: { 200: InvitationLinkSchema, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      answerInvitationLink(request, reply, db, new Date(clock.now()), (trx) =>
        getClient(trx, accountOf(request), request.params.id),
      ),
  );

  app.get(
    '/api/advertiser/users/:id',
    {
      schema: {
        tags,
        operationId: 'getClient',
        summary: 'One of your referrals.',
        params: IdParams,
        querystring: ClientQuery,
        response: { 200: ClientSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { query } = request;
      const client = await getClient(db, accountOf(request), request.params.id);
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
        operationId: 'createClient',
        summary: 'Register an advertiser account as your referral.',
        description:
          'The new account has no password yet and an unconfirmed mailbox; an e-mail with a confirmation link and a single-use link to choose its password (7 days) is sent to it. No e-mail ever carries a password.',
        body: CreateClientBody,
        response: { 201: UserSchema, ...errorResponses(401, 403, 422) },
      },
      config: { fieldRules: (request) => clientFieldErrors(db, uncheckedBody(request)), idempotent: true },
    },
    async (request, reply) => {
      const { user, ...fields } = request.body;
      const { account } = await createClient(
        { db: requestDb(request, db), mailer, now: new Date(clock.now()) },
        accountOf(request),
        { ...fields, username: user },
        {
          confirmation: (token) => emailLink(request, `/api/confirm/${token}`),
          password: (token) => emailLink(request, `${SET_PASSWORD_PATH}${token}`),
        },
      );
      return created(request, reply, `/api/advertiser/users/${account.id}`, toUser(account));
    },
  );

  app.put(
    '/api/advertiser/users/:id',
    {
      schema: {
        tags,
        operationId: 'moveClientBalance',
        summary: "Move money between your balance and a referral's balance.",
        params: IdParams,
        body: BalanceBody,
        response: { 200: UserSchema, ...errorResponses(401, 403, 404, 422) },
      },
      config: { idempotent: true },
    },
    async (request) => {
      const amountMicros = readMoney(request.body.balance, 'balance');
      const parentId = accountOf(request);
      const clientId = request.params.id;
      const client = await inRequestTransaction(request, db, async (trx) => {
        const moved = await moveClientBalance(trx, { parentId, clientId, amountMicros }, new Date(clock.now()));
        await recordAudit(
          trx,
          actorOf(request),
          {
            action: 'client.balance_move',
            objectType: 'account',
            objectId: clientId,
            subjectAccountId: clientId,
            before: { balanceMicros: moved.balance_micros - amountMicros },
            after: { balanceMicros: moved.balance_micros },
          },
          new Date(clock.now()),
        );
        return moved;
      });
      return toUser(client);
    },
  );
}
