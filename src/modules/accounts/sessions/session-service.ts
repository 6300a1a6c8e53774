import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../../../clock.ts';
import type { Db } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { DomainError, invalidField } from '../../../errors.ts';
import type { SessionAuthentication } from '../../../http/conventions.ts';
import { sessionCookie } from '../../../http/session-cookie.ts';
import type { Mailer } from '../../mail/mailer.ts';
import { queueAccountMessage } from '../../mail/outbox-service.ts';
import { type AccountRow, findAccountForSignIn, getAccount, passwordHashOf, setPasswordHash } from '../account-service.ts';
import { hashPassword, verifyPassword } from '../password.ts';
import { invitationMessage, passwordResetMessage } from './password-messages.ts';
import {
  extendSession,
  findLiveSession,
  insertPasswordToken,
  insertSession,
  revokeSession,
  revokeSessionsOf,
  spendPasswordToken,
  spendPasswordTokensOf,
} from './session-repository.ts';
import type { ResetThrottle, SignInThrottle } from './sign-in-throttle.ts';

/** The path of the web app's page that sets a password from an e-mailed link (reset or invitation). */
export const SET_PASSWORD_PATH = '/password?token=';

/** A session dies after this long without a request. */
export const SESSION_IDLE_MS = 14 * 24 * 3600_000;
/** A session's expiry is moved at most this often, so that reads stay reads. */
const SESSION_RENEW_AFTER_MS = 60_000;
/** How long a password-reset link works. */
export const RESET_TTL_MS = 3600_000;
/** How long an invitation to choose a first password works. */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;

const newSecret = (): string => randomBytes(32).toString('base64url');
const hashSecret = (secret: string): Buffer => createHash('sha256').update(secret).digest();
const cookieFor = (secret: string) => sessionCookie(secret, SESSION_IDLE_MS / 1000);

/** A scrypt hash of no one's password: unknown logins cost the same time as wrong passwords. */
let dummyHash: Promise<string> | undefined;

export interface SignedIn {
  account: AccountRow;
  setCookie: string;
}

/**
 * Checks a login (username or e-mail) and password and opens a session. Unknown logins, accounts
 * without a password and wrong passwords get the same 401 after the same work; failures are
 * counted per account and per address, and past the limit every attempt is a 429.
 */
export async function signIn(
  dependencies: { db: Db; clock: Clock; throttle: SignInThrottle },
  credentials: { login: string; password: string; address: string },
): Promise<SignedIn> {
  const { db, clock, throttle } = dependencies;
  const account = await findAccountForSignIn(db, credentials.login);
  const accountKey = account === undefined ? `login:${credentials.login.toLowerCase()}` : String(account.id);
  const retryAfter = await throttle.blocked(accountKey, credentials.address);
  if (retryAfter !== undefined) {
    throw new DomainError('too_many_sign_ins', 'Too many failed sign-ins. Try again later.', { retryAfterSeconds: retryAfter });
  }
  dummyHash ??= hashPassword(newSecret());
  const storedHash = account?.password_hash ?? (await dummyHash);
  const matches = await verifyPassword(credentials.password, storedHash);
  if (account === undefined || account.password_hash === null || !matches) {
    await throttle.failed(accountKey, credentials.address);
    throw new DomainError('sign_in_failed', 'Wrong login or password.');
  }
  const secret = newSecret();
  const now = new Date(clock.now());
  await insertSession(db, {
    accountId: account.id,
    tokenHash: hashSecret(secret),
    now,
    expiresAt: new Date(now.getTime() + SESSION_IDLE_MS),
  });
  return { account: await getAccount(db, account.id), setCookie: cookieFor(secret) };
}

/** The session a cookie names, if it is live; its expiry slides forward with use. */
export async function authenticateSession(db: Db, clock: Clock, secret: string): Promise<SessionAuthentication | undefined> {
  if (secret.length > 100) return undefined;
  const now = new Date(clock.now());
  const session = await findLiveSession(db, hashSecret(secret), now);
  if (session === undefined) return undefined;
  const principal = { accountId: session.account_id, kind: session.kind, tokenId: 0, sessionId: session.id };
  if (now.getTime() - session.last_seen_at.getTime() < SESSION_RENEW_AFTER_MS) return { principal };
  await extendSession(db, session.id, now, new Date(now.getTime() + SESSION_IDLE_MS));
  return { principal, setCookie: cookieFor(secret) };
}

export async function signOut(db: Db, sessionId: number, now: Date): Promise<void> {
  await revokeSession(db, sessionId, now);
}

/** Changes a password knowing the current one; every other session of the account ends. */
export async function changePassword(
  db: Db,
  change: { accountId: number; sessionId: number | undefined; current: string; next: string; now: Date },
): Promise<void> {
  const stored = await passwordHashOf(db, change.accountId);
  if (stored === null || !(await verifyPassword(change.current, stored))) {
    throw invalidField('current', 'This is not your current password.');
  }
  const passwordHash = await hashPassword(change.next);
  await inTransaction(db, async (trx) => {
    await setPasswordHash(trx, change.accountId, passwordHash);
    await revokeSessionsOf(trx, change.accountId, change.now, change.sessionId);
  });
}

/** Stores a single-use token that sets the account's password (1 hour for a reset, 7 days for an invitation). */
export async function createPasswordToken(
  trx: Db,
  accountId: number,
  purpose: 'reset' | 'invitation',
  now: Date,
): Promise<string> {
  const token = newSecret();
  const ttl = purpose === 'reset' ? RESET_TTL_MS : INVITATION_TTL_MS;
  await insertPasswordToken(trx, {
    tokenHash: hashSecret(token),
    accountId,
    purpose,
    now,
    expiresAt: new Date(now.getTime() + ttl),
  });
  return token;
}

/**
 * Queues a single-use link that sets the account's password, and its e-mail, inside `trx`.
 * The background sender delivers it once `trx` has committed (wake the mailer then).
 */
export async function queuePasswordLink(
  trx: Db,
  account: { id: number; username: string; email: string },
  purpose: 'reset' | 'invitation',
  now: Date,
  linkFor: (token: string) => string,
): Promise<void> {
  const ttl = purpose === 'reset' ? RESET_TTL_MS : INVITATION_TTL_MS;
  const link = linkFor(await createPasswordToken(trx, account.id, purpose, now));
  const message =
    purpose === 'reset'
      ? passwordResetMessage({ username: account.username, link, minutes: ttl / 60_000 })
      : invitationMessage({ username: account.username, link, days: ttl / 86_400_000 });
  const kind = purpose === 'reset' ? 'password_reset' : 'invitation';
  await queueAccountMessage(trx, { kind, account, message, now, sensitive: true });
}

/**
 * Mails a reset link when `login` names an account and the throttle allows it. The caller answers
 * the same whatever happened, and delivery is not waited for, so neither the answer nor its timing
 * tells whether the account exists or the limit was reached.
 */
export async function requestPasswordReset(
  dependencies: { db: Db; mailer: Mailer; now: Date; throttle: ResetThrottle },
  request: { login: string; address: string },
  linkFor: (token: string) => string,
): Promise<'queued' | 'unknown' | 'throttled'> {
  const { db, mailer, now, throttle } = dependencies;
  const account = await findAccountForSignIn(db, request.login);
  if (!(await throttle.allow(request.address, account?.id))) return 'throttled';
  if (account === undefined) return 'unknown';
  await inTransaction(db, (trx) => queuePasswordLink(trx, account, 'reset', now, linkFor));
  mailer.wake();
  return 'queued';
}

/**
 * Sets a password with a reset or invitation token, once: the token and every other unspent link
 * of the account are spent, every session ends, and the mailbox counts as confirmed (the link
 * reached it).
 */
export async function setPasswordWithToken(db: Db, token: string, password: string, now: Date): Promise<void> {
  const invalid = () => invalidField('token', 'This link is invalid, already used or expired. Ask for a new one.');
  if (token.length > 100) throw invalid();
  const passwordHash = await hashPassword(password);
  await inTransaction(db, async (trx) => {
    const spent = await spendPasswordToken(trx, hashSecret(token), now);
    if (spent === undefined) throw invalid();
    await setPasswordHash(trx, spent.account_id, passwordHash, now);
    await spendPasswordTokensOf(trx, spent.account_id, now);
    await revokeSessionsOf(trx, spent.account_id, now);
  });
}
