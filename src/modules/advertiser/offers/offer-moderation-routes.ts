import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { listPage } from '../../../http/pagination.ts';
import type { App } from '../../../http/routes.ts';
import { errorResponses, IdParams } from '../../../http/schemas.ts';
import { asModerationStatus, ModerationStatusSchema } from '../../../moderation.ts';
import { ModerationDecisionBody, ModerationDecisionSchema, ModerationQueueQuery } from '../moderation-schema.ts';
import { listOffersForModeration } from './offer-repository.ts';
import { moderateOffer } from './offer-service.ts';

const OfferQueueItem = Type.Object({
  id: Type.Integer({ description: 'Ad id.' }),
  campaignId: Type.Integer({ description: 'Campaign id.' }),
  advertiserId: Type.Integer({ description: 'Owning advertiser.' }),
  title: Type.String({ description: 'Product title.' }),
  status: ModerationStatusSchema(),
});

/** The operator's moderation of ads: the queue and the decisions. */
export function registerOfferModerationRoutes(app: App, context: AppContext): void {
  const { db, clock } = context;
  const tags = ['Operator'];

  app.put(
    '/api/admin/offers/:id',
    {
      schema: {
        tags,
        operationId: 'adminModerateOffer',
        summary: 'Approve or reject an ad (or send it back to moderation).',
        params: IdParams,
        body: ModerationDecisionBody,
        response: { 200: ModerationDecisionSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => moderateOffer(db, request.params.id, asModerationStatus(request.body.status), new Date(clock.now())),
  );

  app.get(
    '/api/admin/offers',
    {
      schema: {
        tags,
        operationId: 'adminListOffers',
        summary: 'Ads (not deleted) by moderation status (`status=0`: the moderation queue), oldest first.',
        querystring: ModerationQueueQuery,
        response: { 200: Type.Array(OfferQueueItem), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const { status } = request.query;
      const rows = await listPage(request, reply, (limit, offset) =>
        listOffersForModeration(db, status === undefined ? undefined : asModerationStatus(status), limit, offset),
      );
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
