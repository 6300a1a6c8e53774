import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import { listPage, pageParameters } from '../../http/pagination.ts';
import type { App } from '../../http/routes.ts';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { asModerationStatus, ModerationStatusSchema } from '../../moderation.ts';
import { campaignModerationQueue, moderateCampaign } from './campaigns/campaign-service.ts';
import { moderateOffer, offerModerationQueue } from './offers/offer-service.ts';

const DecisionBody = Type.Object({ status: ModerationStatusSchema() }, { additionalProperties: false });
const QueueQuery = Type.Object({ ...pageParameters, status: Type.Optional(ModerationStatusSchema()) });

const Decision = Type.Object(
  { id: Type.Integer({ description: 'Object id.' }), status: ModerationStatusSchema() },
  { description: 'The moderation status now in force.' },
);

const CampaignQueueItem = Type.Object({
  id: Type.Integer({ description: 'Campaign id.' }),
  advertiserId: Type.Integer({ description: 'Owning advertiser.' }),
  title: Type.String({ description: 'Title.' }),
  status: ModerationStatusSchema(),
  archived: Type.Boolean({ description: 'Archived by its advertiser.' }),
});

const OfferQueueItem = Type.Object({
  id: Type.Integer({ description: 'Ad id.' }),
  campaignId: Type.Integer({ description: 'Campaign id.' }),
  advertiserId: Type.Integer({ description: 'Owning advertiser.' }),
  title: Type.String({ description: 'Product title.' }),
  status: ModerationStatusSchema(),
});

const statusOf = (status: number | undefined) => (status === undefined ? undefined : asModerationStatus(status));

/** The operator's moderation of campaigns and ads: decisions and the queues to take them from. */
export function registerModerationRoutes(app: App, context: AppContext): void {
  const { db, clock } = context;
  const tags = ['Operator'];

  // Campaigns and ads are moderated the same way: one decision route each.
  const decisions = [
    { path: '/api/admin/campaigns/:id', operationId: 'adminModerateCampaign', noun: 'a campaign', decide: moderateCampaign },
    { path: '/api/admin/offers/:id', operationId: 'adminModerateOffer', noun: 'an ad', decide: moderateOffer },
  ] as const;
  for (const { path, operationId, noun, decide } of decisions) {
    app.put(
      path,
      {
        schema: {
          tags,
          operationId,
          summary: `Approve or reject ${noun} (or send it back to moderation).`,
          params: IdParams,
          body: DecisionBody,
          response: { 200: Decision, ...errorResponses(401, 403, 404, 422) },
        },
      },
      async (request) => decide(db, request.params.id, asModerationStatus(request.body.status), new Date(clock.now())),
    );
  }

  app.get(
    '/api/admin/campaigns',
    {
      schema: {
        tags,
        operationId: 'adminListCampaigns',
        summary: 'Campaigns by moderation status (`status=0`: the moderation queue), oldest first.',
        querystring: QueueQuery,
        response: { 200: Type.Array(CampaignQueueItem), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const status = statusOf(request.query.status);
      const rows = await listPage(request, reply, (limit, offset) => campaignModerationQueue(db, status, limit, offset));
      return rows.map((row) => ({
        id: row.id,
        advertiserId: row.advertiser_id,
        title: row.title,
        status: asModerationStatus(row.moderation_status),
        archived: row.archived,
      }));
    },
  );

  app.get(
    '/api/admin/offers',
    {
      schema: {
        tags,
        operationId: 'adminListOffers',
        summary: 'Ads (not deleted) by moderation status (`status=0`: the moderation queue), oldest first.',
        querystring: QueueQuery,
        response: { 200: Type.Array(OfferQueueItem), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const status = statusOf(request.query.status);
      const rows = await listPage(request, reply, (limit, offset) => offerModerationQueue(db, status, limit, offset));
      return rows.map((row) => ({
        id: row.id,
        campaignId: row.campaign_id,
        advertiserId: row.advertiser_id,
        title: row.title,
        status: asModerationStatus(row.moderation_status),
      }));
    },
  );
}
