import type { Db } from '../../../db/database.ts';
import type { Snapshot } from '../snapshot/snapshot.ts';
import { findOfferTarget } from './tracking-repository.ts';

/** Where a click goes: the ad's mobile URL on mobile devices when it has one. */
export function clickTarget(snapshot: Snapshot, offerId: number, mobile: boolean): string | undefined {
  const ad = snapshot.adsById.get(offerId);
  if (ad === undefined) return undefined;
  return mobile && ad.urlMobile !== '' ? ad.urlMobile : ad.url;
}

/**
 * An ad that left the snapshot since its link was signed (paused, its campaign paused or out of
 * budget) still redirects, to the URL moderation approved; one that moderation rejected, that was
 * never approved, or that was deleted, does not.
 */
export async function storedClickTarget(db: Db, offerId: number, mobile: boolean): Promise<string | undefined> {
  const offer = await findOfferTarget(db, offerId);
  if (offer === undefined) return undefined;
  return mobile && offer.url_mobile !== '' ? offer.url_mobile : offer.url;
}
