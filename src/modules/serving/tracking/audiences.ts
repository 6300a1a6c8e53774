import type { Db } from '../../../db/database.ts';
import type { Snapshot } from '../snapshot/snapshot.ts';
import { isAdvertiser, upsertAudienceMember } from './tracking-repository.ts';

/** Stores a visitor in an advertiser's retargeting audience (seen now). */
export async function joinAudience(db: Db, advertiserId: number, visitorId: string, nowMs: number): Promise<void> {
  await upsertAudienceMember(db, advertiserId, visitorId, new Date(nowMs));
}

/** Puts the member into this instance's snapshot at once: other instances see it at their next rebuild. */
export function rememberAudienceMember(snapshot: Snapshot, advertiserId: number, visitorId: string): void {
  let set = snapshot.audiences.get(visitorId);
  if (set === undefined) {
    set = new Set();
    snapshot.audiences.set(visitorId, set);
  }
  set.add(advertiserId);
}

/** Whether an audience pixel names an advertiser (anything else adds no one). */
export function audienceExists(db: Db, advertiserId: number): Promise<boolean> {
  return isAdvertiser(db, advertiserId);
}
