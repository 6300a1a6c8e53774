import { type Static, Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import type { Db } from '../../db/database.ts';
import { uncheckedBody } from '../../http/field-rules.ts';
import { Id, Money, Text } from '../../http/input-types.ts';
import { listPage, pageParameters } from '../../http/pagination.ts';
import { actorOf, inRequestTransaction } from '../../http/request-write.ts';
import { type App, accountOf, type RegisterRoutes } from '../../http/routes.ts';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { created, emailLink } from '../../http/urls.ts';
import { microsToAmount } from '../../money.ts';
import { readMoney } from '../../shared/money-input.ts';
import { recordAudit } from '../audit/index.ts';
import type { listLedgerEntries } from '../ledger/index.ts';
import { LanguageSchema, OutboxMessageSchema, toOutboxMessage } from '../mail/index.ts';
import { accountListOrder, accountListParameters } from './account-list.ts';
import {
  type AccountRow,
  accountLedger,
  adjustBalance,
  type BalancesDropped,
  findAccount,
  getAccount,
  listAccountsPage,
  registerAccount,
  registrationFieldErrors,
  sendEmailConfirmation,
} from './account-service.ts';
import { editAccount, reinstateAccount, suspendAccount } from './account-suspension.ts';
import { answerInvitationLink, INVITATION_LINK_DESCRIPTION, InvitationLinkSchema } from './invitation-link.ts';
import { queuePasswordLink, SET_PASSWORD_PATH } from './sessions/session-service.ts';
import { toUser, UserSchema } from './user-schema.ts';

const text = (description: string, maxLength = 255) => Type.Optional(Text(description, { maxLength }));

const CreateUserBody = Type.Object(
  {
    type: Type.Union(
      [Type.Literal('advertiser'), Type.Literal('publisher'), Type.Literal('webmaster'), Type.Literal('operator')],
      {
        description: 'Account kind; `webmaster` is an alias of publisher.',
      },
    ),
    username: Text('Login.', { minLength: 3, maxLength: 64, pattern: '^[A-Za-z0-9_.@-]+$' }),
    email: Text('E-mail.', { format: 'email', maxLength: 254 }),
    name: text('Personal name.'),
    url: text('Company website.', 2048),
    whatsapp: text('Messenger contact.', 64),
    telegram: text('Messenger contact.', 64),
    skype: text('Messenger contact.', 64),
    phone: text('Phone.', 32),
    maxmoney: Type.Optional(Money('Daily budget across all campaigns; 0 means none.', { minimum: 0 })),
    parentId: Type.Optional(Id('Id of the account this one is a referral of.')),
    language: Type.Optional(
      Type.Union(LanguageSchema.anyOf, {
        description:
          'The account’s language (extension): `en` English, `ru` Russian; its invitation and later e-mails are written in it. Default: the language of the operator who creates it.',
      }),
    ),
  },
  { additionalProperties: false },
);

const EditUserBody = Type.Object(
  {
    name: text('Personal name.'),
    email: Type.Optional(
      Text('E-mail; a new one is unconfirmed until the account confirms it.', { format: 'email', maxLength: 254 }),
    ),
    url: text('Company website.', 2048),
    whatsapp: text('Messenger contact.', 64),
    telegram: text('Messenger contact.', 64),
    skype: text('Messenger contact.', 64),
    phone: text('Phone.', 32),
    maxmoney: Type.Optional(Money('Daily budget across all campaigns; 0 means none.', { minimum: 0 })),
    language: Type.Optional(Type.Union(LanguageSchema.anyOf, { description: 'The account’s language: `en` or `ru`.' })),
  },
  { additionalProperties: false, description: 'The fields to change; those left out stay as they are.' },
);

const SuspendBody = Type.Object(
  {
    reason: Text('Why; the operators read it on the account, the account reads it when refused.', {
      minLength: 1,
      maxLength: 500,
    }),
  },
  { additionalProperties: false },
);

/** An account as operators read it: the User and whether it is suspended. */
export const AdminUserSchema = Type.Object(
  {
    ...UserSchema.properties,
    suspendedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When an operator suspended the account; null when it is not suspended.',
    }),
    suspensionReason: Type.String({ description: 'Why it is suspended; empty when it is not.' }),
  },
  { description: 'An account, with its suspension (operators only).' },
);

const toAdminUser = (row: AccountRow): Static<typeof AdminUserSchema> => ({
  ...toUser(row),
  suspendedAt: row.suspended_at?.toISOString() ?? null,
  suspensionReason: row.suspension_reason,
});

const ListUsersQuery = Type.Object({
  ...pageParameters,
  ...accountListParameters,
  type: Type.Optional(
    Type.Union([Type.Literal('advertiser'), Type.Literal('publisher'), Type.Literal('operator')], {
      description: 'Only accounts of this kind.',
    }),
  ),
});

const BalanceBody = Type.Object(
  {
    amount: Money('Amount to credit (positive) or debit (negative), at most 4 fraction digits.'),
    comment: Text('Why; kept in the ledger.', { minLength: 1, maxLength: 500 }),
  },
  { additionalProperties: false },
);

export const LedgerEntry = Type.Object({
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

type LedgerRow = Awaited<ReturnType<typeof listLedgerEntries>>['rows'][number];
export const toLedgerEntry = (row: LedgerRow): Static<typeof LedgerEntry> => ({
  id: row.id,
  amount: microsToAmount(row.amount_micros),
  balance: microsToAmount(row.balance_after_micros),
  kind: row.kind,
  counterpartyId: row.counterparty_id,
  reference: row.reference,
  comment: row.comment,
  date: row.created_at.toISOString(),
});

/**
 * The operator ("support team") side of accounts: create, list, read and edit, suspend and
 * reinstate, balances and their ledger, invitation and mailbox confirmation links.
 */
export const accountAdminRoutes =
  (balancesDropped: BalancesDropped): RegisterRoutes =>
  (app, context) => {
    const tags = ['Operator'];
    registerAccountRecordRoutes(app, context, tags);
    registerAccountStandingRoutes(app, context, tags);
    registerAccountMoneyRoutes(app, context, tags, balancesDropped);
    registerAccountLinkRoutes(app, context, tags);
  };

/** Create, list, read and edit accounts. */
function registerAccountRecordRoutes(app: App, context: AppContext, tags: string[]): void {
  const { db, clock } = context;
  app.post(
    '/api/admin/users',
    {
      schema: {
        tags,
        operationId: 'adminCreateUser',
        summary: 'Create an account.',
        description:
          'The account’s mailbox receives an invitation: a link, valid 7 days and usable once, to choose its password for signing in.',
        body: CreateUserBody,
        response: { 201: UserSchema, ...errorResponses(401, 403, 422) },
      },
      config: { fieldRules: (request) => registrationFieldErrors(db, uncheckedBody(request)), idempotent: true },
    },
    async (request, reply) => {
      const { body } = request;
      const dailyBudgetMicros = body.maxmoney === undefined ? 0 : readMoney(body.maxmoney, 'maxmoney', { sign: 'non-negative' });
      const kind = body.type === 'webmaster' ? 'publisher' : body.type;
      const now = new Date(clock.now());
      const invite = (trx: Db, account: AccountRow) =>
        queuePasswordLink(trx, account, 'invitation', now, (token) => emailLink(request, `${SET_PASSWORD_PATH}${token}`));
      const account = await inRequestTransaction(request, db, async (trx) => {
        // Its invitation is written before it can choose: in the language asked for, else its creator's.
        const language = body.language ?? (await findAccount(trx, accountOf(request)))?.language;
        const registered = await registerAccount(trx, { ...body, kind, dailyBudgetMicros, language }, now, invite);
        const after = {
          kind: registered.kind,
          username: registered.username,
          email: registered.email,
          parentId: registered.parent_id,
        };
        await recordAudit(
          trx,
          actorOf(request),
          { action: 'account.create', objectType: 'account', objectId: registered.id, subjectAccountId: registered.id, after },
          now,
        );
        return registered;
      });
      context.mailer.wake();
      return created(request, reply, `/api/admin/users/${account.id}`, toUser(account));
    },
  );

  app.get(
    '/api/admin/users',
    {
      schema: {
        tags,
        operationId: 'adminListUsers',
        summary: 'List accounts.',
        querystring: ListUsersQuery,
        response: { 200: Type.Array(AdminUserSchema), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const filter = { kind: request.query.type, ...accountListOrder(request.query) };
      const rows = await listPage(request, reply, (limit, offset) => listAccountsPage(db, filter, limit, offset));
      return rows.map(toAdminUser);
    },
  );

  app.get(
    '/api/admin/users/:id',
    {
      schema: {
        tags,
        operationId: 'adminGetUser',
        summary: 'Read an account.',
        params: IdParams,
        response: { 200: AdminUserSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => toAdminUser(await getAccount(db, request.params.id)),
  );

  app.patch(
    '/api/admin/users/:id',
    {
      schema: {
        tags,
        operationId: 'adminEditUser',
        summary: 'Change an account’s contact fields, daily budget or language (extension).',
        description:
          'Only the fields given change. A new e-mail must be nobody else’s (422 on `email`) and is unconfirmed until the account confirms it. Audited as `account.update`.',
        params: IdParams,
        body: EditUserBody,
        response: { 200: AdminUserSchema, ...errorResponses(401, 403, 404, 422) },
      },
      config: { idempotent: true },
    },
    async (request) => {
      const { body } = request;
      const dailyBudgetMicros =
        body.maxmoney === undefined ? undefined : readMoney(body.maxmoney, 'maxmoney', { sign: 'non-negative' });
      const id = request.params.id;
      const now = new Date(clock.now());
      const account = await inRequestTransaction(request, db, async (trx) => {
        const { before, after } = await editAccount(trx, id, { ...body, dailyBudgetMicros });
        const changed = (row: AccountRow) => ({
          name: row.name,
          email: row.email,
          url: row.url,
          whatsapp: row.whatsapp,
          telegram: row.telegram,
          skype: row.skype,
          phone: row.phone,
          dailyBudgetMicros: row.daily_budget_micros,
          language: row.language,
        });
        const change = { action: 'account.update', objectType: 'account', objectId: id, subjectAccountId: id };
        await recordAudit(trx, actorOf(request), { ...change, before: changed(before), after: changed(after) }, now);
        return after;
      });
      return toAdminUser(account);
    },
  );
}

/** Suspend an account (its sessions and tokens end) and reinstate it. */
function registerAccountStandingRoutes(app: App, context: AppContext, tags: string[]): void {
  const { db, clock } = context;
  app.post(
    '/api/admin/users/:id/suspension',
    {
      schema: {
        tags,
        operationId: 'adminSuspendUser',
        summary: 'Suspend an advertiser or a publisher (extension).',
        description:
          'In one transaction: the account is marked suspended, every session of it ends and every API token of it is revoked. It cannot sign in (403, `account_suspended`) and nothing of it serves: not the ads of a suspended advertiser, not the blocks of a suspended publisher. Balances, objects and statistics stay. 409 for an operator account or one already suspended. Audited as `account.suspend`.',
        params: IdParams,
        body: SuspendBody,
        response: { 200: AdminUserSchema, ...errorResponses(401, 403, 404, 409, 422) },
      },
    },
    async (request) => {
      const id = request.params.id;
      const now = new Date(clock.now());
      const suspended = await inRequestTransaction(request, db, async (trx) => {
        const outcome = await suspendAccount(trx, id, request.body.reason.trim(), now);
        const after = {
          reason: request.body.reason.trim(),
          sessionsEnded: outcome.sessionsEnded,
          tokensRevoked: outcome.tokenIds.length,
        };
        await recordAudit(
          trx,
          actorOf(request),
          { action: 'account.suspend', objectType: 'account', objectId: id, subjectAccountId: id, after },
          now,
        );
        return outcome;
      });
      for (const tokenId of suspended.tokenIds) await context.tokens.revoked(tokenId);
      return toAdminUser(suspended.account);
    },
  );

  app.delete(
    '/api/admin/users/:id/suspension',
    {
      schema: {
        tags,
        operationId: 'adminReinstateUser',
        summary: 'Lift an account’s suspension (extension).',
        description:
          'The account may sign in again and its objects serve again. Sessions and tokens revoked by the suspension stay revoked: the account signs in anew and makes new tokens. 409 when it is not suspended. Audited as `account.reinstate`.',
        params: IdParams,
        response: { 200: AdminUserSchema, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => {
      const id = request.params.id;
      const now = new Date(clock.now());
      const account = await inRequestTransaction(request, db, async (trx) => {
        const reinstated = await reinstateAccount(trx, id);
        await recordAudit(
          trx,
          actorOf(request),
          { action: 'account.reinstate', objectType: 'account', objectId: id, subjectAccountId: id },
          now,
        );
        return reinstated;
      });
      return toAdminUser(account);
    },
  );
}

/** Credit or debit a balance, and read an account's ledger. */
function registerAccountMoneyRoutes(app: App, context: AppContext, tags: string[], balancesDropped: BalancesDropped): void {
  const { db, clock } = context;
  app.post(
    '/api/admin/users/:id/balance',
    {
      schema: {
        tags,
        operationId: 'adminAdjustBalance',
        summary: 'Credit or debit a balance (one ledger entry).',
        params: IdParams,
        body: BalanceBody,
        response: { 200: UserSchema, ...errorResponses(401, 403, 404, 422) },
      },
      config: { idempotent: true },
    },
    async (request) => {
      const amountMicros = readMoney(request.body.amount, 'amount', { sign: 'non-zero' });
      const accountId = request.params.id;
      const account = await inRequestTransaction(request, db, async (trx) => {
        const adjusted = await adjustBalance(
          trx,
          {
            accountId,
            amountMicros,
            comment: request.body.comment,
            operatorId: accountOf(request),
            now: new Date(clock.now()),
          },
          balancesDropped,
        );
        await recordAudit(
          trx,
          actorOf(request),
          {
            action: amountMicros > 0 ? 'balance.credit' : 'balance.debit',
            objectType: 'account',
            objectId: accountId,
            subjectAccountId: accountId,
            before: { balanceMicros: adjusted.balance_micros - amountMicros },
            after: { balanceMicros: adjusted.balance_micros, comment: request.body.comment },
          },
          new Date(clock.now()),
        );
        return adjusted;
      });
      return toUser(account);
    },
  );

  app.get(
    '/api/admin/users/:id/ledger',
    {
      schema: {
        tags,
        operationId: 'adminListLedgerEntries',
        summary: "An account's ledger, newest first.",
        params: IdParams,
        querystring: Type.Object(pageParameters),
        response: { 200: Type.Array(LedgerEntry), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const rows = await listPage(request, reply, (limit, offset) => accountLedger(db, id, limit, offset));
      return rows.map(toLedgerEntry);
    },
  );
}

/** A fresh invitation link (shown once) and a new mailbox confirmation link. */
function registerAccountLinkRoutes(app: App, context: AppContext, tags: string[]): void {
  const { db, clock } = context;
  app.post(
    '/api/admin/users/:id/invitation-link',
    {
      schema: {
        tags,
        operationId: 'adminCreateInvitationLink',
        summary: 'A new invitation link for an account, to hand over by hand.',
        description: INVITATION_LINK_DESCRIPTION,
        params: IdParams,
        response: { 200: InvitationLinkSchema, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      answerInvitationLink(request, reply, db, new Date(clock.now()), (trx) => getAccount(trx, request.params.id)),
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
      const message = await sendEmailConfirmation(
        { db, mailer: context.mailer, now: new Date(clock.now()), log: request.log },
        request.params.id,
        (token) => emailLink(request, `/api/confirm/${token}`),
      );
      // Queued and delivered in steps of their own (delivery is no transaction): the entry follows them.
      const change = {
        action: 'account.confirmation_sent',
        objectType: 'account',
        objectId: request.params.id,
        subjectAccountId: request.params.id,
        after: { outboxId: message.id, status: message.status },
      };
      await recordAudit(db, actorOf(request), change, new Date(clock.now()));
      return created(request, reply, `/api/admin/outbox/${message.id}`, toOutboxMessage(message));
    },
  );
}
