import { notFound } from '../../../errors.ts';
import { asModerationStatus, MODERATION, MODERATION_STATUSES, type ModeratedKind } from '../../moderation/index.ts';
import { findCampaign, findModerationStatusForUpdate, setCampaignModeration } from './campaign-repository.ts';

type DecidedCampaign = NonNullable<Awaited<ReturnType<typeof setCampaignModeration>>>;

/** How moderation reads and writes campaigns (the moderation module's one decision flow takes it). */
export const campaignModeration: ModeratedKind<DecidedCampaign> = {
  auditType: 'campaign',
  noticeObject: 'campaign',
  missing: 'Campaign',
  statuses: { waiting: MODERATION.moderation, rejected: MODERATION.rejected },
  notRejected: 'Only a rejected campaign can be sent back to moderation.',
  outcomeOf: (status) => MODERATION_STATUSES[asModerationStatus(status)],
  lockStatus: findModerationStatusForUpdate,
  async ownStatus(trx, advertiserId, id) {
    const campaign = await findCampaign(trx, advertiserId, id);
    if (campaign === undefined) throw notFound('Campaign');
    return campaign.moderation_status;
  },
  write: (trx, id, { status, reason }, now) => setCampaignModeration(trx, id, asModerationStatus(status), reason, now),
  read: (row) => ({
    id: row.id,
    ownerId: row.advertiser_id,
    name: row.title,
    status: row.moderation_status,
    reason: row.moderation_reason,
  }),
  event: (row) => ({ type: 'campaign.moderated', data: { campaignId: row.id, status: row.moderation_status } }),
};
