/**
 * What other modules use of moderation: the statuses of campaigns and ads, the last rejections and
 * owners' names the operators' lists show, and the shape of a moderated kind (ModeratedKind), which
 * the modules owning campaigns, ads and sites each provide for their own table.
 *
 * The decision flow itself (decide, resubmit, applyDecision) is this module's service,
 * moderation-service.ts, and is not re-exported here: it fires webhooks, the webhooks module reads
 * campaigns, and campaigns' repository reads these statuses, so re-exporting it would make an
 * import cycle. This file imports no other module's service.
 */
export type { ModeratedKind, ModeratedSites } from './moderated-kind.ts';
export { LastRejectionSchema, lastRejections, ownerNames } from './moderation-input.ts';
export {
  asModerationStatus,
  MODERATION,
  MODERATION_STATUSES,
  type ModerationStatus,
  moderationStatusOf,
} from './moderation-status.ts';
