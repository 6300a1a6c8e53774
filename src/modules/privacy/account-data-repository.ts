import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

/**
 * Columns an export leaves out: credentials and their hashes (passwords, API tokens, sessions,
 * links, recovery codes), the sealed TOTP secret, webhook signing secrets and passkeys' public
 * keys, never data about the person. `idempotency_keys.body` is the stored answer replayed to a
 * repeated request: a copy of rows exported anyway, which could carry a secret shown once.
 */
const SECRET_COLUMN = /(hash|secret|sealed|public_key)/;
const LEFT_OUT: Record<string, readonly string[]> = { idempotency_keys: ['body'] };
/** Rows one table contributes to an export at most (a ledger of many years stays readable). */
export const EXPORT_ROWS_PER_TABLE = 100_000;

/** Every (table, column) whose column refers to accounts (a foreign key), found from the schema itself. */
export async function accountReferences(db: Db): Promise<{ table: string; column: string }[]> {
  const result = await sql<{ table_name: string; column_name: string }>`
    SELECT k.table_name, k.column_name
    FROM information_schema.referential_constraints r
    JOIN information_schema.key_column_usage k ON k.constraint_name = r.constraint_name AND k.constraint_schema = r.constraint_schema
    JOIN information_schema.constraint_column_usage u ON u.constraint_name = r.unique_constraint_name AND u.constraint_schema = r.unique_constraint_schema
    WHERE u.table_name = 'accounts' AND u.column_name = 'id' AND k.table_schema = current_schema()
    ORDER BY k.table_name, k.column_name`.execute(db);
  return result.rows.map((row) => ({ table: row.table_name, column: row.column_name }));
}

/** The columns of a table, in order, without the secret ones. */
async function exportedColumns(db: Db, table: string): Promise<string[]> {
  const result = await sql<{ column_name: string }>`
    SELECT column_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = ${table}
    ORDER BY ordinal_position`.execute(db);
  const leftOut = LEFT_OUT[table] ?? [];
  return result.rows.map((row) => row.column_name).filter((column) => !SECRET_COLUMN.test(column) && !leftOut.includes(column));
}

/** The rows of `table` whose `column` is the account, without secret columns. */
export async function rowsOfAccount(db: Db, table: string, column: string, accountId: number) {
  const columns = await exportedColumns(db, table);
  const result = await sql<Record<string, unknown>>`
    SELECT ${sql.join(columns.map((name) => sql.ref(name)))} FROM ${sql.table(table)}
    WHERE ${sql.ref(column)} = ${accountId}
    LIMIT ${EXPORT_ROWS_PER_TABLE}`.execute(db);
  return result.rows;
}

export async function findAccountForErasure(db: Db, accountId: number) {
  return db
    .selectFrom('accounts')
    .select(['id', 'kind', 'username', 'erased_at'])
    .where('id', '=', accountId)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Blanks an account's personal fields and deletes what identifies or admits it: sessions, API
 * tokens, passkeys, the second factor, pending links, stored idempotent answers, its webhook
 * endpoints (their URLs and secrets), its postback key and its mail. Money records (balances, ledger rows, payouts,
 * clicks, statistics) stay and keep referring to the account by id. Returns the ids of the
 * deleted tokens (their caches are told).
 */
export async function eraseAccountRows(trx: Db, accountId: number, now: Date): Promise<number[]> {
  await trx
    .updateTable('accounts')
    .set({
      username: `erased-${accountId}`,
      email: `erased-${accountId}@erased.invalid`,
      name: '',
      url: '',
      whatsapp: '',
      telegram: '',
      skype: '',
      phone: '',
      password_hash: null,
      email_confirmed_at: null,
      erased_at: now,
    })
    .where('id', '=', accountId)
    .execute();
  const tokens = await trx.deleteFrom('api_tokens').where('account_id', '=', accountId).returning('id').execute();
  await trx.deleteFrom('sessions').where('account_id', '=', accountId).execute();
  await trx.deleteFrom('passkeys').where('account_id', '=', accountId).execute();
  await trx.deleteFrom('totp_credentials').where('account_id', '=', accountId).execute();
  await trx.deleteFrom('recovery_codes').where('account_id', '=', accountId).execute();
  await trx.deleteFrom('password_tokens').where('account_id', '=', accountId).execute();
  await trx.deleteFrom('email_confirmations').where('account_id', '=', accountId).execute();
  await trx.deleteFrom('idempotency_keys').where('account_id', '=', accountId).execute();
  await trx.deleteFrom('mail_outbox').where('account_id', '=', accountId).execute();
  await trx.deleteFrom('webhook_endpoints').where('account_id', '=', accountId).execute();
  await trx.deleteFrom('postback_keys').where('advertiser_id', '=', accountId).execute();
  return tokens.map((token) => token.id);
}
