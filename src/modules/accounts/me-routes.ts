import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import { listPage, pageParameters } from '../../http/pagination.ts';
import { type App, accountOf } from '../../http/routes.ts';
import { errorResponses, NoContent } from '../../http/schemas.ts';
import { ledgerPeriod, ledgerPeriodParameters, listLedgerEntries } from '../ledger/index.ts';
import { LanguageSchema } from '../mail/index.ts';
import { LedgerEntry, toLedgerEntry } from './account-admin-routes.ts';
import { AccountCache } from './account-cache.ts';
import { type AccountRow, updateAccountLanguage } from './account-repository.ts';
import { toUser, type User, UserSchema } from './user-schema.ts';

export function registerMeRoutes(app: App, context: AppContext): void {
  const accounts = new AccountCache(context.database, context.clock);
  // The cache hands out the same row until it is read again: its answer is made once per read
  // (the date's text and the amounts were a few per cent of the route's CPU under load).
  const users = new WeakMap<AccountRow, User>();
  const userOf = (row: AccountRow): User => {
    let user = users.get(row);
    if (user === undefined) {
      user = toUser(row);
      users.set(row, user);
    }
    return user;
  };
  app.get(
    '/api/me',
    {
      // No ETag: hashing the answer was a tenth of its CPU, and a client that polls its own
      // account wants the account, not a 304 (docs/adr/0037).
      config: { duringEnrolment: true, etag: false },
      schema: {
        tags: ['User'],
        operationId: 'getMe',
        summary: 'The account that owns the token.',
        response: { 200: UserSchema, ...errorResponses(401, 429) },
      },
    },
    // A cached account is answered without a promise: dashboards poll this route.
    (request) => {
      const row = accounts.get(accountOf(request));
      return row instanceof Promise ? row.then(userOf) : userOf(row);
    },
  );

  app.put(
    '/api/me/language',
    {
      config: { duringEnrolment: true },
      schema: {
        tags: ['User'],
        operationId: 'setOwnLanguage',
        summary: 'Choose the language of your web pages and e-mails (extension).',
        description: 'English (`en`, the default) or Russian (`ru`). `GET /api/me` tells the current one.',
        body: Type.Object({ language: LanguageSchema }, { additionalProperties: false }),
        response: { 204: NoContent, ...errorResponses(401, 422) },
      },
    },
    async (request, reply) => {
      await updateAccountLanguage(context.db, accountOf(request), request.body.language);
      reply.code(204);
    },
  );

  app.get(
    '/api/me/ledger',
    {
      schema: {
        tags: ['User'],
        operationId: 'listOwnLedgerEntries',
        summary: 'The account’s own balance moves of a period, newest first, each with the balance after it (extension).',
        description: 'The same moves as a CSV or Parquet file, oldest first: `GET /api/me/ledger/export`.',
        querystring: OwnLedgerQuery,
        response: { 200: Type.Array(LedgerEntry), ...errorResponses(401, 422) },
      },
    },
    async (request, reply) => {
      const accountId = accountOf(request);
      const period = ledgerPeriod(request.query);
      const rows = await listPage(request, reply, (limit, offset) =>
        listLedgerEntries(context.db, accountId, limit, offset, period),
      );
      return rows.map(toLedgerEntry);
    },
  );
}

const OwnLedgerQuery = Type.Object({ ...pageParameters, ...ledgerPeriodParameters });
