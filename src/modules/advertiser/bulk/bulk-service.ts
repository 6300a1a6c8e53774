import type { Db } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { DomainError, type FieldError, validationFailed } from '../../../errors.ts';
import type { DeviceId } from '../../statistics/index.ts';
import { applyCampaignChange, type CampaignChange, copyCampaign, requireCampaign } from '../campaigns/campaign-service.ts';
import { copyCampaignCoefficients, setDeviceCoefficient, setSiteCoefficient } from '../coefficients/coefficient-service.ts';
import type { SiteTarget } from '../coefficients/targets.ts';
import { changeOffer, copyOffersOfCampaign } from '../offers/offer-service.ts';

/**
 * Work on many of an advertiser's campaigns or ads in one request: all or nothing. Every id is
 * tried inside one transaction; when any fails, the transaction is rolled back and the 422 names
 * each failing id (`ids[n]`) with why, so nothing changed and the caller sees every problem at once.
 */
async function forEachId(db: Db, ids: readonly number[], work: (trx: Db, id: number) => Promise<void>): Promise<number[]> {
  const unique = [...new Set(ids)];
  await inTransaction(db, async (trx) => {
    const problems: FieldError[] = [];
    for (const id of unique) {
      try {
        await work(trx, id);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        const detail = error.fieldErrors?.map((entry) => `${entry.field}: ${entry.message}`).join(' ') || error.message;
        problems.push({ field: `ids[${ids.indexOf(id)}]`, message: `${id}: ${detail}` });
      }
    }
    if (problems.length > 0) throw validationFailed(problems);
  });
  return unique;
}

/** The same change on many campaigns (switch, archive, delivery and control fields). */
export function changeCampaigns(
  db: Db,
  advertiserId: number,
  ids: readonly number[],
  change: CampaignChange,
  now: Date,
  platformTimeZone: string,
): Promise<number[]> {
  return forEachId(db, ids, (trx, id) => applyCampaignChange(trx, advertiserId, id, change, now, platformTimeZone));
}

/** Switches many ads on or off. */
export function switchOffers(db: Db, advertiserId: number, ids: readonly number[], active: boolean, now: Date) {
  return forEachId(db, ids, (trx, id) => changeOffer(trx, advertiserId, id, { active }, now));
}

/** One coefficient, of a site or block or of a device type, set on many campaigns. */
export type BulkCoefficient = { site: SiteTarget; coef: number } | { device: DeviceId; coef: number };

export function setCoefficients(db: Db, advertiserId: number, ids: readonly number[], change: BulkCoefficient, now: Date) {
  return forEachId(db, ids, async (trx, campaignId) => {
    const common = { advertiserId, campaignId, coef: change.coef, now };
    if ('site' in change) await setSiteCoefficient(trx, { ...common, target: change.site });
    else await setDeviceCoefficient(trx, { ...common, device: change.device });
  });
}

/**
 * A copy of one of the advertiser's campaigns, titled "… (copy)", with its settings, its
 * coefficients and its ads (deleted ones aside), the campaign and every ad awaiting moderation.
 * Answers the new campaign's id.
 */
export async function duplicateCampaign(db: Db, advertiserId: number, id: number, now: Date): Promise<number> {
  return inTransaction(db, async (trx) => {
    const original = await requireCampaign(trx, advertiserId, id);
    const copyId = await copyCampaign(trx, original, now);
    await copyCampaignCoefficients(trx, id, copyId, now);
    await copyOffersOfCampaign(trx, id, copyId, now);
    return copyId;
  });
}
