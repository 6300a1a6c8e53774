import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { invalidField } from '../../http/errors.ts';
import { pageParameters, readPage, setPaginationHeaders } from '../../http/pagination.ts';
import { errorResponses, IdParams, MoneyInput } from '../../http/schemas.ts';
import { created } from '../../http/urls.ts';
import { microsToAmount, parseMoney } from '../../money.ts';
import { listPayouts, listPublisherBalances } from '../publisher/payouts/payout-repository.ts';
import { AdminPayoutSchema, PAYOUT_STATUSES, toAdminPayout } from '../publisher/payouts/payout-schema.ts';
import { changePayoutStatus, getPayout, recordPayout } from '../publisher/payouts/payout-service.ts';
import { listSites } from '../publisher/sites/site-repository.ts';
import { AdminWebsiteSchema, type SiteRow, StatusCode } from '../publisher/sites/site-schema.ts';
import { moderateSite, presentSites } from '../publisher/sites/site-service.ts';

const LIFETIME = { from: undefined, to: undefined };

const PayoutStatusInput = (description: string) =>
  Type.Union(
    PAYOUT_STATUSES.map((status) => Type.Literal(status)),
    { description },
  );

const ListSitesQuery = Type.Object({
  ...pageParameters,
  status: Type.Optional(StatusCode('Only sites in this status (`status=0` is the moderation queue):')),
  userId: Type.Optional(Type.Integer({ minimum: 1, description: 'Only sites of this publisher.' })),
});

const ModerateSiteBody = Type.Object({ status: StatusCode('The new status:') }, { additionalProperties: false });

const CreatePayoutBody = Type.Object(
  {
    userId: Type.Integer({ minimum: 1, description: 'The publisher paid.' }),
    amount: MoneyInput('Amount paid out, positive, at most 4 fraction digits; debited from the balance.'),
    wallet: Type.String({ minLength: 1, maxLength: 255, description: 'Payment method and destination.' }),
    status: Type.Optional(PayoutStatusInput('pending (default) or paid.')),
  },
  { additionalProperties: false },
);

const ChangePayoutBody = Type.Object(
  { status: PayoutStatusInput('paid or cancelled (from pending only).') },
  { additionalProperties: false },
);

const ListPayoutsQuery = Type.Object({
  ...pageParameters,
  userId: Type.Optional(Type.Integer({ minimum: 1, description: 'Only payouts of this publisher.' })),
  status: Type.Optional(PayoutStatusInput('Only payouts in this status.')),
});

const PublisherBalance = Type.Object(
  {
    userId: Type.Integer({ description: 'Publisher account id.' }),
    username: Type.String({ description: 'Login.' }),
    email: Type.String({ description: 'E-mail.' }),
    balance: Type.Number({ description: 'Earned and not yet paid out, in currency units.' }),
    pending: Type.Number({ description: 'Sum of pending payouts (already debited, not yet paid), in currency units.' }),
  },
  { description: 'What the platform owes a publisher.' },
);

/** The operator's side of the publisher business: site moderation, payouts, outstanding balances. */
export function registerOperatorPublisherRoutes(app: FastifyInstance, context: AppContext): void {
  const { db, clock } = context;
  const tags = ['Operator'];
  const toAdminWebsites = async (rows: SiteRow[]) => {
    const websites = await presentSites(db, rows, LIFETIME);
    return websites.map((website, index) => ({ ...website, userId: rows[index]?.publisher_id ?? 0 }));
  };

  app.get(
    '/api/admin/sites',
    {
      schema: {
        tags,
        summary: 'List sites (lifetime statistics), oldest first; `status=0` is the moderation queue.',
        querystring: ListSitesQuery,
        response: { 200: Type.Array(AdminWebsiteSchema), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const query = request.query as Static<typeof ListSitesQuery>;
      const page = readPage(request);
      const { rows, total } = await listSites(db, { status: query.status, publisherId: query.userId }, page.perPage, page.offset);
      setPaginationHeaders(request, reply, page, total);
      return toAdminWebsites(rows);
    },
  );

  app.put(
    '/api/admin/sites/:id',
    {
      schema: {
        tags,
        summary: 'Moderate a site: 0 moderation, 1 active (approved), 2 banned, 3 unconfirmed.',
        params: IdParams,
        body: ModerateSiteBody,
        response: { 200: AdminWebsiteSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { id } = request.params as Static<typeof IdParams>;
      const site = await moderateSite(db, id, (request.body as Static<typeof ModerateSiteBody>).status);
      const [website] = await toAdminWebsites([site]);
      return website;
    },
  );

  app.post(
    '/api/admin/payouts',
    {
      schema: {
        tags,
        summary: "Record a payout; debits the publisher's balance (more than the balance → 422).",
        body: CreatePayoutBody,
        response: { 201: AdminPayoutSchema, ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const body = request.body as Static<typeof CreatePayoutBody>;
      const amountMicros = parseMoney(body.amount);
      if (amountMicros === undefined || amountMicros <= 0)
        throw invalidField('amount', 'Must be a positive amount with at most 4 fraction digits.');
      const payout = await recordPayout(
        db,
        {
          publisherId: body.userId,
          amountMicros,
          wallet: body.wallet,
          status: body.status ?? 'pending',
          operatorId: request.principal?.accountId ?? 0,
        },
        new Date(clock.now()),
      );
      return created(request, reply, `/api/admin/payouts/${payout.id}`, toAdminPayout(payout));
    },
  );

  app.get(
    '/api/admin/payouts',
    {
      schema: {
        tags,
        summary: 'List payouts, newest first.',
        querystring: ListPayoutsQuery,
        response: { 200: Type.Array(AdminPayoutSchema), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const query = request.query as Static<typeof ListPayoutsQuery>;
      const page = readPage(request);
      const { rows, total } = await listPayouts(
        db,
        { publisherId: query.userId, status: query.status },
        page.perPage,
        page.offset,
      );
      setPaginationHeaders(request, reply, page, total);
      return rows.map(toAdminPayout);
    },
  );

  app.get(
    '/api/admin/payouts/:id',
    {
      schema: {
        tags,
        summary: 'One payout.',
        params: IdParams,
        response: { 200: AdminPayoutSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => toAdminPayout(await getPayout(db, (request.params as Static<typeof IdParams>).id)),
  );

  app.put(
    '/api/admin/payouts/:id',
    {
      schema: {
        tags,
        summary: 'Mark a pending payout paid, or cancel it (the amount returns to the balance). Paid and cancelled are final.',
        params: IdParams,
        body: ChangePayoutBody,
        response: { 200: AdminPayoutSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { id } = request.params as Static<typeof IdParams>;
      const { status } = request.body as Static<typeof ChangePayoutBody>;
      return toAdminPayout(await changePayoutStatus(db, id, status, request.principal?.accountId ?? 0, new Date(clock.now())));
    },
  );

  app.get(
    '/api/admin/publishers/balances',
    {
      schema: {
        tags,
        summary: 'Outstanding publisher balances (positive balance or pending payouts), largest first.',
        querystring: Type.Object(pageParameters),
        response: { 200: Type.Array(PublisherBalance), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const page = readPage(request);
      const { rows, total } = await listPublisherBalances(db, page.perPage, page.offset);
      setPaginationHeaders(request, reply, page, total);
      return rows.map((row) => ({
        userId: row.id,
        username: row.username,
        email: row.email,
        balance: microsToAmount(Number(row.balance_micros)),
        pending: microsToAmount(Number(row.pending_micros ?? 0)),
      }));
    },
  );
}
