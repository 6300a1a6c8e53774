import type { Db } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { type FieldError, notFound, validationFailed } from '../../../errors.ts';
import { isId } from '../../../shared/ids.ts';
import { checkMoney } from '../../../shared/money-input.ts';
import type { Unchecked } from '../../../shared/unchecked.ts';
import type { ImageStore } from '../../images/index.ts';
import { readImageDataUri } from '../../images/index.ts';
import { MODERATION } from '../../moderation/index.ts';
import type { Period } from '../../statistics/index.ts';
import { type TargetId, totalsByOffer, ZERO_TOTALS } from '../../statistics/index.ts';
import { findCampaign } from '../campaigns/index.ts';
import { costText, isDiscountType } from './discount-types.ts';
import {
  campaignsOfOffers,
  copyOffers,
  findOffer,
  insertOffer,
  isSubCategoryOf,
  listOffersOfCampaign,
  markOfferDeleted,
  type OfferContent,
  setOfferActive,
  setOfferBid,
  setOfferContent,
} from './offer-repository.ts';
import type { OfferRecord } from './offer-schema.ts';

/** Description limits of the platform's API: 60 characters, 100 when the campaign targets Thailand (docs/decisions.md). */
export const DESCRIPTION_LIMIT = 60;
export const DESCRIPTION_LIMIT_TH = 100;
/** The highest bid per click accepted, in currency units. */
export const MAX_CLICK_PRICE = 1000;
const CLICK_PRICE_RULE = { sign: 'positive', max: MAX_CLICK_PRICE } as const;

export interface OfferInput {
  campaignId: number;
  title?: string;
  description: string;
  url: string;
  url_mobile?: string;
  price?: number;
  oldPrice?: number;
  discount?: number;
  discountType?: string;
  subCategory?: number;
  clickPrice: number | string;
  rectangle: string;
  square: string;
}

function checkUrl(value: unknown, field: string, problems: FieldError[]): void {
  if (typeof value !== 'string') return;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    problems.push({ field, message: 'Must be an absolute http or https URL.' });
  }
}

/** The teaser text's rule: not empty, at most 60 characters (100 when the campaign targets Thailand). */
function checkDescription(value: unknown, campaignGeo: readonly string[], problems: FieldError[]): void {
  if (typeof value !== 'string') return;
  const description = value.trim();
  const limit = campaignGeo.includes('TH') ? DESCRIPTION_LIMIT_TH : DESCRIPTION_LIMIT;
  if (description === '') problems.push({ field: 'description', message: 'Must not be empty.' });
  else if ([...description].length > limit)
    problems.push({ field: 'description', message: `Must be at most ${limit} characters.` });
}

/** A picture's bytes when its data URI is a valid image; its problem is added otherwise (absent: undefined). */
async function checkImage(value: unknown, field: string, problems: FieldError[]): Promise<Buffer | undefined> {
  if (typeof value !== 'string') return undefined;
  const image = await readImageDataUri(value, field);
  if (Buffer.isBuffer(image)) return image;
  problems.push(image);
  return undefined;
}

const isPrice = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value);

/** An ad's fields that passed every rule, in the form it is stored. */
interface CheckedOffer {
  bidMicros: number;
  rectangle: Buffer;
  square: Buffer;
}

/**
 * Every rule of an ad's fields beyond its schema, against its campaign. Written for input its
 * schema may have refused: a field that is absent or ill-typed is left to the schema.
 */
async function checkOffer(
  db: Db,
  advertiserId: number,
  input: Unchecked<OfferInput>,
): Promise<{ problems: FieldError[]; checked?: CheckedOffer }> {
  const problems: FieldError[] = [];
  const campaign = isId(input.campaignId) ? await findCampaign(db, advertiserId, input.campaignId) : undefined;
  if (isId(input.campaignId)) {
    if (campaign === undefined) problems.push({ field: 'campaignId', message: 'No such campaign.' });
    else if (campaign.archived) problems.push({ field: 'campaignId', message: 'The campaign is archived.' });
  }

  // Without a campaign (none given, or none found) the stricter limit applies.
  checkDescription(input.description, campaign?.geo ?? [], problems);
  checkUrl(input.url, 'url', problems);
  if (input.url_mobile !== '') checkUrl(input.url_mobile, 'url_mobile', problems);

  if (input.oldPrice !== undefined && input.price === undefined) {
    problems.push({ field: 'price', message: 'Is required with oldPrice.' });
  }
  if (isPrice(input.oldPrice) && isPrice(input.price) && input.oldPrice < input.price) {
    problems.push({ field: 'oldPrice', message: 'Must not be below price.' });
  }
  if (typeof input.discountType === 'string') {
    if (!isDiscountType(input.discountType)) {
      problems.push({ field: 'discountType', message: 'Must be one of GET /advertiser/discountType/{campaign}.' });
    } else if ((input.discountType === 'percent' || input.discountType === 'amount') && input.oldPrice === undefined) {
      problems.push({ field: 'oldPrice', message: `Is required with discountType ${input.discountType}.` });
    }
  }
  if (
    isId(input.subCategory) &&
    campaign !== undefined &&
    !(await isSubCategoryOf(db, input.subCategory, campaign.category_id))
  ) {
    problems.push({
      field: 'subCategory',
      message: 'Must be a subcategory of the campaign’s category (GET /advertiser/subCategories).',
    });
  }
  const bid = input.clickPrice === undefined ? undefined : checkMoney(input.clickPrice, 'clickPrice', CLICK_PRICE_RULE);
  if (bid !== undefined && typeof bid !== 'number') problems.push(bid);
  const rectangle = await checkImage(input.rectangle, 'rectangle', problems);
  const square = await checkImage(input.square, 'square', problems);
  if (problems.length > 0 || typeof bid !== 'number' || !Buffer.isBuffer(rectangle) || !Buffer.isBuffer(square)) {
    return { problems };
  }
  return { problems, checked: { bidMicros: bid, rectangle, square } };
}

/** The 422 entries of an ad's fields by the rules of its service (the route's `fieldRules`). */
export async function offerFieldErrors(db: Db, advertiserId: number, input: Unchecked<OfferInput>): Promise<FieldError[]> {
  return (await checkOffer(db, advertiserId, input)).problems;
}

/**
 * Checks every rule of an ad's parameters against its campaign, stores its images and creates it
 * (awaiting moderation). Every failing field is reported in one 422.
 */
export async function createOffer(
  db: Db,
  images: ImageStore,
  advertiserId: number,
  input: OfferInput,
  now: Date,
): Promise<number> {
  const { problems, checked } = await checkOffer(db, advertiserId, input);
  if (checked === undefined) throw validationFailed(problems);
  const { bidMicros: bid, rectangle, square } = checked;
  const description = input.description.trim();
  const title = (input.title ?? '').trim() || description;

  // Images are content-addressed, so storing them before the row is harmless if the insert fails.
  const [imageWide, imageSquare] = [await images.save(rectangle), await images.save(square)];
  const price = input.price ?? null;
  const oldPrice = input.oldPrice ?? null;
  const discount = input.discount ?? null;
  const discountType = input.discountType ?? null;
  return inTransaction(db, async (trx) =>
    insertOffer(trx, {
      campaign_id: input.campaignId,
      title,
      description,
      price_text: costText({ price, oldPrice, discount, discountType }),
      price,
      old_price: oldPrice,
      discount,
      discount_type: discountType,
      sub_category_id: input.subCategory ?? null,
      url: input.url,
      url_mobile: input.url_mobile ?? '',
      bid_micros: bid,
      image_square: imageSquare,
      image_wide: imageWide,
      active: true,
      moderation_status: MODERATION.moderation,
      deleted_at: null,
      created_at: now,
      updated_at: now,
    }),
  );
}

/** The advertiser's ad (not deleted); 404 otherwise. */
export async function requireOffer(db: Db, advertiserId: number, id: number): Promise<OfferRecord> {
  const row = await findOffer(db, advertiserId, id);
  if (row === undefined) throw notFound('Offer');
  return row;
}

export async function offerTotals(db: Db, ids: number[], period: Period, targetId: TargetId) {
  const totals = await totalsByOffer(db, { offerIds: ids, campaignIds: await campaignsOfOffers(db, ids), period, targetId });
  return (id: number) => totals.get(id) ?? ZERO_TOTALS;
}

/** The ads of a campaign (none without one) and their statistics for the period. */
export async function offersWithTotals(db: Db, campaignId: number | undefined, period: Period, targetId: TargetId) {
  const offers = campaignId === undefined ? [] : await listOffersOfCampaign(db, campaignId);
  const totals = await offerTotals(
    db,
    offers.map((offer) => offer.id),
    period,
    targetId,
  );
  return { offers, totals };
}

/** The length in characters of the longest text among a campaign's ads that are not deleted (0 without ads). */
export async function longestOfferDescription(db: Db, campaignId: number): Promise<number> {
  const offers = await listOffersOfCampaign(db, campaignId);
  return Math.max(0, ...offers.map((offer) => [...offer.description].length));
}

/** Copies every ad of a campaign that is not deleted into another, each awaiting moderation (a campaign's duplicate). */
export async function copyOffersOfCampaign(trx: Db, fromCampaignId: number, toCampaignId: number, now: Date): Promise<number[]> {
  return copyOffers(trx, { campaignId: fromCampaignId }, toCampaignId, now);
}

/** A copy of one of the advertiser's ads in its campaign, awaiting moderation; 404 when not the advertiser's. */
export async function duplicateOffer(db: Db, advertiserId: number, id: number, now: Date): Promise<OfferRecord> {
  return inTransaction(db, async (trx) => {
    const original = await requireOffer(trx, advertiserId, id);
    const [copy] = await copyOffers(trx, { offerId: id }, original.campaign_id, now);
    if (copy === undefined) throw notFound('Ad');
    return requireOffer(trx, advertiserId, copy);
  });
}

/** What an advertiser may change on an ad after creation: its switch and bid, and its content. */
export interface OfferChange {
  active?: boolean;
  clickPrice?: number | string;
  title?: string;
  description?: string;
  url?: string;
  url_mobile?: string;
  rectangle?: string;
  square?: string;
  /** The price the teaser shows, as at creation; `null` takes a value away. */
  price?: number | null;
  oldPrice?: number | null;
  discount?: number | null;
  discountType?: string | null;
}

/** The fields of an ad a moderator judges: a change to any of them sends the ad back to moderation. */
const CONTENT_FIELDS = [
  'title',
  'description',
  'url',
  'url_mobile',
  'rectangle',
  'square',
  'price',
  'oldPrice',
  'discount',
  'discountType',
] as const;

/**
 * Switches an ad on or off, changes its bid and/or its content. The switch and the bid keep its
 * moderation status; a new headline, text, landing page, picture or price sends it back to moderation
 * (and clears the reason of an earlier rejection), so the serving index drops it until an operator
 * approves it again. Every failing field is reported in one 422, and nothing changes.
 */
export async function changeOffer(
  db: Db,
  advertiserId: number,
  id: number,
  change: OfferChange,
  now: Date,
  images?: ImageStore,
): Promise<void> {
  const contentChanged = CONTENT_FIELDS.some((field) => change[field] !== undefined);
  if (change.active === undefined && change.clickPrice === undefined && !contentChanged) {
    throw validationFailed([{ field: 'active', message: 'Give active, clickPrice or a content field.' }]);
  }
  const offer = await requireOffer(db, advertiserId, id);
  const campaign = await findCampaign(db, advertiserId, offer.campaign_id);
  const problems: FieldError[] = [];
  const bid = change.clickPrice === undefined ? undefined : checkMoney(change.clickPrice, 'clickPrice', CLICK_PRICE_RULE);
  if (bid !== undefined && typeof bid !== 'number') problems.push(bid);
  if (typeof change.title === 'string' && change.title.trim() === '') {
    problems.push({ field: 'title', message: 'Must not be empty.' });
  }
  checkDescription(change.description, campaign?.geo ?? [], problems);
  checkUrl(change.url, 'url', problems);
  if (change.url_mobile !== '') checkUrl(change.url_mobile, 'url_mobile', problems);
  // The teaser's price text is made from all four price fields: the new ones over the ad's own.
  const prices = {
    price: change.price === undefined ? offer.price : change.price,
    oldPrice: change.oldPrice === undefined ? offer.old_price : change.oldPrice,
    discount: change.discount === undefined ? offer.discount : change.discount,
    discountType: change.discountType === undefined ? offer.discount_type : change.discountType,
  };
  const pricesChanged = [change.price, change.oldPrice, change.discount, change.discountType].some(
    (value) => value !== undefined,
  );
  if (pricesChanged && prices.discountType !== null) {
    if (!isDiscountType(prices.discountType)) {
      problems.push({ field: 'discountType', message: 'Must be one of GET /advertiser/discountType/{campaign}.' });
    } else if ((prices.discountType === 'percent' || prices.discountType === 'amount') && prices.oldPrice === null) {
      problems.push({ field: 'oldPrice', message: `Is required with discountType ${prices.discountType}.` });
    }
  }
  const rectangle = await checkImage(change.rectangle, 'rectangle', problems);
  const square = await checkImage(change.square, 'square', problems);
  if (problems.length > 0) throw validationFailed(problems);
  if ((rectangle !== undefined || square !== undefined) && images === undefined) {
    throw new Error('changeOffer: a new picture needs the image store');
  }

  // Images are content-addressed, so storing them before the update is harmless if it fails.
  const content: OfferContent = {
    ...(change.title === undefined ? {} : { title: change.title.trim() }),
    ...(change.description === undefined ? {} : { description: change.description.trim() }),
    ...(change.url === undefined ? {} : { url: change.url }),
    ...(change.url_mobile === undefined ? {} : { url_mobile: change.url_mobile }),
    ...(rectangle === undefined ? {} : { image_wide: await images?.save(rectangle) }),
    ...(square === undefined ? {} : { image_square: await images?.save(square) }),
    ...(pricesChanged
      ? {
          price: prices.price,
          old_price: prices.oldPrice,
          discount: prices.discount,
          discount_type: prices.discountType,
          price_text: costText(prices),
        }
      : {}),
  };
  await inTransaction(db, async (trx) => {
    await requireOffer(trx, advertiserId, id);
    if (change.active !== undefined) await setOfferActive(trx, id, change.active, now);
    if (typeof bid === 'number') await setOfferBid(trx, id, bid, now);
    if (contentChanged) await setOfferContent(trx, id, content, now);
  });
}

export async function deleteOffer(db: Db, advertiserId: number, id: number, now: Date): Promise<void> {
  await inTransaction(db, async (trx) => {
    await requireOffer(trx, advertiserId, id);
    await markOfferDeleted(trx, id, now);
  });
}

/** Switches an ad on or off inside the caller's transaction (the ad is the caller's to check). */
export async function writeOfferActive(trx: Db, id: number, active: boolean, now: Date): Promise<void> {
  await setOfferActive(trx, id, active, now);
}
