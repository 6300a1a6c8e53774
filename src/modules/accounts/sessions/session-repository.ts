import type { Db } from '../../../db/database.ts';
import type { PasswordTokenPurpose, SessionMethod } from '../../../db/schema.ts';
import { truncatedAddressText } from '../../../shared/stored-address.ts';

export async function insertSession(
  db: Db,
  session: {
    accountId: number;
    tokenHash: Buffer;
    now: Date;
    expiresAt: Date;
    userAgent: string;
    address: string;
    method: SessionMethod;
  },
) {
  return db
    .insertInto('sessions')
    .values({
      account_id: session.accountId,
      token_hash: session.tokenHash,
      created_at: session.now,
      last_seen_at: session.now,
      expires_at: session.expiresAt,
      revoked_at: null,
      user_agent: session.userAgent,
      remote_address: truncatedAddressText(session.address),
      method: session.method,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

/**
 * A live session (not revoked, not idle past its expiry, not older than `createdAfter`) with its
 * account's kind and whether the account has two-factor sign-in on.
 */
export async function findLiveSession(db: Db, tokenHash: Buffer, now: Date, createdAfter: Date) {
  return db
    .selectFrom('sessions')
    .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
    .leftJoin('totp_credentials', 'totp_credentials.account_id', 'sessions.account_id')
    .select(['sessions.id', 'sessions.account_id', 'sessions.last_seen_at', 'sessions.created_at', 'accounts.kind'])
    .select((eb) => eb('totp_credentials.confirmed_at', 'is not', null).as('two_factor'))
    .where('sessions.token_hash', '=', tokenHash)
    .where('sessions.revoked_at', 'is', null)
    .where('sessions.expires_at', '>', now)
    .where('sessions.created_at', '>', createdAfter)
    .where('accounts.suspended_at', 'is', null)
    .executeTakeFirst();
}

export async function extendSession(db: Db, id: number, now: Date, expiresAt: Date, address: string): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ last_seen_at: now, expires_at: expiresAt, remote_address: truncatedAddressText(address) })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
}

/** An account's live sessions, the most recently used first. */
export async function listLiveSessions(db: Db, accountId: number, now: Date, createdAfter: Date) {
  return db
    .selectFrom('sessions')
    .select(['id', 'created_at', 'last_seen_at', 'expires_at', 'user_agent', 'remote_address', 'method'])
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .where('created_at', '>', createdAfter)
    .orderBy('last_seen_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** Revokes one live session of the account; false when it has no such session. */
export async function revokeAccountSession(db: Db, accountId: number, id: number, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function revokeSession(db: Db, id: number, now: Date): Promise<void> {
  await db.updateTable('sessions').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

/** Revokes every live session of an account except `keepId` (the one making the change, if any). */
export async function revokeSessionsOf(db: Db, accountId: number, now: Date, keepId?: number): Promise<number> {
  let query = db
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null);
  if (keepId !== undefined) query = query.where('id', '<>', keepId);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function insertPasswordToken(
  db: Db,
  token: { tokenHash: Buffer; accountId: number; purpose: PasswordTokenPurpose; now: Date; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('password_tokens')
    .values({
      token_hash: token.tokenHash,
      account_id: token.accountId,
      purpose: token.purpose,
      expires_at: token.expiresAt,
      used_at: null,
      created_at: token.now,
    })
    .execute();
}

/** Spends a password token if it is unspent and unexpired; returns its account, or undefined. */
export async function spendPasswordToken(db: Db, tokenHash: Buffer, now: Date) {
  return db
    .updateTable('password_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['account_id', 'purpose'])
    .executeTakeFirst();
}

/** Spends every other unspent token of an account, so an older reset link dies with the password it would replace. */
export async function spendPasswordTokensOf(db: Db, accountId: number, now: Date): Promise<void> {
  await db
    .updateTable('password_tokens')
    .set({ used_at: now })
    .where('account_id', '=', accountId)
    .where('used_at', 'is', null)
    .execute();
}
