import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { uncheckedBody } from '../../../http/field-rules.ts';
import { Id, Money, Text } from '../../../http/input-types.ts';
import { listPage, pageParameters } from '../../../http/pagination.ts';
import { actorOf, inRequestTransaction } from '../../../http/request-write.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses, IdParams } from '../../../http/schemas.ts';
import { created } from '../../../http/urls.ts';
import { microsToAmount } from '../../../money.ts';
import { readMoney } from '../../../shared/money-input.ts';
import { recordAudit } from '../../audit/index.ts';
import { listPayouts, listPublisherBalances, publisherUsername } from './payout-repository.ts';
import { payoutListOrder, payoutListParameters } from './payout-routes.ts';
import { AdminPayoutSchema, PAYOUT_STATUSES, toAdminPayout } from './payout-schema.ts';
import { changePayoutStatus, getPayout, payoutFieldErrors, recordPayout } from './payout-service.ts';

const PayoutStatusInput = (description: string) =>
  Type.Union(
    PAYOUT_STATUSES.map((status) => Type.Literal(status)),
    { description },
  );

const CreatePayoutBody = Type.Object(
  {
    userId: Id('The publisher paid.'),
    amount: Money('Amount paid out, positive, at most 4 fraction digits; debited from the balance.', { exclusiveMinimum: 0 }),
    wallet: Text('Payment method and destination.', { minLength: 1, maxLength: 255 }),
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
  ...payoutListParameters,
  userId: Type.Optional(Id('Only payouts of this publisher.')),
  status: Type.Optional(PayoutStatusInput('Only payouts in this status.')),
});

const PublisherBalance = Type.Object(
  {
    userId: Type.Integer({ description: 'Publisher account id.' }),
    username: Type.String({ description: 'Login.' }),
    email: Type.String({ description: 'E-mail.' }),
    balance: Type.Number({ description: 'Earned and not yet paid out, in currency units.' }),
    pending: Type.Number({ description: 'Sum of pending payouts (already debited, not yet paid), in currency units.' }),
    payTo: Type.Optional(
      Type.Object(
        {
          method: Type.String({ description: 'How to pay: bank_transfer, paypal, wise, crypto or other.' }),
          holder: Type.String({ description: 'Whose account it is.' }),
          account: Type.String({ description: 'Where to pay, in the method’s terms.' }),
        },
        { description: 'The publisher’s payout details; absent until it gives them.' },
      ),
    ),
  },
  { description: 'What the platform owes a publisher.' },
);

type Payout = Awaited<ReturnType<typeof getPayout>>;

/** A payout's audit entry: its amount, destination and status, before and after. */
function payoutChange(action: string, after: Payout, before: Payout | null) {
  const fields = (payout: Payout) => ({ amountMicros: payout.amount_micros, wallet: payout.wallet, status: payout.status });
  return {
    action,
    objectType: 'payout',
    objectId: after.id,
    subjectAccountId: after.publisher_id,
    before: before === null ? null : fields(before),
    after: fields(after),
  };
}

/** The operator's side of payouts: recording them, their list and states, and what is owed to publishers. */
export function registerPayoutAdminRoutes(app: App, context: AppContext): void {
  const { db, clock } = context;
  const tags = ['Operator'];

  app.post(
    '/api/admin/payouts',
    {
      schema: {
        tags,
        operationId: 'adminCreatePayout',
        summary: "Record a payout; debits the publisher's balance (more than the balance → 422).",
        body: CreatePayoutBody,
        response: { 201: AdminPayoutSchema, ...errorResponses(401, 403, 422) },
      },
      config: { fieldRules: (request) => payoutFieldErrors(db, uncheckedBody(request)), idempotent: true },
    },
    async (request, reply) => {
      const { body } = request;
      const amountMicros = readMoney(body.amount, 'amount', { sign: 'positive' });
      const now = new Date(clock.now());
      const payout = await inRequestTransaction(request, db, async (trx) => {
        const recorded = await recordPayout(
          trx,
          {
            publisherId: body.userId,
            amountMicros,
            wallet: body.wallet,
            status: body.status ?? 'pending',
            operatorId: accountOf(request),
          },
          now,
        );
        await recordAudit(trx, actorOf(request), payoutChange('payout.create', recorded, null), now);
        // Read in the request's transaction: a keyed request holds the (embedded) database's one connection.
        return toAdminPayout(recorded, await publisherUsername(trx, recorded.publisher_id));
      });
      return created(request, reply, `/api/admin/payouts/${payout.id}`, payout);
    },
  );

  app.get(
    '/api/admin/payouts',
    {
      schema: {
        tags,
        operationId: 'adminListPayouts',
        summary: 'List payouts, newest first unless `sort` says otherwise; `q` searches destinations.',
        querystring: ListPayoutsQuery,
        response: { 200: Type.Array(AdminPayoutSchema), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const filter = { publisherId: request.query.userId, status: request.query.status, ...payoutListOrder(request.query) };
      const rows = await listPage(request, reply, (limit, offset) => listPayouts(db, filter, limit, offset));
      return rows.map((row) => toAdminPayout(row, row.publisher_username));
    },
  );

  app.get(
    '/api/admin/payouts/:id',
    {
      schema: {
        tags,
        operationId: 'adminGetPayout',
        summary: 'One payout.',
        params: IdParams,
        response: { 200: AdminPayoutSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const payout = await getPayout(db, request.params.id);
      return toAdminPayout(payout, await publisherUsername(db, payout.publisher_id));
    },
  );

  app.put(
    '/api/admin/payouts/:id',
    {
      schema: {
        tags,
        operationId: 'adminUpdatePayout',
        summary: 'Mark a pending payout paid, or cancel it (the amount returns to the balance). Paid and cancelled are final.',
        params: IdParams,
        body: ChangePayoutBody,
        response: { 200: AdminPayoutSchema, ...errorResponses(401, 403, 404, 422) },
      },
      config: { idempotent: true },
    },
    async (request) => {
      const now = new Date(clock.now());
      const payout = await inRequestTransaction(request, db, async (trx) => {
        const before = await getPayout(trx, request.params.id);
        const changed = await changePayoutStatus(trx, request.params.id, request.body.status, accountOf(request), now);
        if (changed.status !== before.status)
          await recordAudit(trx, actorOf(request), payoutChange('payout.status', changed, before), now);
        return toAdminPayout(changed, await publisherUsername(trx, changed.publisher_id));
      });
      return payout;
    },
  );

  app.get(
    '/api/admin/publishers/balances',
    {
      schema: {
        tags,
        operationId: 'adminListPublisherBalances',
        summary: 'Outstanding publisher balances (positive balance or pending payouts), largest first.',
        querystring: Type.Object(pageParameters),
        response: { 200: Type.Array(PublisherBalance), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const rows = await listPage(request, reply, (limit, offset) => listPublisherBalances(db, limit, offset));
      return rows.map((row) => ({
        userId: row.id,
        username: row.username,
        email: row.email,
        balance: microsToAmount(Number(row.balance_micros)),
        pending: microsToAmount(Number(row.pending_micros ?? 0)),
        ...(row.method === null ? {} : { payTo: { method: row.method, holder: row.holder ?? '', account: row.account ?? '' } }),
      }));
    },
  );
}
