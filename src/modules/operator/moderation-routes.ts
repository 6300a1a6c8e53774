import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { notFound } from '../../http/errors.ts';
import { pageParameters, readPage, setPaginationHeaders } from '../../http/pagination.ts';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import {
  listCampaignsForModeration,
  listOffersForModeration,
  type ModerationStatus,
  setCampaignModeration,
  setOfferModeration,
} from './moderation-repository.ts';

const Status = Type.Integer({
  minimum: 0,
  maximum: 2,
  description: 'Moderation status: 0 moderation (waiting), 1 approved, 2 rejected.',
});

const DecisionBody = Type.Object({ status: Status }, { additionalProperties: false });
const QueueQuery = Type.Object({ ...pageParameters, status: Type.Optional(Status) });

const Decision = Type.Object(
  { id: Type.Integer({ description: 'Object id.' }), status: Status },
  { description: 'The moderation status now in force.' },
);

const CampaignQueueItem = Type.Object({
  id: Type.Integer({ description: 'Campaign id.' }),
  advertiserId: Type.Integer({ description: 'Owning advertiser.' }),
  title: Type.String({ description: 'Title.' }),
  status: Status,
  archived: Type.Boolean({ description: 'Archived by its advertiser.' }),
});

const OfferQueueItem = Type.Object({
  id: Type.Integer({ description: 'Ad id.' }),
  campaignId: Type.Integer({ description: 'Campaign id.' }),
  advertiserId: Type.Integer({ description: 'Owning advertiser.' }),
  title: Type.String({ description: 'Product title.' }),
  status: Status,
});

const asStatus = (value: number): ModerationStatus => value as ModerationStatus;

/** The operator's moderation of campaigns and ads: decisions and the queues to take them from. */
export function registerModerationRoutes(app: FastifyInstance, context: AppContext): void {
  const { db, clock } = context;
  const tags = ['Operator'];

  // Campaigns and ads are moderated the same way: one decision route each.
  const decisions = [
    { path: '/api/admin/campaigns/:id', what: 'Campaign', noun: 'a campaign', decide: setCampaignModeration },
    { path: '/api/admin/offers/:id', what: 'Ad', noun: 'an ad', decide: setOfferModeration },
  ] as const;
  for (const { path, what, noun, decide } of decisions) {
    app.put(
      path,
      {
        schema: {
          tags,
          summary: `Approve or reject ${noun} (or send it back to moderation).`,
          params: IdParams,
          body: DecisionBody,
          response: { 200: Decision, ...errorResponses(401, 403, 404, 422) },
        },
      },
      async (request) => {
        const { id } = request.params as Static<typeof IdParams>;
        const status = asStatus((request.body as Static<typeof DecisionBody>).status);
        const row = await db.transaction().execute((trx) => decide(trx, id, status, new Date(clock.now())));
        if (row === undefined) throw notFound(what);
        return { id: row.id, status: asStatus(row.moderation_status) };
      },
    );
  }

  app.get(
    '/api/admin/campaigns',
    {
      schema: {
        tags,
        summary: 'Campaigns by moderation status (`status=0`: the moderation queue), oldest first.',
        querystring: QueueQuery,
        response: { 200: Type.Array(CampaignQueueItem), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const page = readPage(request);
      const query = request.query as Static<typeof QueueQuery>;
      const status = query.status === undefined ? undefined : asStatus(query.status);
      const { rows, total } = await listCampaignsForModeration(db, status, page.perPage, page.offset);
      setPaginationHeaders(request, reply, page, total);
      return rows.map((row) => ({
        id: row.id,
        advertiserId: row.advertiser_id,
        title: row.title,
        status: asStatus(row.moderation_status),
        archived: row.archived,
      }));
    },
  );

  app.get(
    '/api/admin/offers',
    {
      schema: {
        tags,
        summary: 'Ads (not deleted) by moderation status (`status=0`: the moderation queue), oldest first.',
        querystring: QueueQuery,
        response: { 200: Type.Array(OfferQueueItem), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const page = readPage(request);
      const query = request.query as Static<typeof QueueQuery>;
      const status = query.status === undefined ? undefined : asStatus(query.status);
      const { rows, total } = await listOffersForModeration(db, status, page.perPage, page.offset);
      setPaginationHeaders(request, reply, page, total);
      return rows.map((row) => ({
        id: row.id,
        campaignId: row.campaign_id,
        advertiserId: row.advertiser_id,
        title: row.title,
        status: asStatus(row.moderation_status),
      }));
    },
  );
}
