import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { listPage } from '../../../http/pagination.ts';
import type { App } from '../../../http/routes.ts';
import { errorResponses, IdParams } from '../../../http/schemas.ts';
import { asModerationStatus, ModerationStatusSchema } from '../../../moderation.ts';
import { ModerationDecisionBody, ModerationDecisionSchema, ModerationQueueQuery } from '../moderation-schema.ts';
import { listCampaignsForModeration } from './campaign-repository.ts';
import { moderateCampaign } from './campaign-service.ts';

const CampaignQueueItem = Type.Object({
  id: Type.Integer({ description: 'Campaign id.' }),
  advertiserId: Type.Integer({ description: 'Owning advertiser.' }),
  title: Type.String({ description: 'Title.' }),
  status: ModerationStatusSchema(),
  archived: Type.Boolean({ description: 'Archived by its advertiser.' }),
});

/** The operator's moderation of campaigns: the queue and the decisions. */
export function registerCampaignModerationRoutes(app: App, context: AppContext): void {
  const { db, clock } = context;
  const tags = ['Operator'];

  app.put(
    '/api/admin/campaigns/:id',
    {
      schema: {
        tags,
        operationId: 'adminModerateCampaign',
        summary: 'Approve or reject a campaign (or send it back to moderation).',
        params: IdParams,
        body: ModerationDecisionBody,
        response: { 200: ModerationDecisionSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => moderateCampaign(db, request.params.id, asModerationStatus(request.body.status), new Date(clock.now())),
  );

  app.get(
    '/api/admin/campaigns',
    {
      schema: {
        tags,
        operationId: 'adminListCampaigns',
        summary: 'Campaigns by moderation status (`status=0`: the moderation queue), oldest first.',
        querystring: ModerationQueueQuery,
        response: { 200: Type.Array(CampaignQueueItem), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const { status } = request.query;
      const rows = await listPage(request, reply, (limit, offset) =>
        listCampaignsForModeration(db, status === undefined ? undefined : asModerationStatus(status), limit, offset),
      );
      return rows.map((row) => ({
        id: row.id,
        advertiserId: row.advertiser_id,
        title: row.title,
        status: asModerationStatus(row.moderation_status),
        archived: row.archived,
      }));
    },
  );
}
