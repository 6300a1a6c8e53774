import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import type { Db } from '../../db/database.ts';
import type { ListWithTotal } from '../../db/list.ts';
import { listPage, pageParameters } from '../../http/pagination.ts';
import type { RegisterRoutes } from '../../http/routes.ts';
import { errorResponses } from '../../http/schemas.ts';
import { microsToAmount } from '../../money.ts';
import { ImageSchema, toImage } from '../images/index.ts';
import { CurrentReasonSchema, LastRejectionSchema, lastRejections, ownerNames } from './moderation-input.ts';
import { asModerationStatus, type ModerationStatus, ModerationStatusSchema } from './moderation-status.ts';

const QueueQuery = Type.Object({ ...pageParameters, status: Type.Optional(ModerationStatusSchema()) });

const CampaignQueueItem = Type.Object({
  id: Type.Integer({ description: 'Campaign id.' }),
  advertiserId: Type.Integer({ description: 'Owning advertiser.' }),
  advertiserName: Type.String({ description: 'The owning advertiser’s name (its login when it has none).' }),
  title: Type.String({ description: 'Title.' }),
  geo: Type.Array(Type.String(), { description: 'Targeted countries (ISO 3166-1 alpha-2); empty means all.' }),
  isRetarget: Type.Boolean({ description: 'Whether it is a retargeting campaign.' }),
  status: ModerationStatusSchema(),
  reason: CurrentReasonSchema,
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
  reason: CurrentReasonSchema,
  lastRejection: LastRejectionSchema,
  date: Type.String({ format: 'date-time', description: 'When it was created.' }),
});

const withRejection = (rejection: { reason: string | null; date: string } | undefined) =>
  rejection === undefined ? {} : { lastRejection: rejection };

const statusOf = (status: number | undefined) => (status === undefined ? undefined : asModerationStatus(status));

/** A page of a queue: the rows of one moderation status (all when undefined), with the total. */
type QueuePage<Row> = (
  db: Db,
  status: ModerationStatus | undefined,
  limit: number,
  offset: number,
) => Promise<ListWithTotal<Row>>;

/** A campaign as its queue lists it. */
export interface CampaignInQueue {
  id: number;
  advertiser_id: number;
  title: string;
  geo: string[];
  is_retarget: boolean;
  moderation_status: number;
  moderation_reason: string | null;
  archived: boolean;
  created_at: Date;
}

/** An ad as its queue lists it, with its campaign's title and advertiser. */
export interface OfferInQueue {
  id: number;
  campaign_id: number;
  advertiser_id: number;
  campaign_title: string;
  title: string;
  description: string;
  price_text: string;
  url: string;
  bid_micros: number;
  image_square: string | null;
  image_wide: string | null;
  moderation_status: number;
  moderation_reason: string | null;
  created_at: Date;
}

/** The queues' reads, provided by the modules owning campaigns and ads and handed in by app.ts. */
export interface ModerationQueues {
  campaigns: QueuePage<CampaignInQueue>;
  offers: QueuePage<OfferInQueue>;
}

/**
 * The operator's queues of campaigns and ads: every advertiser's, by moderation status, each with
 * its owner's name and its latest rejection. Sites are listed, queue included, by the sites module
 * (`GET /api/admin/sites`), since its list is the operator's list of sites with their figures.
 */
export const moderationQueueRoutes =
  (queues: ModerationQueues): RegisterRoutes =>
  (app, context) => {
    const { db } = context;
    const tags = ['Operator'];

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
      async function listCampaignQueue(request, reply) {
        const status = statusOf(request.query.status);
        const rows = await listPage(request, reply, (limit, offset) => queues.campaigns(db, status, limit, offset));
        const { names, rejections } = await ownersAndRejections(db, 'campaign', rows);
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
          summary:
            'Ads (not deleted) by moderation status (`status=0`: the moderation queue), oldest first, with what they show.',
          querystring: QueueQuery,
          response: { 200: Type.Array(OfferQueueItem), ...errorResponses(401, 403, 422) },
        },
      },
      async function listOfferQueue(request, reply) {
        const status = statusOf(request.query.status);
        const rows = await listPage(request, reply, (limit, offset) => queues.offers(db, status, limit, offset));
        const { names, rejections } = await ownersAndRejections(db, 'offer', rows);
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
  };

/** What a queue shows beside each row: its advertiser's name and its latest rejection. */
async function ownersAndRejections(
  db: AppContext['db'],
  kind: 'campaign' | 'offer',
  rows: readonly { id: number; advertiser_id: number }[],
) {
  const [names, rejections] = await Promise.all([
    ownerNames(
      db,
      rows.map((row) => row.advertiser_id),
    ),
    lastRejections(
      db,
      kind,
      rows.map((row) => row.id),
    ),
  ]);
  return { names, rejections };
}
