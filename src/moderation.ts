import { Type } from '@sinclair/typebox';

/**
 * Moderation decisions of campaigns and ads, as stored (`moderation_status`): the index of each
 * name is its code. Serving shows only what is approved.
 */
export const MODERATION_STATUSES = ['moderation', 'approved', 'rejected'] as const;

export type ModerationStatus = 0 | 1 | 2;

export const MODERATION: { readonly [Name in (typeof MODERATION_STATUSES)[number]]: ModerationStatus } = {
  moderation: 0,
  approved: 1,
  rejected: 2,
};

/** The stored code read back as a status (the column is a plain integer). */
export const asModerationStatus = (code: number): ModerationStatus => code as ModerationStatus;

/** A moderation status in a request or response: its code. */
export const ModerationStatusSchema = (description = 'Moderation status: 0 moderation (waiting), 1 approved, 2 rejected.') =>
  Type.Integer({ minimum: 0, maximum: MODERATION_STATUSES.length - 1, description });

/** The moderation status now in force for a campaign or an ad. */
export interface ModerationDecision {
  id: number;
  status: ModerationStatus;
}
