import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import type { Db } from '../../db/database.ts';
import { DomainError, notFound } from '../../errors.ts';
import { actorOf, inRequestTransaction } from '../../http/request-write.ts';
import type { App } from '../../http/routes.ts';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { recordAudit } from '../audit/index.ts';
import { maskLinkTokens } from '../mail/index.ts';
import {
  accountReferences,
  EXPORT_ROWS_PER_TABLE,
  eraseAccountRows,
  findAccountForErasure,
  rowsOfAccount,
} from './account-data-repository.ts';

const AccountExportSchema = Type.Object({
  account_id: Type.Integer({ description: 'The account exported.' }),
  exported_at: Type.String({ format: 'date-time', description: 'When the export was made.' }),
  tables: Type.Record(Type.String(), Type.Array(Type.Record(Type.String(), Type.Unknown())), {
    description: `Every row that refers to the account, by table and referring column (\`accounts.id\`, \`ledger_entries.account_id\`, …), columns as stored, without password, token and key hashes or secrets, the token of every password or confirmation link in a text replaced by \`…\`; at most ${EXPORT_ROWS_PER_TABLE} rows per table.`,
  }),
});

const ErasureSchema = Type.Object({
  account_id: Type.Integer({ description: 'The account erased.' }),
  erased_at: Type.String({ format: 'date-time', description: 'When it was erased.' }),
  tokens_deleted: Type.Integer({ description: 'API tokens deleted (they answer 401 from now on).' }),
});

/**
 * A data subject's request, answered by the operator (docs/privacy.md): everything Nativa holds
 * about an account, and its erasure, which keeps the money records.
 */
export function registerAccountDataRoutes(app: App, context: AppContext): void {
  const { db, clock } = context;
  const tags = ['Operator'];

  app.get(
    '/api/admin/users/:id/data',
    {
      schema: {
        tags,
        operationId: 'adminExportAccountData',
        summary: 'Everything Nativa holds about an account, as JSON (a data subject access request). Audited.',
        params: IdParams,
        response: { 200: AccountExportSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const accountId = request.params.id;
      const now = new Date(clock.now());
      const tables = await exportAccount(db, accountId);
      if ((tables['accounts.id'] ?? []).length === 0) throw notFound('Account');
      await recordAudit(
        db,
        actorOf(request),
        { action: 'account.export', objectType: 'account', objectId: accountId, subjectAccountId: accountId },
        now,
      );
      reply.header('Cache-Control', 'no-store');
      reply.header('Content-Disposition', `attachment; filename="nativa-account-${accountId}.json"`);
      return { account_id: accountId, exported_at: now.toISOString(), tables };
    },
  );

  app.post(
    '/api/admin/users/:id/erase',
    {
      schema: {
        tags,
        operationId: 'adminEraseAccount',
        summary:
          "Erases an account: personal fields blanked, sessions, tokens, passkeys, second factor, webhook endpoints and mail deleted; balances, ledger rows, payouts, clicks and statistics kept (they refer to the account by id). Audited. 409 for an operator's or an erased account.",
        params: IdParams,
        response: { 200: ErasureSchema, ...errorResponses(401, 403, 404, 409, 422) },
      },
    },
    async (request) => {
      const accountId = request.params.id;
      const now = new Date(clock.now());
      const tokenIds = await inRequestTransaction(request, db, async (trx) => {
        const account = await findAccountForErasure(trx, accountId);
        if (account === undefined) throw notFound('Account');
        if (account.kind === 'operator') throw new DomainError('erasure_refused', 'Operator accounts are not erased.');
        if (account.erased_at !== null) throw new DomainError('erasure_refused', 'This account is already erased.');
        const deleted = await eraseAccountRows(trx, accountId, now);
        await recordAudit(
          trx,
          actorOf(request),
          {
            action: 'account.erase',
            objectType: 'account',
            objectId: accountId,
            subjectAccountId: accountId,
            after: { tokens_deleted: deleted.length },
          },
          now,
        );
        return deleted;
      });
      for (const tokenId of tokenIds) await context.tokens.revoked(tokenId);
      return { account_id: accountId, erased_at: now.toISOString(), tokens_deleted: tokenIds.length };
    },
  );
}

/**
 * Every row referring to the account, keyed `table.column`; JSON-safe (bigints and bytes as text).
 * An export is a file that travels: no text in it carries a working link token (the outbox's
 * password and confirmation links, wherever such a link was copied), as the outbox shows them.
 */
async function exportAccount(db: Db, accountId: number): Promise<Record<string, Record<string, unknown>[]>> {
  const tables: Record<string, Record<string, unknown>[]> = {};
  tables['accounts.id'] = (await rowsOfAccount(db, 'accounts', 'id', accountId)).map(jsonSafe);
  for (const { table, column } of await accountReferences(db)) {
    tables[`${table}.${column}`] = (await rowsOfAccount(db, table, column, accountId)).map(jsonSafe);
  }
  return tables;
}

function jsonSafe(row: Record<string, unknown>): Record<string, unknown> {
  const safe: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (typeof value === 'bigint') safe[key] = value.toString();
    else if (value instanceof Uint8Array) safe[key] = Buffer.from(value).toString('base64');
    else if (value instanceof Date) safe[key] = value.toISOString();
    else if (typeof value === 'string') safe[key] = maskLinkTokens(value);
    // A JSON column (an audit entry's before and after): its texts, too. A token's characters need no escaping in JSON.
    else if (value !== null && typeof value === 'object') safe[key] = JSON.parse(maskLinkTokens(JSON.stringify(value)));
    else safe[key] = value;
  }
  return safe;
}
