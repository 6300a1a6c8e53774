import type { Db } from '../../db/database.ts';
import type { AccountKind } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { type FieldError, invalidField, notFound, validationFailed } from '../../errors.ts';
import { isId } from '../../shared/ids.ts';
import { checkMoney } from '../../shared/money-input.ts';
import type { Unchecked } from '../../shared/unchecked.ts';
import { applyLedgerChange, insufficientFundsAsValidation, listLedgerEntries } from '../ledger/index.ts';
import type { Language, Mailer, MailLog } from '../mail/index.ts';
import { deliverNow, type OutboxRow, queueEmailConfirmation } from '../mail/index.ts';
import {
  type AccountFilter,
  type AccountRow,
  findAccountById,
  findAccountByLogin,
  findPasswordHash,
  findReferral,
  findTakenIdentity,
  findToken,
  insertAccount,
  insertToken,
  listAccounts,
  listTokens,
  revokeToken,
  updatePasswordHash,
} from './account-repository.ts';
import { generateToken, hashToken } from './tokens.ts';

export interface NewAccountInput {
  kind: AccountKind;
  username: string;
  email: string;
  name?: string;
  url?: string;
  whatsapp?: string;
  telegram?: string;
  skype?: string;
  phone?: string;
  dailyBudgetMicros?: number;
  parentId?: number | null;
  passwordHash?: string | null;
  emailConfirmed?: boolean;
  /** Its web pages' and e-mails' language; English when not said. */
  language?: Language;
}

export { isSuspended } from './account-repository.ts';
export type { AccountRow };

const UNIQUE_VIOLATION = '23505';

/**
 * A new account's identity rules: a username and an e-mail nobody has. Written for input its
 * schema may have refused (an ill-typed field is left to the schema); `usernameField` is the name
 * the caller's API gives the username (advertisers' clients call it `user`).
 */
export async function identityFieldErrors(
  db: Db,
  input: Unchecked<{ username: string; email: string }>,
  usernameField = 'username',
): Promise<FieldError[]> {
  const username = typeof input.username === 'string' ? input.username : '';
  const email = typeof input.email === 'string' ? input.email : '';
  if (username === '' && email === '') return [];
  const taken = await findTakenIdentity(db, username, email);
  const problems: FieldError[] = [];
  if (taken.username && username !== '') problems.push({ field: usernameField, message: 'This username is already taken.' });
  if (taken.email && email !== '') problems.push({ field: 'email', message: 'This e-mail is already registered.' });
  return problems;
}

/** An operator's new account: its identity, a daily budget that is an amount, and a parent that exists. */
export async function registrationFieldErrors(
  db: Db,
  input: Unchecked<{ username: string; email: string; parentId: number; maxmoney: string | number }>,
): Promise<FieldError[]> {
  const problems = await identityFieldErrors(db, input);
  if (input.maxmoney !== undefined) {
    const budget = checkMoney(input.maxmoney, 'maxmoney', { sign: 'non-negative' });
    if (typeof budget !== 'number') problems.push(budget);
  }
  if (isId(input.parentId) && (await findAccountById(db, input.parentId)) === undefined) {
    problems.push({ field: 'parentId', message: 'No such account.' });
  }
  return problems;
}

/** Creates an account; a taken username or e-mail is a 422 on that field. Runs inside `trx`. */
export async function createAccount(trx: Db, input: NewAccountInput, now: Date): Promise<AccountRow> {
  const problems = await identityFieldErrors(trx, input);
  if (problems.length > 0) throw validationFailed(problems);
  try {
    return await insertAccount(trx, {
      kind: input.kind,
      username: input.username,
      email: input.email,
      name: input.name,
      url: input.url,
      whatsapp: input.whatsapp,
      telegram: input.telegram,
      skype: input.skype,
      phone: input.phone,
      daily_budget_micros: input.dailyBudgetMicros,
      parent_id: input.parentId ?? null,
      password_hash: input.passwordHash ?? null,
      email_confirmed_at: input.emailConfirmed ? now : null,
      language: input.language,
      created_at: now,
    });
  } catch (error) {
    // Two requests racing for the same name: the unique index decides, and the loser gets the same 422.
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) {
      throw validationFailed([{ field: 'username', message: 'This username or e-mail is already taken.' }]);
    }
    throw error;
  }
}

/** The account, or undefined (for rules that answer something else than 404 for a missing one). */
export async function findAccount(db: Db, id: number): Promise<AccountRow | undefined> {
  return findAccountById(db, id);
}

/** A referral account of `parentId`; 404 for any other account. */
export async function getReferral(db: Db, parentId: number, id: number): Promise<AccountRow> {
  const referral = await findReferral(db, parentId, id);
  if (referral === undefined) throw notFound('User');
  return referral;
}

/** Whether a username and an e-mail are taken already, each on its own. */
export async function takenIdentity(db: Db, username: string, email: string): Promise<{ username: boolean; email: boolean }> {
  return findTakenIdentity(db, username, email);
}

export async function getAccount(db: Db, id: number): Promise<AccountRow> {
  const account = await findAccountById(db, id);
  if (account === undefined) throw notFound('User');
  return account;
}

/** Issues a new token for an account; the token itself is returned only here. */
export async function issueToken(db: Db, accountId: number, name: string): Promise<{ id: number; token: string }> {
  return inTransaction(db, async (trx) => {
    await getAccount(trx, accountId);
    const token = generateToken();
    const row = await insertToken(trx, accountId, name, hashToken(token));
    return { id: row.id, token };
  });
}

/** Revokes a live token; with `ownerId`, another account's token is as absent as one that never was (404). */
export async function revokeTokenById(db: Db, tokenId: number, now: Date, ownerId?: number): Promise<void> {
  const token = await findToken(db, tokenId);
  if (token === undefined || token.revoked_at !== null || (ownerId !== undefined && token.account_id !== ownerId)) {
    throw notFound('Token');
  }
  await revokeToken(db, tokenId, now);
}

/** The account a login (its username or e-mail, in any letter case) names, with its password hash. */
export async function findAccountForSignIn(db: Db, login: string) {
  return findAccountByLogin(db, login);
}

/** The account's password hash; null when it has none (it never chose one). */
export async function passwordHashOf(db: Db, accountId: number): Promise<string | null> {
  return (await findPasswordHash(db, accountId)) ?? null;
}

/** Stores a new password hash; `mailboxConfirmedAt` also confirms the e-mail (the link that set it reached it). */
export async function setPasswordHash(db: Db, accountId: number, passwordHash: string, mailboxConfirmedAt?: Date): Promise<void> {
  await updatePasswordHash(db, accountId, passwordHash, mailboxConfirmedAt);
}

/**
 * What follows a fall of balances in the same transaction (the balance webhooks and low-balance
 * notices): app.ts hands in the webhooks module's, since that module reads accounts through
 * notifications and so cannot be imported from here.
 */
export type BalancesDropped = (trx: Db, drops: ReadonlyMap<number, number>, now: Date) => Promise<void>;

/** An operator's credit (positive) or debit (negative) of a balance, recorded in the ledger. */
export async function adjustBalance(
  db: Db,
  change: { accountId: number; amountMicros: number; comment: string; operatorId: number; now: Date },
  balancesDropped: BalancesDropped,
): Promise<AccountRow> {
  return inTransaction(db, async (trx) => {
    await getAccount(trx, change.accountId);
    await applyLedgerChange(trx, {
      accountId: change.accountId,
      amountMicros: change.amountMicros,
      kind: change.amountMicros >= 0 ? 'deposit' : 'withdrawal',
      comment: change.comment,
      createdBy: change.operatorId,
    }).catch((error: unknown) => insufficientFundsAsValidation(error, 'amount'));
    if (change.amountMicros < 0) await balancesDropped(trx, new Map([[change.accountId, -change.amountMicros]]), change.now);
    return getAccount(trx, change.accountId);
  });
}

/**
 * An account an operator registers: its mailbox counts as confirmed; a parent must exist (422
 * otherwise). `onCreated` runs in the same transaction (the invitation to choose a password).
 */
export async function registerAccount(
  db: Db,
  input: NewAccountInput & { parentId?: number },
  now: Date,
  onCreated: (trx: Db, account: AccountRow) => Promise<void> = async () => undefined,
): Promise<AccountRow> {
  return inTransaction(db, async (trx) => {
    const problems = await registrationFieldErrors(trx, input);
    if (problems.length > 0) throw validationFailed(problems);
    const account = await createAccount(trx, { ...input, emailConfirmed: true }, now);
    await onCreated(trx, account);
    return account;
  });
}

/** One page of accounts (of a kind, or the referrals of a parent), by id. */
export async function listAccountsPage(db: Db, filter: AccountFilter, limit: number, offset: number) {
  return listAccounts(db, filter, limit, offset);
}

/** An account's tokens (never their values); 404 when there is no such account. */
export async function listAccountTokens(db: Db, accountId: number) {
  await getAccount(db, accountId);
  return listTokens(db, accountId);
}

/** One page of an account's ledger, newest first; 404 when there is no such account. */
export async function accountLedger(db: Db, accountId: number, limit: number, offset: number) {
  await getAccount(db, accountId);
  return listLedgerEntries(db, accountId, limit, offset);
}

/**
 * Sends an account a new mailbox confirmation link (the operator's answer to "my link expired");
 * a confirmed mailbox is a 422. The message is queued with the link in one transaction and
 * delivered after it commits; it is answered as it is after that attempt.
 */
export async function sendEmailConfirmation(
  dependencies: { db: Db; mailer: Mailer; now: Date; log: MailLog },
  accountId: number,
  confirmationUrl: (token: string) => string,
): Promise<OutboxRow> {
  const { db, mailer, now, log } = dependencies;
  const queued = await inTransaction(db, async (trx) => {
    const account = await getAccount(trx, accountId);
    if (account.email_confirmed_at !== null) throw invalidField('id', 'The e-mail of this account is confirmed already.');
    return queueEmailConfirmation(trx, account, now, confirmationUrl);
  });
  return deliverNow(db, mailer, queued.id, log);
}
