import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import { listPage, pageParameters } from '../../http/pagination.ts';
import { actorOf, inRequestTransaction } from '../../http/request-write.ts';
import { type App, accountOf } from '../../http/routes.ts';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { asModerationStatus, type ModerationDecision, ModerationStatusSchema } from '../../moderation.ts';
import { microsToAmount } from '../../money.ts';
import { recordAudit } from '../audit/audit-service.ts';
import { ImageSchema, toImage } from '../images/image-schema.ts';
import {
  LastRejectionSchema,
  lastRejections,
  ModerationReasonInput,
  ownerNames,
  reasonOf,
} from '../moderation/moderation-input.ts';
import {
  campaignModerationQueue,
  campaignModerationStatus,
  moderateCampaign,
  resubmitCampaign,
} from './campaigns/campaign-service.ts';
import { moderateOffer, offerModerationQueue, offerModerationStatus, resubmitOffer } from './offers/offer-service.ts';

const DecisionBody = Type.Object(
  { status: ModerationStatusSchema(), reason: Type.Optional(ModerationReasonInput) },
  { additionalProperties: false },
);

const ReasonOutput = Type.Optional(
  Type.String({ description: 'The reason of the last rejection; present until the object is approved.' }),
);

const QueueQuery = Type.Object({ ...pageParameters, status: Type.Optional(ModerationStatusSchema()) });

const Decision = Type.Object(
  { id: Type.Integer({ description: 'Object id.' }), status: ModerationStatusSchema(), reason: ReasonOutput },
  { description: 'The moderation status now in force.' },
);

const CampaignQueueItem = Type.Object({
  id: Type.Integer({ description: 'Campaign id.' }),
  advertiserId: Type.Integer({ description: 'Owning advertiser.' }),
  advertiserName: Type.String({ description: 'The owning advertiser’s name (its login when it has none).' }),
  title: Type.String({ description: 'Title.' }),
  geo: Type.Array(Type.String(), { description: 'Targeted countries (ISO 3166-1 alpha-2); empty means all.' }),
  isRetarget: Type.Boolean({ description: 'Whether it is a retargeting campaign.' }),
  status: ModerationStatusSchema(),
  reason: ReasonOutput,
  lastRejection: LastRejectionSchema,
  archived: Type.Boolean({ description: 'Archived by its advertiser.' }),
  date: Type.String({ format: 'date-time', description: 'When it was created.' }),
});

const NullableImage = (description: string) => Type.Union([ImageSchema, Type.Null()], { description });

const OfferQueueItem = Type.Object({
  id: Type.Integer({ description: 'Ad id.' }),
  campaignId: Type.Integer({ description: 'Campaign id.' }),
  advertiserId: Type.Integer({ description: 'Owning advertiser.' }),
  advertiserName: Type.String({ description: 'The owning advertiser’s name (its login when it has none).' }),
  campaignTitle: Type.String({ description: 'Title of its campaign.' }),
  title: Type.String({ description: 'Product title.' }),
  opis: Type.String({ description: 'Product description.' }),
  cost: Type.String({ description: 'Product price as the teaser shows it.' }),
  url: Type.String({ description: 'Target URL.' }),
  stavka: Type.Number({ description: 'Price per click (the bid), in currency units.' }),
  img: NullableImage('The square image, as blocks show it.'),
  img_wide: NullableImage('The rectangular image, as blocks show it.'),
  status: ModerationStatusSchema(),
  reason: ReasonOutput,
  lastRejection: LastRejectionSchema,
  date: Type.String({ format: 'date-time', description: 'When it was created.' }),
});

/** A decision as the API answers it: the reason only when there is one. */
export const withReason = ({ reason, ...decision }: ModerationDecision) => (reason === null ? decision : { ...decision, reason });

const withRejection = (rejection: { reason: string | null; date: string } | undefined) =>
  rejection === undefined ? {} : { lastRejection: rejection };

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
          const wanted = { status: asModerationStatus(request.body.status), reason: reasonOf(request.body.reason) };
          const decision = await decide(trx, request.params.id, wanted, now);
          const change = {
            action: `${object}.moderate`,
            objectType: object,
            objectId: decision.id,
            before: before === undefined ? null : { status: asModerationStatus(before) },
            after: { status: decision.status, reason: decision.reason },
          };
          await recordAudit(trx, actorOf(request), change, now);
          return withReason(decision);
        });
      },
    );
  }

  // The owner's side: a rejected campaign or ad, once changed, goes back to the queue.
  const resubmissions = [
    {
      path: '/api/advertiser/campaigns/resubmit/:id',
      operationId: 'resubmitCampaign',
      tag: 'Campaigns',
      noun: 'campaign',
      object: 'campaign',
      resubmit: resubmitCampaign,
    },
    {
      path: '/api/advertiser/offers/resubmit/:id',
      operationId: 'resubmitOffer',
      tag: 'Ads',
      noun: 'ad',
      object: 'offer',
      resubmit: resubmitOffer,
    },
  ] as const;
  for (const { path, operationId, tag, noun, object, resubmit } of resubmissions) {
    app.post(
      path,
      {
        schema: {
          tags: [tag],
          operationId,
          summary: `Send a rejected ${noun} back to moderation (extension); 409 when it is not rejected.`,
          params: IdParams,
          response: { 200: Decision, ...errorResponses(401, 403, 404, 409) },
        },
      },
      async (request) => {
        const now = new Date(clock.now());
        return inRequestTransaction(request, db, async (trx) => {
          const decision = await resubmit(trx, accountOf(request), request.params.id, now);
          const change = {
            action: `${object}.resubmit`,
            objectType: object,
            objectId: decision.id,
            subjectAccountId: accountOf(request),
            before: { status: 2 },
            after: { status: decision.status },
          };
          await recordAudit(trx, actorOf(request), change, now);
          return withReason(decision);
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
      const [names, rejections] = await Promise.all([
        ownerNames(
          db,
          rows.map((row) => row.advertiser_id),
        ),
        lastRejections(
          db,
          'campaign',
          rows.map((row) => row.id),
        ),
      ]);
      return rows.map((row) => ({
        id: row.id,
        advertiserId: row.advertiser_id,
        advertiserName: names.get(row.advertiser_id) ?? '',
        title: row.title,
        geo: row.geo,
        isRetarget: row.is_retarget,
        status: asModerationStatus(row.moderation_status),
        ...(row.moderation_reason === null ? {} : { reason: row.moderation_reason }),
        ...withRejection(rejections.get(row.id)),
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
      const [names, rejections] = await Promise.all([
        ownerNames(
          db,
          rows.map((row) => row.advertiser_id),
        ),
        lastRejections(
          db,
          'offer',
          rows.map((row) => row.id),
        ),
      ]);
      return rows.map((row) => ({
        id: row.id,
        campaignId: row.campaign_id,
        advertiserId: row.advertiser_id,
        advertiserName: names.get(row.advertiser_id) ?? '',
        campaignTitle: row.campaign_title,
        title: row.title,
        opis: row.description,
        cost: row.price_text,
        url: row.url,
        stavka: microsToAmount(row.bid_micros),
        img: toImage(request, row.image_square, 'square'),
        img_wide: toImage(request, row.image_wide, 'rectangle'),
        status: asModerationStatus(row.moderation_status),
        ...(row.moderation_reason === null ? {} : { reason: row.moderation_reason }),
        ...withRejection(rejections.get(row.id)),
        date: row.created_at.toISOString(),
      }));
    },
  );
}
