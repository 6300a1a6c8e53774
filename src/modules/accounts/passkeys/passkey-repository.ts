import type { Db } from '../../../db/database.ts';

export async function insertPasskey(
  db: Db,
  passkey: {
    accountId: number;
    credentialId: string;
    publicKey: Buffer;
    counter: number;
    transports: string[];
    name: string;
    backedUp: boolean;
    now: Date;
  },
) {
  return db
    .insertInto('passkeys')
    .values({
      account_id: passkey.accountId,
      credential_id: passkey.credentialId,
      public_key: passkey.publicKey,
      counter: passkey.counter,
      transports: passkey.transports,
      name: passkey.name,
      backed_up: passkey.backedUp,
      created_at: passkey.now,
      last_used_at: null,
    })
    .onConflict((conflict) => conflict.column('credential_id').doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function findPasskeyByCredential(db: Db, credentialId: string) {
  return db
    .selectFrom('passkeys')
    .innerJoin('accounts', 'accounts.id', 'passkeys.account_id')
    .selectAll('passkeys')
    .select('accounts.kind')
    .where('passkeys.credential_id', '=', credentialId)
    .executeTakeFirst();
}

export async function listAccountPasskeys(db: Db, accountId: number) {
  return db.selectFrom('passkeys').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

/** Records a use: the authenticator's new signature counter and the time. */
export async function markPasskeyUsed(db: Db, id: number, counter: number, now: Date): Promise<void> {
  await db.updateTable('passkeys').set({ counter, last_used_at: now }).where('id', '=', id).execute();
}

export async function deletePasskey(db: Db, accountId: number, id: number) {
  return db
    .deleteFrom('passkeys')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .returning(['id', 'name'])
    .executeTakeFirst();
}
