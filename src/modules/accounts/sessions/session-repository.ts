import type { Db } from '../../../db/database.ts';
import type { PasswordTokenPurpose } from '../../../db/schema.ts';

export async function insertSession(db: Db, session: { accountId: number; tokenHash: Buffer; now: Date; expiresAt: Date }) {
  return db
    .insertInto('sessions')
    .values({
      account_id: session.accountId,
      token_hash: session.tokenHash,
      created_at: session.now,
      last_seen_at: session.now,
      expires_at: session.expiresAt,
      revoked_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

/** A live session (not revoked, not expired at `now`) with its account's kind. */
export async function findLiveSession(db: Db, tokenHash: Buffer, now: Date) {
  return db
    .selectFrom('sessions')
    .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
    .select(['sessions.id', 'sessions.account_id', 'sessions.last_seen_at', 'accounts.kind'])
    .where('sessions.token_hash', '=', tokenHash)
    .where('sessions.revoked_at', 'is', null)
    .where('sessions.expires_at', '>', now)
    .executeTakeFirst();
}

export async function extendSession(db: Db, id: number, now: Date, expiresAt: Date): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ last_seen_at: now, expires_at: expiresAt })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function revokeSession(db: Db, id: number, now: Date): Promise<void> {
  await db.updateTable('sessions').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

/** Revokes every live session of an account except `keepId` (the one making the change, if any). */
export async function revokeSessionsOf(db: Db, accountId: number, now: Date, keepId?: number): Promise<void> {
  let query = db
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null);
  if (keepId !== undefined) query = query.where('id', '<>', keepId);
  await query.execute();
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
