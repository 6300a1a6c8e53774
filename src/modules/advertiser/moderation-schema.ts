import { Type } from '@sinclair/typebox';
import { pageParameters } from '../../http/pagination.ts';
import { ModerationStatusSchema } from '../../moderation.ts';

/** The shapes of the operator's moderation of campaigns and ads, which work the same way. */

export const ModerationDecisionBody = Type.Object({ status: ModerationStatusSchema() }, { additionalProperties: false });

export const ModerationQueueQuery = Type.Object({ ...pageParameters, status: Type.Optional(ModerationStatusSchema()) });

export const ModerationDecisionSchema = Type.Object(
  { id: Type.Integer({ description: 'Object id.' }), status: ModerationStatusSchema() },
  { description: 'The moderation status now in force.' },
);
