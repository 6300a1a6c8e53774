import { notFound } from '../../../errors.ts';
import { asModerationStatus, MODERATION, MODERATION_STATUSES, type ModeratedKind } from '../../moderation/index.ts';
import {
  dropApprovedVersion,
  findOffer,
  findOfferModerationStatusForUpdate,
  keepApprovedVersion,
  setOfferModeration,
} from './offer-repository.ts';

type DecidedOffer = NonNullable<Awaited<ReturnType<typeof setOfferModeration>>>;

/**
 * How moderation reads and writes ads (the moderation module's one decision flow takes it). An
 * approved ad sent back to the queue keeps serving its approved version until the next decision,
 * which makes that version moot (docs/moderation.md).
 */
export const offerModeration: ModeratedKind<DecidedOffer> = {
  auditType: 'offer',
  noticeObject: 'ad',
  missing: 'Ad',
  statuses: { waiting: MODERATION.moderation, rejected: MODERATION.rejected },
  notRejected: 'Only a rejected ad can be sent back to moderation.',
  outcomeOf: (status) => MODERATION_STATUSES[asModerationStatus(status)],
  lockStatus: findOfferModerationStatusForUpdate,
  async ownStatus(trx, advertiserId, id) {
    const offer = await findOffer(trx, advertiserId, id);
    if (offer === undefined) throw notFound('Offer');
    return offer.moderation_status;
  },
  async write(trx, id, { status, reason }, now) {
    if (status === MODERATION.moderation) await keepApprovedVersion(trx, id, now);
    const decided = await setOfferModeration(trx, id, asModerationStatus(status), reason, now);
    if (decided !== undefined && status !== MODERATION.moderation) await dropApprovedVersion(trx, id);
    return decided;
  },
  read: (row) => ({
    id: row.id,
    ownerId: Number(row.advertiser_id),
    name: row.title,
    status: row.moderation_status,
    reason: row.moderation_reason,
  }),
  event: (row) => ({
    type: 'ad.moderated',
    data: { adId: row.id, campaignId: row.campaign_id, status: row.moderation_status },
  }),
};
