import { type Static, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Selectable } from 'kysely';
import type { OffersTable } from '../../../db/schema.ts';
import { microsToAmount } from '../../../money.ts';
import { ImageSchema, toImage } from '../../images/index.ts';
import type { Totals } from '../../statistics/index.ts';
import { advertiserFigures, figureProperties } from '../../statistics/index.ts';

const NullableImage = (description: string) => Type.Union([ImageSchema, Type.Null()], { description });

export const AdSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Ad id.' }),
    title: Type.String({ description: 'Product title.' }),
    campaignId: Type.Integer({ description: 'Owning campaign id.' }),
    img: NullableImage('The square image (from `square`).'),
    img_wide: NullableImage('The rectangular image (from `rectangle`).'),
    isRetarget: Type.Boolean({ description: 'Whether the owning campaign is a retargeting campaign.' }),
    opis: Type.String({ description: 'Product description.' }),
    cost: Type.String({
      description: 'Product price as shown on the teaser, derived from price, oldPrice, discount and discountType.',
    }),
    url: Type.String({ description: 'Target URL.' }),
    url_mobile: Type.String({ description: 'Target URL for mobile devices; empty means `url`.' }),
    stavka: Type.Number({ description: 'Current price per click (the bid), in currency units.' }),
    active: Type.Boolean({ description: 'Activity flag.' }),
    status: Type.Integer({ description: 'Moderation status: 0 moderation, 1 approved, 2 rejected (extension).' }),
    moderationReason: Type.Optional(
      Type.String({ description: 'Why the ad was rejected, in the operator’s words; present until it is approved (extension).' }),
    ),
    ...figureProperties,
  },
  { description: 'An ad (teaser, offer) with its statistics for the requested period (lifetime without dates).' },
);

export type Ad = Static<typeof AdSchema>;

/** An ad row with the flag of its campaign it shows. */
export type OfferRecord = Selectable<OffersTable> & { is_retarget: boolean };

export function toAd(request: FastifyRequest, row: OfferRecord, totals: Totals): Ad {
  return {
    id: row.id,
    title: row.title,
    campaignId: row.campaign_id,
    img: toImage(request, row.image_square, 'square'),
    img_wide: toImage(request, row.image_wide, 'rectangle'),
    isRetarget: row.is_retarget,
    opis: row.description,
    cost: row.price_text,
    url: row.url,
    url_mobile: row.url_mobile,
    stavka: microsToAmount(row.bid_micros),
    active: row.active,
    status: row.moderation_status,
    ...(row.moderation_reason === null ? {} : { moderationReason: row.moderation_reason }),
    ...advertiserFigures(totals),
  };
}
