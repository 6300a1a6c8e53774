import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { uncheckedBody } from '../../../http/field-rules.ts';
import { Count, Id, Money, Text } from '../../../http/input-types.ts';
import { listPage, pageParameters } from '../../../http/pagination.ts';
import { requestDb } from '../../../http/request-write.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses, Flag, IdParams, NoContent } from '../../../http/schemas.ts';
import { searchParameter, sortParameter } from '../../../http/sorting.ts';
import { created } from '../../../http/urls.ts';
import { readSort } from '../../../shared/list-query.ts';
import { readPeriod, type TargetId, TargetIdParameter } from '../../statistics/index.ts';
import { requireCampaign } from '../campaigns/campaign-service.ts';
import { DISCOUNT_TYPES } from './discount-types.ts';
import { listOffers, OFFER_SORT_FIELDS, type OfferSortField } from './offer-repository.ts';
import { AdSchema, toAd } from './offer-schema.ts';
import {
  changeOffer,
  createOffer,
  DESCRIPTION_LIMIT_TH,
  deleteOffer,
  MAX_CLICK_PRICE,
  offerFieldErrors,
  offerTotals,
  requireOffer,
} from './offer-service.ts';

const CampaignParams = Type.Object({
  campaign: Id('Campaign id.'),
});

const DiscountTypeSchema = Type.Object(
  {
    id: Type.String({ description: 'The value to send as `discountType`.' }),
    title: Type.String({ description: 'What it means.' }),
  },
  { description: 'A discount type an ad of the campaign may use.' },
);

const ImageDataUri = (description: string) =>
  Text(`${description} A data URI: data:image/png;base64,... or data:image/jpeg;base64,...`, { maxLength: 3_000_000 });

const CreateOfferBody = Type.Object(
  {
    campaignId: Id('The owning campaign.'),
    title: Type.Optional(Text('Product title; defaults to the description (extension).', { maxLength: 255 })),
    description: Text('Teaser text: at most 60 characters, 100 when the campaign targets Thailand (TH).', {
      maxLength: DESCRIPTION_LIMIT_TH,
    }),
    url: Text('Target URL (http or https).', { maxLength: 2048 }),
    url_mobile: Type.Optional(Text('Target URL for mobile devices (extension).', { maxLength: 2048 })),
    price: Type.Optional(Count('Price.', { maximum: 1_000_000_000 })),
    discount: Type.Optional(Count('How the price reads: 1 discount, 2 "from", 3 "up to".', { minimum: 1, maximum: 3 })),
    discountType: Type.Optional(Text('One of GET /advertiser/discountType/{campaign}.', { maxLength: 32 })),
    oldPrice: Type.Optional(Count('Price before the discount.', { maximum: 1_000_000_000 })),
    subCategory: Type.Optional(Id('A subcategory of the campaign’s category.')),
    clickPrice: Money(`Price per click (the bid): above 0, at most ${MAX_CLICK_PRICE}, at most 4 fraction digits.`, {
      exclusiveMinimum: 0,
      maximum: MAX_CLICK_PRICE,
    }),
    rectangle: ImageDataUri('Main rectangular image (shown as img_wide).'),
    square: ImageDataUri('Square image (shown as img).'),
  },
  { additionalProperties: false },
);

const OfferQuery = Type.Object({
  dateFrom: Type.Optional(Text('First day of the statistics period (inclusive), YYYY-MM-DD.')),
  dateTo: Type.Optional(Text('Last day of the statistics period (inclusive), YYYY-MM-DD.')),
  targetId: TargetIdParameter,
});

const ListOffersQuery = Type.Object({
  ...pageParameters,
  ...OfferQuery.properties,
  campaignId: Type.Optional(Id('Only the ads of this campaign.')),
  q: searchParameter('title or text (`opis`)'),
  sort: sortParameter(OFFER_SORT_FIELDS, 'id'),
});

const ChangeOfferBody = Type.Object(
  {
    title: Type.Optional(Text('A new product title. Content: the ad goes back to moderation.', { maxLength: 255 })),
    description: Type.Optional(
      Text(
        'A new teaser text: at most 60 characters, 100 when the campaign targets Thailand (TH). Content: the ad goes back to moderation.',
        { maxLength: DESCRIPTION_LIMIT_TH },
      ),
    ),
    url: Type.Optional(Text('A new target URL (http or https). Content: the ad goes back to moderation.', { maxLength: 2048 })),
    url_mobile: Type.Optional(
      Text('A new target URL for mobile devices; empty means `url`. Content: the ad goes back to moderation.', {
        maxLength: 2048,
      }),
    ),
    rectangle: Type.Optional(ImageDataUri('A new rectangular image. Content: the ad goes back to moderation.')),
    square: Type.Optional(ImageDataUri('A new square image. Content: the ad goes back to moderation.')),
    price: Type.Optional(
      Type.Union([Count('A new price. Content: the ad goes back to moderation.', { maximum: 1_000_000_000 }), Type.Null()], {
        description: 'A new price shown on the teaser; null shows none. Content: the ad goes back to moderation.',
      }),
    ),
    oldPrice: Type.Optional(
      Type.Union([Count('A new price before the discount.', { maximum: 1_000_000_000 }), Type.Null()], {
        description: 'A new price before the discount; null for none. Content: the ad goes back to moderation.',
      }),
    ),
    discount: Type.Optional(
      Type.Union([Count('How the price reads: 1 discount, 2 "from", 3 "up to".', { minimum: 1, maximum: 3 }), Type.Null()], {
        description: 'How the price reads: 1 discount, 2 "from", 3 "up to"; null plain. Content: the ad goes back to moderation.',
      }),
    ),
    discountType: Type.Optional(
      Type.Union([Text('One of GET /advertiser/discountType/{campaign}.', { maxLength: 32 }), Type.Null()], {
        description: 'One of GET /advertiser/discountType/{campaign}; null for none. Content: the ad goes back to moderation.',
      }),
    ),
    active: Type.Optional(Flag('Switch the ad on (true) or off (false).')),
    clickPrice: Type.Optional(
      Money(
        `A new bid per click: above 0, at most ${MAX_CLICK_PRICE}, at most 4 fraction digits. Applies at once; a bid is not content, so the ad stays approved.`,
        { exclusiveMinimum: 0, maximum: MAX_CLICK_PRICE },
      ),
    ),
  },
  { additionalProperties: false },
);

/** Advertiser ads: discount types, create, read, switch on/off, delete. */
export function registerOfferRoutes(app: App, context: AppContext): void {
  const { db, clock, images } = context;
  const tags = ['Ads'];

  app.get(
    '/api/advertiser/discountType/:campaign',
    {
      schema: {
        tags,
        operationId: 'listDiscountTypes',
        summary: 'The discount types the campaign’s ads may use.',
        params: CampaignParams,
        response: { 200: Type.Array(DiscountTypeSchema), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      await requireCampaign(db, accountOf(request), request.params.campaign);
      return DISCOUNT_TYPES.map((type) => ({ id: type.id, title: type.title }));
    },
  );

  app.get(
    '/api/advertiser/offers',
    {
      schema: {
        tags,
        operationId: 'listOffers',
        summary:
          'Your ads (not deleted) with statistics (lifetime, or for dateFrom–dateTo), by id unless `sort` says otherwise; `q` searches titles and texts (extension).',
        querystring: ListOffersQuery,
        response: { 200: Type.Array(AdSchema), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const { query } = request;
      const period = readPeriod({ from: query.dateFrom, to: query.dateTo });
      const filter = {
        advertiserId: accountOf(request),
        campaignId: query.campaignId,
        search: query.q?.trim() || undefined,
        sort: readSort(query.sort, { field: 'id' as OfferSortField, descending: false }),
      };
      const offers = await listPage(request, reply, (limit, offset) => listOffers(db, filter, limit, offset));
      const totals = await offerTotals(
        db,
        offers.map((offer) => offer.id),
        period,
        (query.targetId ?? 0) as TargetId,
      );
      return offers.map((offer) => toAd(request, offer, totals(offer.id)));
    },
  );

  app.post(
    '/api/advertiser/offers',
    {
      schema: {
        tags,
        operationId: 'createOffer',
        summary: 'Create an ad; it awaits moderation.',
        body: CreateOfferBody,
        response: { 201: AdSchema, ...errorResponses(401, 403, 422) },
      },
      config: { fieldRules: (request) => offerFieldErrors(db, accountOf(request), uncheckedBody(request)), idempotent: true },
    },
    async (request, reply) => {
      const advertiserId = accountOf(request);
      const write = requestDb(request, db);
      const id = await createOffer(write, images, advertiserId, request.body, new Date(clock.now()));
      const offer = await requireOffer(write, advertiserId, id);
      const totals = await offerTotals(write, [id], { from: undefined, to: undefined }, 0);
      return created(request, reply, `/api/advertiser/offers/${id}`, toAd(request, offer, totals(id)));
    },
  );

  app.get(
    '/api/advertiser/offers/:id',
    {
      schema: {
        tags,
        operationId: 'getOffer',
        summary: 'One ad with statistics (lifetime, or for dateFrom–dateTo).',
        params: IdParams,
        querystring: OfferQuery,
        response: { 200: AdSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { params, query } = request;
      const { id } = params;
      const period = readPeriod({ from: query.dateFrom, to: query.dateTo });
      const offer = await requireOffer(db, accountOf(request), id);
      const totals = await offerTotals(db, [id], period, (query.targetId ?? 0) as TargetId);
      return toAd(request, offer, totals(id));
    },
  );

  app.put(
    '/api/advertiser/offers/:id',
    {
      schema: {
        tags,
        operationId: 'updateOffer',
        summary:
          "Switch an ad on or off or change its bid (neither sends it back to moderation), or change its content: headline, text, landing pages, pictures or price (sends it back to moderation; it is not served until approved). The teaser's `cost` text is made again from the price fields, each given one over the ad's own.",
        params: IdParams,
        body: ChangeOfferBody,
        response: { 204: NoContent, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      await changeOffer(db, accountOf(request), request.params.id, request.body, new Date(clock.now()), images);
      reply.code(204);
    },
  );

  app.delete(
    '/api/advertiser/offers/:id',
    {
      schema: {
        tags,
        operationId: 'deleteOffer',
        summary: 'Delete an ad: it is hidden (404 from then on); its statistics stay in the campaign’s.',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await deleteOffer(db, accountOf(request), request.params.id, new Date(clock.now()));
      reply.code(204);
    },
  );
}
