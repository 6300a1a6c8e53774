import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';

export async function findTotpCredential(db: Db, accountId: number) {
  return db.selectFrom('totp_credentials').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

/** Starts (or restarts) an enrolment: a new sealed secret, not yet confirmed. Never replaces a confirmed one. */
export async function upsertPendingTotp(db: Db, accountId: number, sealedSecret: Buffer, now: Date): Promise<boolean> {
  const result = await db
    .insertInto('totp_credentials')
    .values({ account_id: accountId, sealed_secret: sealedSecret, confirmed_at: null, created_at: now })
    .onConflict((conflict) =>
      conflict
        .column('account_id')
        .doUpdateSet({ sealed_secret: sealedSecret, created_at: now, last_step: 0 })
        .where('totp_credentials.confirmed_at', 'is', null),
    )
    .returning('account_id')
    .executeTakeFirst();
  return result !== undefined;
}

export async function confirmTotp(db: Db, accountId: number, step: number, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('totp_credentials')
    .set({ confirmed_at: now, last_step: step })
    .where('account_id', '=', accountId)
    .where('confirmed_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Records that the code of `step` was used; false when it (or a later one) already was, so a code works once. */
export async function advanceTotpStep(db: Db, accountId: number, step: number): Promise<boolean> {
  const result = await db
    .updateTable('totp_credentials')
    .set({ last_step: step })
    .where('account_id', '=', accountId)
    .where('confirmed_at', 'is not', null)
    .where('last_step', '<', step)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Removes the account's TOTP secret and recovery codes; true when it had two-factor sign-in on. */
export async function deleteTwoFactor(db: Db, accountId: number): Promise<boolean> {
  await db.deleteFrom('recovery_codes').where('account_id', '=', accountId).execute();
  const deleted = await db
    .deleteFrom('totp_credentials')
    .where('account_id', '=', accountId)
    .returning('confirmed_at')
    .executeTakeFirst();
  return deleted?.confirmed_at !== undefined && deleted.confirmed_at !== null;
}

export async function replaceRecoveryCodes(db: Db, accountId: number, hashes: Buffer[], now: Date): Promise<void> {
  await db.deleteFrom('recovery_codes').where('account_id', '=', accountId).execute();
  await db
    .insertInto('recovery_codes')
    .values(hashes.map((code_hash) => ({ account_id: accountId, code_hash, used_at: null, created_at: now })))
    .execute();
}

/** Spends an unused recovery code of the account; false when there is no such code. */
export async function spendRecoveryCode(db: Db, accountId: number, codeHash: Buffer, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('recovery_codes')
    .set({ used_at: now })
    .where('account_id', '=', accountId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function countUnusedRecoveryCodes(db: Db, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('recovery_codes')
    .select(sql<number>`count(*)::int`.as('count'))
    .where('account_id', '=', accountId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return row.count;
}

/**
 * Marks a signed ticket as used, and sweeps those past their end; false when it already was
 * used, so each ticket works once.
 */
export async function spendChallenge(db: Db, challengeHash: Buffer, expiresAt: Date, now: Date): Promise<boolean> {
  await db.deleteFrom('spent_challenges').where('expires_at', '<', now).execute();
  const inserted = await db
    .insertInto('spent_challenges')
    .values({ challenge_hash: challengeHash, expires_at: expiresAt })
    .onConflict((conflict) => conflict.column('challenge_hash').doNothing())
    .returning('challenge_hash')
    .executeTakeFirst();
  return inserted !== undefined;
}
