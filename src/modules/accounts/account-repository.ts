import { type Insertable, type Selectable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { type ListWithTotal, listWithTotal } from '../../db/list.ts';
import type { AccountKind, AccountsTable } from '../../db/schema.ts';
import { containsPattern, type SortOrder } from '../../shared/list-query.ts';
import type { Language } from '../mail/index.ts';

export type AccountRow = Selectable<AccountsTable>;
export type NewAccount = Insertable<AccountsTable>;

export async function insertAccount(db: Db, account: NewAccount): Promise<AccountRow> {
  return db.insertInto('accounts').values(account).returningAll().executeTakeFirstOrThrow();
}

export async function findAccountById(db: Db, id: number): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** An account that is a referral of `parentId`; undefined for any other account. */
export async function findReferral(db: Db, parentId: number, id: number): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).where('parent_id', '=', parentId).executeTakeFirst();
}

/** Which of `username` and `email` are already taken, case-insensitively. */
export async function findTakenIdentity(db: Db, username: string, email: string): Promise<{ username: boolean; email: boolean }> {
  const rows = await db
    .selectFrom('accounts')
    .select(['username', 'email'])
    .where((eb) =>
      eb.or([
        eb(eb.fn('lower', ['username']), '=', username.toLowerCase()),
        eb(eb.fn('lower', ['email']), '=', email.toLowerCase()),
      ]),
    )
    .execute();
  return {
    username: rows.some((row) => row.username.toLowerCase() === username.toLowerCase()),
    email: rows.some((row) => row.email.toLowerCase() === email.toLowerCase()),
  };
}

/** An account as sign-in sees it: `login` matches its username or its e-mail, case-insensitively. */
export async function findAccountByLogin(db: Db, login: string) {
  const lowered = login.toLowerCase();
  return db
    .selectFrom('accounts')
    .select(['id', 'kind', 'username', 'email', 'password_hash'])
    .where((eb) => eb.or([eb(eb.fn('lower', ['username']), '=', lowered), eb(eb.fn('lower', ['email']), '=', lowered)]))
    .executeTakeFirst();
}

export async function findPasswordHash(db: Db, accountId: number): Promise<string | null | undefined> {
  const row = await db.selectFrom('accounts').select('password_hash').where('id', '=', accountId).executeTakeFirst();
  return row?.password_hash;
}

/** Sets a password; `mailboxConfirmedAt` also confirms the e-mail if it was not yet. */
export async function updatePasswordHash(
  db: Db,
  accountId: number,
  passwordHash: string,
  mailboxConfirmedAt?: Date,
): Promise<void> {
  await db
    .updateTable('accounts')
    .set((eb) => ({
      password_hash: passwordHash,
      ...(mailboxConfirmedAt && { email_confirmed_at: eb.fn.coalesce('email_confirmed_at', eb.val(mailboxConfirmedAt)) }),
    }))
    .where('id', '=', accountId)
    .execute();
}

export async function updateAccountLanguage(db: Db, accountId: number, language: Language): Promise<void> {
  await db.updateTable('accounts').set({ language }).where('id', '=', accountId).execute();
}

/** The fields an operator may change of an account (docs/operating.md, "Editing an account"). */
export type AccountChanges = Partial<
  Pick<
    AccountRow,
    | 'name'
    | 'email'
    | 'url'
    | 'whatsapp'
    | 'telegram'
    | 'skype'
    | 'phone'
    | 'daily_budget_micros'
    | 'language'
    | 'email_confirmed_at'
  >
>;

export async function findAccountForUpdate(db: Db, id: number): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function updateAccountFields(db: Db, id: number, changes: AccountChanges): Promise<AccountRow> {
  return db.updateTable('accounts').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Whether another account than `id` has this e-mail, case-insensitively. */
export async function emailTakenByOther(db: Db, id: number, email: string): Promise<boolean> {
  const row = await db
    .selectFrom('accounts')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .where('id', '<>', id)
    .executeTakeFirst();
  return row !== undefined;
}

/** Sets (a date) or clears (null) an account's suspension. */
export async function setSuspension(db: Db, id: number, at: Date | null, reason: string): Promise<AccountRow> {
  return db
    .updateTable('accounts')
    .set({ suspended_at: at, suspension_reason: reason })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Revokes every live API token of an account; returns their ids (their caches are told). */
export async function revokeTokensOf(db: Db, accountId: number, at: Date): Promise<number[]> {
  const rows = await db
    .updateTable('api_tokens')
    .set({ revoked_at: at })
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

/** Whether an account is suspended (a sign-in is refused then). */
export async function isSuspended(db: Db, id: number): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('suspended_at').where('id', '=', id).executeTakeFirst();
  return row?.suspended_at != null;
}

export interface AccountFilter {
  kind?: AccountKind;
  parentId?: number;
  /** Only accounts whose login, name or e-mail contains this text, in any letter case. */
  search?: string;
  /** The order of the list; by id when not given. */
  sort?: SortOrder<AccountSortField>;
}

/** What each sortable field of an account list (the `sort` parameter) orders by. */
const ACCOUNT_SORT_COLUMNS = {
  id: 'id',
  username: 'username',
  name: 'name',
  balance: 'balance_micros',
  created: 'created_at',
} as const;
export type AccountSortField = keyof typeof ACCOUNT_SORT_COLUMNS;
export const ACCOUNT_SORT_FIELDS = Object.keys(ACCOUNT_SORT_COLUMNS) as AccountSortField[];

/** Texts in any letter case, compared byte by byte (`C`): one order on both databases. */
const accountSortKey = (field: AccountSortField) => {
  const column = sql.ref(ACCOUNT_SORT_COLUMNS[field]);
  return field === 'username' || field === 'name' ? sql`lower(${column}) COLLATE "C"` : column;
};

export async function listAccounts(
  db: Db,
  filter: AccountFilter,
  limit: number,
  offset: number,
): Promise<ListWithTotal<AccountRow>> {
  let query = db.selectFrom('accounts');
  if (filter.kind) query = query.where('kind', '=', filter.kind);
  if (filter.parentId !== undefined) query = query.where('parent_id', '=', filter.parentId);
  if (filter.search) {
    const pattern = containsPattern(filter.search);
    query = query.where((eb) =>
      eb.or([eb('username', 'ilike', pattern), eb('name', 'ilike', pattern), eb('email', 'ilike', pattern)]),
    );
  }
  const sort = filter.sort ?? { field: 'id', descending: false };
  const direction = sort.descending ? 'desc' : 'asc';
  return listWithTotal(query, (filtered) =>
    filtered.selectAll().orderBy(accountSortKey(sort.field), direction).orderBy('id', direction).limit(limit).offset(offset),
  );
}

export async function operatorExists(db: Db): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('id').where('kind', '=', 'operator').limit(1).executeTakeFirst();
  return row !== undefined;
}

/** How to address these accounts: login, display name and mailbox (moderation notices, owners' names in lists). */
export async function accountContacts(
  db: Db,
  accountIds: readonly number[],
): Promise<{ id: number; username: string; name: string; email: string; language: Language }[]> {
  if (accountIds.length === 0) return [];
  return db
    .selectFrom('accounts')
    .select(['id', 'username', 'name', 'email', 'language'])
    .where('id', 'in', [...new Set(accountIds)])
    .execute();
}

/**
 * Marks the account's e-mail address confirmed, if it still is `email` (a link confirms the
 * address it was sent to); false when the address has changed since.
 */
export async function confirmAccountEmail(trx: Db, accountId: number, email: string, now: Date): Promise<boolean> {
  const confirmed = await trx
    .updateTable('accounts')
    .set({ email_confirmed_at: now })
    .where('id', '=', accountId)
    .where('email', '=', email)
    .returning('id')
    .executeTakeFirst();
  return confirmed !== undefined;
}

export async function insertToken(db: Db, accountId: number, name: string, tokenHash: Buffer) {
  return db
    .insertInto('api_tokens')
    .values({ account_id: accountId, name, token_hash: tokenHash, revoked_at: null })
    .returning(['id', 'account_id', 'name', 'created_at'])
    .executeTakeFirstOrThrow();
}

export async function findActiveTokenByHash(db: Db, tokenHash: Buffer) {
  return db
    .selectFrom('api_tokens')
    .innerJoin('accounts', 'accounts.id', 'api_tokens.account_id')
    .select(['api_tokens.id', 'api_tokens.account_id', 'api_tokens.token_hash', 'accounts.kind'])
    .where('api_tokens.token_hash', '=', tokenHash)
    .where('api_tokens.revoked_at', 'is', null)
    .where('accounts.suspended_at', 'is', null)
    .executeTakeFirst();
}

export async function listTokens(db: Db, accountId: number) {
  return db
    .selectFrom('api_tokens')
    .select(['id', 'account_id', 'name', 'created_at', 'revoked_at'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}

export async function findToken(db: Db, tokenId: number) {
  return db
    .selectFrom('api_tokens')
    .select(['id', 'account_id', 'name', 'created_at', 'revoked_at'])
    .where('id', '=', tokenId)
    .executeTakeFirst();
}

/** Marks a token revoked; returns false when it does not exist or was revoked already. */
export async function revokeToken(db: Db, tokenId: number, at: Date): Promise<boolean> {
  const result = await db
    .updateTable('api_tokens')
    .set({ revoked_at: at })
    .where('id', '=', tokenId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
