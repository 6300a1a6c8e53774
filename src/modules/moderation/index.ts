/**
 * What other modules use of moderation: the statuses of campaigns and ads, the last rejections and
 * owners' names the operators' lists show, the shape of a moderated kind (ModeratedKind, and
 * ModeratedSites for the sites' routes), which the modules owning campaigns, ads and sites each
 * provide for their own table, and a decision its caller audits itself (the invalid-traffic ban).
 */
export type { ModeratedKind, ModeratedSites } from './moderated-kind.ts';
export { LastRejectionSchema, lastRejections, ownerNames } from './moderation-input.ts';
export { applyDecision } from './moderation-service.ts';
export {
  asModerationStatus,
  MODERATION,
  MODERATION_STATUSES,
  type ModerationStatus,
  moderationStatusOf,
} from './moderation-status.ts';
