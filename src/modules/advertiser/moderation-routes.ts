import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import { listPage, pageParameters } from '../../http/pagination.ts';
import { actorOf, inRequestTransaction } from '../../http/request-write.ts';
import type { App } from '../../http/routes.ts';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { asModerationStatus, ModerationStatusSchema } from '../../moderation.ts';
import { microsToAmount } from '../../money.ts';
import { recordAudit } from '../audit/audit-service.ts';
import { ImageSchema, toImage } from '../images/image-schema.ts';
import { campaignModerationQueue, campaignModerationStatus, moderateCampaign } from './campaigns/campaign-service.ts';
import { moderateOffer, offerModerationQueue, offerModerationStatus } from './offers/offer-service.ts';

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
  geo: Type.Array(Type.String(), { description: 'Targeted countries (ISO 3166-1 alpha-2); empty means all.' }),
  isRetarget: Type.Boolean({ description: 'Whether it is a retargeting campaign.' }),
  status: ModerationStatusSchema(),
  archived: Type.Boolean({ description: 'Archived by its advertiser.' }),
  date: Type.String({ format: 'date-time', description: 'When it was created.' }),
});

const NullableImage = (description: string) => Type.Union([ImageSchema, Type.Null()], { description });

const OfferQueueItem = Type.Object({
  id: Type.Integer({ description: 'Ad id.' }),
  campaignId: Type.Integer({ description: 'Campaign id.' }),
  advertiserId: Type.Integer({ description: 'Owning advertiser.' }),
  campaignTitle: Type.String({ description: 'Title of its campaign.' }),
  title: Type.String({ description: 'Product title.' }),
  opis: Type.String({ description: 'Product description.' }),
  cost: Type.String({ description: 'Product price as the teaser shows it.' }),
  url: Type.String({ description: 'Target URL.' }),
  stavka: Type.Number({ description: 'Price per click (the bid), in currency units.' }),
  img: NullableImage('The square image, as blocks show it.'),
  img_wide: NullableImage('The rectangular image, as blocks show it.'),
  status: ModerationStatusSchema(),
  date: Type.String({ format: 'date-time', description: 'When it was created.' }),
});

const statusOf = (status: number | undefined) => (status === undefined ? undefined : asModerationStatus(status));

/** The operator's moderation of campaigns and ads: decisions and the queues to take them from. */
export function registerModerationRoutes(app: App, context: AppContext): void {
  const { db, clock } = context;
  const tags = ['Operator'];

  // Campaigns and ads are moderated the same way: one decision route each.
  const decisions = [
    {
      path: '/api/admin/campaigns/:id',
      operationId: 'adminModerateCampaign',
      noun: 'a campaign',
      object: 'campaign',
      current: campaignModerationStatus,
      decide: moderateCampaign,
    },
    {
      path: '/api/admin/offers/:id',
      operationId: 'adminModerateOffer',
      noun: 'an ad',
      object: 'offer',
      current: offerModerationStatus,
      decide: moderateOffer,
    },
  ] as const;
  for (const { path, operationId, noun, object, current, decide } of decisions) {
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
      async (request) => {
        const now = new Date(clock.now());
        return inRequestTransaction(request, db, async (trx) => {
          const before = await current(trx, request.params.id);
          const decision = await decide(trx, request.params.id, asModerationStatus(request.body.status), now);
          const change = {
            action: `${object}.moderate`,
            objectType: object,
            objectId: decision.id,
            before: before === undefined ? null : { status: asModerationStatus(before) },
            after: { status: decision.status },
          };
          await recordAudit(trx, actorOf(request), change, now);
          return decision;
        });
      },
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
        geo: row.geo,
        isRetarget: row.is_retarget,
        status: asModerationStatus(row.moderation_status),
        archived: row.archived,
        date: row.created_at.toISOString(),
      }));
    },
  );

  app.get(
    '/api/admin/offers',
    {
      schema: {
        tags,
        operationId: 'adminListOffers',
        summary: 'Ads (not deleted) by moderation status (`status=0`: the moderation queue), oldest first, with what they show.',
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
        campaignTitle: row.campaign_title,
        title: row.title,
        opis: row.description,
        cost: row.price_text,
        url: row.url,
        stavka: microsToAmount(row.bid_micros),
        img: toImage(request, row.image_square, 'square'),
        img_wide: toImage(request, row.image_wide, 'rectangle'),
        status: asModerationStatus(row.moderation_status),
        date: row.created_at.toISOString(),
      }));
    },
  );
}
