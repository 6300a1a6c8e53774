import { createHash, randomBytes } from 'node:crypto';
import { UAParser } from 'ua-parser-js';
import type { Clock } from '../../../clock.ts';
import type { Db } from '../../../db/database.ts';
import type { AccountKind, SessionMethod } from '../../../db/schema.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { DomainError, invalidField, notFound } from '../../../errors.ts';
import type { Actor } from '../../../shared/actor.ts';
import type { Principal, SessionAuthentication, SessionCookie } from '../../../shared/principal.ts';
import { recordAudit } from '../../audit/index.ts';
import type { Language, Mailer } from '../../mail/index.ts';
import { queueAccountMessage } from '../../mail/index.ts';
import type { AccountKeys } from '../account-keys.ts';
import {
  type AccountRow,
  findAccountForSignIn,
  getAccount,
  isSuspended,
  passwordHashOf,
  setPasswordHash,
} from '../account-service.ts';
import { hashPassword, verifyPassword } from '../password.ts';
import {
  checkSecondFactor,
  hasTwoFactor,
  signInExpired,
  spendTicket,
  tooManyAttempts,
} from '../two-factor/two-factor-service.ts';
import { invitationMessage, passwordResetMessage } from './password-messages.ts';
import {
  extendSession,
  findLiveSession,
  insertPasswordToken,
  insertSession,
  listLiveSessions,
  revokeAccountSession,
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
/** How long the code may take to arrive after the password (the second step of a sign-in). */
export const SECOND_FACTOR_TTL_MS = 5 * 60_000;

const newSecret = (): string => randomBytes(32).toString('base64url');
const hashSecret = (secret: string): Buffer => createHash('sha256').update(secret).digest();

/** Whose sessions need what: the absolute lifetime, and the kinds that must have two-factor sign-in. */
export interface SessionPolicy {
  maxAgeMs: number;
  require2faFor: readonly AccountKind[];
}

export function sessionPolicyOf(config: { sessionMaxAgeMs: number; require2faFor: readonly AccountKind[] }): SessionPolicy {
  return { maxAgeMs: config.sessionMaxAgeMs, require2faFor: config.require2faFor };
}

export interface SessionDependencies {
  db: Db;
  clock: Clock;
  throttle: SignInThrottle;
  keys: AccountKeys;
  policy: SessionPolicy;
}

/** The browser a sign-in comes from, as the session list and the audit trail show it. */
export interface SignInClient {
  address: string;
  userAgent: string;
  requestId: string;
}

/** When a session ends at the latest: idle past SESSION_IDLE_MS, or older than the absolute lifetime. */
function expiryOf(createdAtMs: number, nowMs: number, policy: SessionPolicy): number {
  return Math.min(nowMs + SESSION_IDLE_MS, createdAtMs + policy.maxAgeMs);
}

const cookieFor = (secret: string, expiresAtMs: number, nowMs: number): SessionCookie => ({
  secret,
  maxAgeSeconds: Math.max(0, Math.floor((expiresAtMs - nowMs) / 1000)),
});

/** A scrypt hash of no one's password: unknown logins cost the same time as wrong passwords. */
let dummyHash: Promise<string> | undefined;

export interface SignedIn {
  account: AccountRow;
  /** The session's cookie, for the route to set. */
  cookie: SessionCookie;
}

/** The answer to a right password: a session, or a ticket to bring with the second factor. */
export type SignInResult = ({ step: 'signed-in' } & SignedIn) | { step: 'second-factor'; ticket: string; expiresAt: Date };

/**
 * Checks a login (username or e-mail) and password. Unknown logins, accounts without a password
 * and wrong passwords get the same 401 after the same work; failures are counted per account and
 * per address (counted before the password is checked, so parallel guesses cannot pass the
 * limit), and past the limit every attempt is a 429. An account with two-factor sign-in gets
 * a short-lived signed ticket instead of a session: the code comes next.
 */
export async function signIn(
  dependencies: SessionDependencies,
  credentials: { login: string; password: string } & SignInClient,
): Promise<SignInResult> {
  const { db, clock, throttle, keys } = dependencies;
  const account = await findAccountForSignIn(db, credentials.login);
  const accountKey = account === undefined ? `login:${credentials.login.toLowerCase()}` : String(account.id);
  const attempt = await throttle.attempt(accountKey, credentials.address);
  if (attempt.refused) throw tooManyAttempts(attempt.retryAfterSeconds);
  dummyHash ??= hashPassword(newSecret());
  const storedHash = account?.password_hash ?? (await dummyHash);
  const matches = await verifyPassword(credentials.password, storedHash);
  if (account === undefined || account.password_hash === null || !matches) {
    throw new DomainError('sign_in_failed', 'Wrong login or password.');
  }
  await attempt.succeeded();
  if (await hasTwoFactor(db, account.id)) {
    const expiresAtMs = clock.now() + SECOND_FACTOR_TTL_MS;
    const ticket = keys.signTicket({ purpose: 'second-factor', accountId: account.id, expiresAtMs });
    return { step: 'second-factor', ticket, expiresAt: new Date(expiresAtMs) };
  }
  const signedIn = await inTransaction(db, (trx) => openSession(trx, dependencies, account, 'password', credentials));
  return { step: 'signed-in', ...signedIn };
}

/**
 * The second step of a sign-in: the ticket of the first and a TOTP code or a recovery code. Wrong
 * codes count against the same sign-in throttle as wrong passwords; the ticket works once.
 */
export async function completeSecondFactor(
  dependencies: SessionDependencies,
  attempt: { ticket: string; code: string } & SignInClient,
): Promise<SignedIn> {
  const { db, clock, throttle, keys } = dependencies;
  const now = new Date(clock.now());
  const ticket = keys.readTicket(attempt.ticket, 'second-factor', now.getTime());
  if (ticket === undefined) throw signInExpired();
  const accountKey = String(ticket.accountId);
  const counted = await throttle.attempt(accountKey, attempt.address);
  if (counted.refused) throw tooManyAttempts(counted.retryAfterSeconds);
  return inTransaction(db, async (trx) => {
    const used = await checkSecondFactor(trx, keys, ticket.accountId, attempt.code, now);
    if (used === undefined) throw new DomainError('second_factor_failed', 'Wrong code.');
    await counted.succeeded();
    if (!(await spendTicket(trx, attempt.ticket, ticket.expiresAtMs, now))) {
      throw signInExpired();
    }
    const account = await getAccount(trx, ticket.accountId);
    return openSession(trx, dependencies, account, used === 'totp' ? 'password+totp' : 'password+recovery-code', attempt);
  });
}

/** Opens a session in `trx` and records the sign-in in the audit trail. */
export async function openSession(
  trx: Db,
  dependencies: { clock: Clock; policy: SessionPolicy },
  account: { id: number; kind: AccountKind },
  method: SessionMethod,
  client: SignInClient,
): Promise<SignedIn> {
  // Checked at the last step of every way in (password, second factor, passkey), after the
  // credentials were: who does not hold them learns nothing of the suspension.
  if (await isSuspended(trx, account.id)) throw new DomainError('account_suspended', 'This account is suspended.');
  const secret = newSecret();
  const nowMs = dependencies.clock.now();
  const now = new Date(nowMs);
  const expiresAtMs = expiryOf(nowMs, nowMs, dependencies.policy);
  const { id } = await insertSession(trx, {
    accountId: account.id,
    tokenHash: hashSecret(secret),
    now,
    expiresAt: new Date(expiresAtMs),
    userAgent: client.userAgent.slice(0, 512),
    address: client.address,
    method,
  });
  const actor: Actor = {
    accountId: account.id,
    kind: account.kind,
    tokenId: null,
    sessionId: id,
    remoteAddress: client.address,
    requestId: client.requestId,
  };
  await recordAudit(trx, actor, { action: 'session.sign_in', objectType: 'session', objectId: id, after: { method } }, now);
  return { account: await getAccount(trx, account.id), cookie: cookieFor(secret, expiresAtMs, nowMs) };
}

/**
 * The session a cookie names, if it is live; its expiry slides forward with use, up to the
 * absolute lifetime. A session of an account whose kind must have two-factor sign-in, and has
 * not, is marked: it may only enrol (see http/conventions.ts).
 */
export async function authenticateSession(
  db: Db,
  clock: Clock,
  policy: SessionPolicy,
  secret: string,
  address: string,
): Promise<SessionAuthentication | undefined> {
  if (secret.length > 100) return undefined;
  const nowMs = clock.now();
  const now = new Date(nowMs);
  const session = await findLiveSession(db, hashSecret(secret), now, new Date(nowMs - policy.maxAgeMs));
  if (session === undefined) return undefined;
  const principal: Principal = { accountId: session.account_id, kind: session.kind, tokenId: 0, sessionId: session.id };
  if (!session.two_factor && policy.require2faFor.includes(session.kind)) principal.mustEnrol = true;
  if (nowMs - session.last_seen_at.getTime() < SESSION_RENEW_AFTER_MS) return { principal };
  const expiresAtMs = expiryOf(session.created_at.getTime(), nowMs, policy);
  await extendSession(db, session.id, now, new Date(expiresAtMs), address);
  return { principal, renewed: cookieFor(secret, expiresAtMs, nowMs) };
}

export async function signOut(db: Db, actor: Actor, sessionId: number, now: Date): Promise<void> {
  await inTransaction(db, async (trx) => {
    await revokeSession(trx, sessionId, now);
    await recordAudit(trx, actor, { action: 'session.sign_out', objectType: 'session', objectId: sessionId }, now);
  });
}

/** The account's live sessions for the "where you're signed in" list, the current one marked. */
export async function listSessions(db: Db, policy: SessionPolicy, accountId: number, currentId: number | undefined, now: Date) {
  const rows = await listLiveSessions(db, accountId, now, new Date(now.getTime() - policy.maxAgeMs));
  return rows.map((row) => ({ ...row, current: row.id === currentId, device: deviceOf(row.user_agent) }));
}

/** "Firefox 133 on Windows", "Safari on iOS (mobile)"; "Unknown device" without a User-Agent. */
export function deviceOf(userAgent: string): string {
  if (userAgent === '') return 'Unknown device';
  const parsed = new UAParser(userAgent).getResult();
  const browser = [parsed.browser.name, parsed.browser.major].filter(Boolean).join(' ');
  const system = parsed.os.name ?? '';
  const type = parsed.device.type === 'mobile' || parsed.device.type === 'tablet' ? ` (${parsed.device.type})` : '';
  if (browser === '' && system === '') return userAgent.slice(0, 60);
  return `${browser || 'A browser'}${system === '' ? '' : ` on ${system}`}${type}`;
}

/** Ends one of the account's sessions (404 for another account's, or one already ended). */
export async function revokeOwnSession(db: Db, actor: Actor, accountId: number, sessionId: number, now: Date): Promise<void> {
  await inTransaction(db, async (trx) => {
    if (!(await revokeAccountSession(trx, accountId, sessionId, now))) throw notFound('Session');
    await recordAudit(trx, actor, { action: 'session.revoke', objectType: 'session', objectId: sessionId }, now);
  });
}

/** Ends every session of the account but the one asking (all of them when a token asks); answers how many. */
/** Ends every session of an account inside the caller's transaction; answers how many ended. */
export function endSessionsOf(trx: Db, accountId: number, now: Date): Promise<number> {
  return revokeSessionsOf(trx, accountId, now);
}

export async function revokeOtherSessions(db: Db, actor: Actor, accountId: number, keepId: number | undefined, now: Date) {
  return inTransaction(db, async (trx) => {
    const count = await revokeSessionsOf(trx, accountId, now, keepId);
    await recordAudit(
      trx,
      actor,
      { action: 'session.revoke_others', objectType: 'account', objectId: accountId, after: { sessions: count } },
      now,
    );
    return count;
  });
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
 * A fresh invitation for an account that has not chosen its password, to be handed over by a
 * person (a network without SMTP): every earlier unspent link of the account is spent first, so
 * only the newest works. The token is returned once, to be shown once; only its hash is kept.
 */
export async function issueInvitationToken(trx: Db, account: AccountRow, now: Date): Promise<{ token: string; expiresAt: Date }> {
  if (account.password_hash !== null) {
    throw new DomainError(
      'password_already_set',
      'This account has chosen its password already: send it a password reset link instead.',
    );
  }
  await spendPasswordTokensOf(trx, account.id, now);
  const token = await createPasswordToken(trx, account.id, 'invitation', now);
  return { token, expiresAt: new Date(now.getTime() + INVITATION_TTL_MS) };
}

/**
 * Queues a single-use link that sets the account's password, and its e-mail in the account's
 * language, inside `trx`.
 * The background sender delivers it once `trx` has committed (wake the mailer then).
 */
export async function queuePasswordLink(
  trx: Db,
  account: { id: number; username: string; email: string; language: Language },
  purpose: 'reset' | 'invitation',
  now: Date,
  linkFor: (token: string) => string,
): Promise<void> {
  const ttl = purpose === 'reset' ? RESET_TTL_MS : INVITATION_TTL_MS;
  const link = linkFor(await createPasswordToken(trx, account.id, purpose, now));
  const message =
    purpose === 'reset'
      ? passwordResetMessage({ language: account.language, username: account.username, link, minutes: ttl / 60_000 })
      : invitationMessage({ language: account.language, username: account.username, link, days: ttl / 86_400_000 });
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
  // The message is written in the account's language as the queuing transaction reads it.
  await inTransaction(db, async (trx) => queuePasswordLink(trx, await getAccount(trx, account.id), 'reset', now, linkFor));
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
