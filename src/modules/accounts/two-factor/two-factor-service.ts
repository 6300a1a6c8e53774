import { createHash, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { Clock } from '../../../clock.ts';
import type { Db } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { DomainError, invalidField, notFound } from '../../../errors.ts';
import type { Actor } from '../../../shared/actor.ts';
import { recordAudit } from '../../audit/index.ts';
import type { AccountKeys, TicketPurpose } from '../account-keys.ts';
import { findAccount } from '../account-service.ts';
import type { SignInThrottle } from '../sessions/sign-in-throttle.ts';
import {
  advanceTotpStep,
  confirmTotp,
  countUnusedRecoveryCodes,
  deleteTwoFactor,
  findTotpCredential,
  replaceRecoveryCodes,
  spendChallenge,
  spendRecoveryCode,
  upsertPendingTotp,
} from './two-factor-repository.ts';

/** RFC 6238 as every authenticator app reads it: SHA-1, 6 digits, 30-second steps. */
const TOTP_PERIOD_S = 30;
/** A code of the step before or after now is accepted too (clocks of phones drift). */
const TOTP_WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;
/** Crockford's base32: no I, L, O or U to misread. 10 characters are 50 bits. */
const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export interface TwoFactorDependencies {
  db: Db;
  clock: Clock;
  keys: AccountKeys;
  throttle: SignInThrottle;
  /** The issuer an authenticator app shows beside the code (the public host, or "Nativa"). */
  issuer: string;
}

export interface TwoFactorStatus {
  enabled: boolean;
  enabledAt: Date | null;
  recoveryCodesLeft: number;
  required: boolean;
}

export async function twoFactorStatus(db: Db, accountId: number, required: boolean): Promise<TwoFactorStatus> {
  const credential = await findTotpCredential(db, accountId);
  const enabledAt = credential?.confirmed_at ?? null;
  return {
    enabled: enabledAt !== null,
    enabledAt,
    recoveryCodesLeft: enabledAt === null ? 0 : await countUnusedRecoveryCodes(db, accountId),
    required,
  };
}

export async function hasTwoFactor(db: Db, accountId: number): Promise<boolean> {
  return (await findTotpCredential(db, accountId))?.confirmed_at != null;
}

const totpOf = (secret: string, issuer: string, label: string) =>
  new TOTP({ issuer, label, algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_S, secret: Secret.fromBase32(secret) });

const alreadyOn = () => new DomainError('two_factor_on', 'Two-factor sign-in is already on for this account. Turn it off first.');

/**
 * Starts enrolment: a new secret, sealed and kept unconfirmed until a code made from it comes
 * back. The secret is in this answer only (as text and as the `otpauth://` URI a QR code carries).
 */
export async function startEnrolment(dependencies: TwoFactorDependencies, account: { id: number; username: string }) {
  const { db, clock, keys, issuer } = dependencies;
  const secret = new Secret({ size: 20 }).base32;
  const stored = await upsertPendingTotp(db, account.id, keys.seal(secret, account.id), new Date(clock.now()));
  if (!stored) throw alreadyOn();
  return { secret, uri: totpOf(secret, issuer, account.username).toString() };
}

/** The 30-second step a 6-digit code belongs to, near `nowMs`, or undefined when it is not one. */
function matchingStep(secret: string, code: string, nowMs: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = totpOf(secret, 'Nativa', 'account').validate({ token: code, timestamp: nowMs, window: TOTP_WINDOW });
  return delta === null ? undefined : Math.floor(nowMs / 1000 / TOTP_PERIOD_S) + delta;
}

/** Ten new recovery codes (`xxxxx-xxxxx`), and their keyed hashes to store. */
function newRecoveryCodes(keys: AccountKeys): { codes: string[]; hashes: Buffer[] } {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const letters = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
    return `${letters.slice(0, 5)}-${letters.slice(5)}`;
  });
  return { codes, hashes: codes.map((code) => keys.hashRecoveryCode(code)) };
}

/** Confirms enrolment with a code from the new secret; answers the recovery codes, shown this once. */
export async function confirmEnrolment(
  dependencies: TwoFactorDependencies,
  actor: Actor,
  accountId: number,
  code: string,
): Promise<string[]> {
  const { db, clock, keys } = dependencies;
  const now = new Date(clock.now());
  const credential = await findTotpCredential(db, accountId);
  if (credential?.confirmed_at != null) throw alreadyOn();
  const secret = credential === undefined ? undefined : keys.open(credential.sealed_secret, accountId);
  if (secret === undefined)
    throw new DomainError('two_factor_not_started', 'Start the enrolment first: it gives the secret to scan.');
  const step = matchingStep(secret, code.trim(), now.getTime());
  if (step === undefined) throw invalidField('code', 'This is not the current code of the authenticator app.');
  const { codes, hashes } = newRecoveryCodes(keys);
  await inTransaction(db, async (trx) => {
    if (!(await confirmTotp(trx, accountId, step, now))) throw alreadyOn();
    await replaceRecoveryCodes(trx, accountId, hashes, now);
    await recordAudit(trx, actor, { action: 'two_factor.enable', objectType: 'account', objectId: accountId }, now);
  });
  return codes;
}

/**
 * Checks a second factor inside `trx`: a current TOTP code (each accepted once) or an unused
 * recovery code (spent). Answers which one it was, or undefined.
 */
export async function checkSecondFactor(
  trx: Db,
  keys: AccountKeys,
  accountId: number,
  code: string,
  now: Date,
): Promise<'totp' | 'recovery-code' | undefined> {
  const typed = code.trim();
  const credential = await findTotpCredential(trx, accountId);
  if (credential?.confirmed_at == null) return undefined;
  const secret = keys.open(credential.sealed_secret, accountId);
  const step = secret === undefined ? undefined : matchingStep(secret, typed, now.getTime());
  if (step !== undefined) return (await advanceTotpStep(trx, accountId, step)) ? 'totp' : undefined;
  if (/^\d{6}$/.test(typed) || typed.length > 40) return undefined;
  return (await spendRecoveryCode(trx, accountId, keys.hashRecoveryCode(typed), now)) ? 'recovery-code' : undefined;
}

/**
 * A second factor asked of a signed-in account before a change (turning it off, new recovery
 * codes): counted by the sign-in throttle like a sign-in, so a session cannot guess codes.
 */
async function requireSecondFactor(
  dependencies: TwoFactorDependencies,
  trx: Db,
  actor: Actor,
  accountId: number,
  code: string,
  now: Date,
): Promise<void> {
  const { throttle, keys } = dependencies;
  const attempt = await throttle.attempt(String(accountId), actor.remoteAddress);
  if (attempt.refused) throw tooManyAttempts(attempt.retryAfterSeconds);
  const used = await checkSecondFactor(trx, keys, accountId, code, now);
  if (used === undefined) {
    throw invalidField('code', 'This is neither the current code of the authenticator app nor an unused recovery code.');
  }
  await attempt.succeeded();
  if (used === 'recovery-code') {
    await recordAudit(trx, actor, { action: 'two_factor.recovery_code_use', objectType: 'account', objectId: accountId }, now);
  }
}

export const tooManyAttempts = (retryAfterSeconds: number) =>
  new DomainError('too_many_sign_ins', 'Too many failed sign-ins. Try again later.', { retryAfterSeconds });

/** A sign-in ticket (or passkey challenge) that has expired or was already used. */
export const signInExpired = () => new DomainError('sign_in_expired', 'This sign-in has expired. Enter your password again.');

/** Turns two-factor sign-in off, with a current code or a recovery code; refused where it is required. */
export async function disableTwoFactor(
  dependencies: TwoFactorDependencies,
  actor: Actor,
  account: { id: number; required: boolean },
  code: string,
): Promise<void> {
  if (account.required) throw new DomainError('two_factor_mandatory', 'Two-factor sign-in is required for this kind of account.');
  const now = new Date(dependencies.clock.now());
  await inTransaction(dependencies.db, async (trx) => {
    if (!(await hasTwoFactor(trx, account.id))) throw new DomainError('two_factor_off', 'Two-factor sign-in is not on.');
    await requireSecondFactor(dependencies, trx, actor, account.id, code, now);
    await deleteTwoFactor(trx, account.id);
    await recordAudit(trx, actor, { action: 'two_factor.disable', objectType: 'account', objectId: account.id }, now);
  });
}

/** Ten new recovery codes in place of the old ones, with a current code or a recovery code. */
export async function renewRecoveryCodes(
  dependencies: TwoFactorDependencies,
  actor: Actor,
  accountId: number,
  code: string,
): Promise<string[]> {
  const now = new Date(dependencies.clock.now());
  const { codes, hashes } = newRecoveryCodes(dependencies.keys);
  await inTransaction(dependencies.db, async (trx) => {
    if (!(await hasTwoFactor(trx, accountId))) throw new DomainError('two_factor_off', 'Two-factor sign-in is not on.');
    await requireSecondFactor(dependencies, trx, actor, accountId, code, now);
    await replaceRecoveryCodes(trx, accountId, hashes, now);
    await recordAudit(trx, actor, { action: 'two_factor.recovery_codes_renew', objectType: 'account', objectId: accountId }, now);
  });
  return codes;
}

/** An operator removes an account's two-factor sign-in (a lost phone and lost codes); audited. */
/**
 * An operator's reset of an account's second factor. `endSessions` ends the account's sessions in
 * the same transaction (the sessions module's, passed in: that module already depends on this one).
 */
export async function resetTwoFactor(
  db: Db,
  actor: Actor,
  accountId: number,
  now: Date,
  endSessions: (trx: Db) => Promise<number>,
): Promise<void> {
  await inTransaction(db, async (trx) => {
    if ((await findAccount(trx, accountId)) === undefined) throw notFound('User');
    const wasOn = await deleteTwoFactor(trx, accountId);
    if (!wasOn) throw new DomainError('two_factor_off', 'This account has no two-factor sign-in to reset.');
    // A reset answers a lost authenticator, or a stolen one: whoever is signed in must sign in again.
    const sessionsEnded = await endSessions(trx);
    await recordAudit(
      trx,
      actor,
      {
        action: 'two_factor.reset',
        objectType: 'account',
        objectId: accountId,
        subjectAccountId: accountId,
        after: { sessionsEnded },
      },
      now,
    );
  });
}

/**
 * Spends a signed ticket so that it works once (tickets themselves are never stored, so asking
 * for one writes nothing).
 */
export async function spendTicket(trx: Db, ticketText: string, expiresAtMs: number, now: Date): Promise<boolean> {
  return spendChallenge(trx, createHash('sha256').update(ticketText).digest(), new Date(expiresAtMs), now);
}

export type { TicketPurpose };
