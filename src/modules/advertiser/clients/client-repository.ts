import type { Db } from '../../../db/database.ts';
import type { AccountRow } from '../../accounts/account-repository.ts';

/** An account that is a referral of `parentId`; undefined for any other account. */
export async function findReferral(db: Db, parentId: number, id: number): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).where('parent_id', '=', parentId).executeTakeFirst();
}
