import { Type } from '@sinclair/typebox';

/**
 * Moderation decisions of campaigns and ads, as stored (`moderation_status`): the index of each
 * name is its code. Serving shows only what is approved.
 */
export const MODERATION_STATUSES = ['moderation', 'approved', 'rejected'] as const;

export type ModerationName = (typeof MODERATION_STATUSES)[number];

/** A status's code: its index in MODERATION_STATUSES (0 | 1 | 2). */
export type ModerationStatus = Exclude<Partial<typeof MODERATION_STATUSES>['length'], (typeof MODERATION_STATUSES)['length']>;

/** Each status's code by name, from the list. */
export const MODERATION = Object.fromEntries(MODERATION_STATUSES.map((name, code) => [name, code])) as {
  readonly [Name in ModerationName]: ModerationStatus;
};

/** The code of a status given by name or by code (`approved` or `1`); undefined for anything else. */
export function moderationStatusOf(word: string): ModerationStatus | undefined {
  const code = MODERATION_STATUSES.indexOf(word as ModerationName);
  if (code >= 0) return code as ModerationStatus;
  return /^\d+$/.test(word) && Number(word) < MODERATION_STATUSES.length ? (Number(word) as ModerationStatus) : undefined;
}

/** The stored code read back as a status (the column is a plain integer). */
export const asModerationStatus = (code: number): ModerationStatus => code as ModerationStatus;

/** A moderation status in a request or response: its code. */
export const ModerationStatusSchema = (description = 'Moderation status: 0 moderation (waiting), 1 approved, 2 rejected.') =>
  Type.Integer({ minimum: 0, maximum: MODERATION_STATUSES.length - 1, description });
