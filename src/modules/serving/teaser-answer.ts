import { type Static, Type } from '@sinclair/typebox';
import type { AdEntry } from './snapshot/snapshot.ts';
import type { ServedTeaser } from './tracking/tracker.ts';

const TeaserSchema = Type.Object({
  id: Type.Integer({ description: 'Ad id.' }),
  title: Type.String({ description: 'Product title.' }),
  description: Type.String({ description: 'Product description.' }),
  price: Type.String({
    description:
      "The price as text (from price, oldPrice, discount and discountType), in the response's `currency`; the embed script shows its numbers as amounts of that currency.",
  }),
  domain: Type.String({ description: "The advertiser's domain (the ad URL's host without `www.`), shown on the teaser." }),
  image: Type.Union([Type.String(), Type.Null()], {
    description:
      "Image URL in the block's picture shape: 3:2 (492×328, the ad's rectangle, else its square) when the block's design has `imageShape: wide`, otherwise square (328×328, the ad's square, else its rectangle); null when the ad has none.",
  }),
  url: Type.String({ description: 'Signed, single-use click link (valid one hour) that redirects to the advertiser.' }),
  view: Type.String({
    description:
      'Signed, single-use impression token (valid one hour): POST it to `/api/serve/views` once at least half of the teaser has been visible for one continuous second. Its view is counted once; the click link works whether or not it was sent.',
  }),
});

/** The teasers answer (`GET /api/serve/blocks/{id}/teasers`): the route's response schema. */
export const TeasersAnswerSchema = Type.Object({
  block: Type.Integer({ description: 'Block id.' }),
  label: Type.String({ description: 'Accessible label of the teaser list.' }),
  currency: Type.String({ description: 'The platform currency (ISO 4217, `CURRENCY`) of every price.' }),
  personalised: Type.Boolean({
    description:
      'False when the teasers were chosen without personal data: no visitor id, no retargeting audience, no frequency cap (the visitor did not consent, Global Privacy Control or a US opt-out, or the site never personalises; docs/privacy.md).',
  }),
  teasers: Type.Array(TeaserSchema, { description: 'Teasers in auction order; empty when nothing can serve.' }),
  design: Type.Optional(
    Type.Record(Type.String(), Type.Union([Type.String(), Type.Integer()]), {
      description: 'The block’s design, as the publisher set it (Block.design); absent: none (extension).',
    }),
  ),
});

/**
 * The teasers answer as an object, fields in the response schema's order: what the XML answer and
 * `fields=` are built from, and what TeaserAnswerWriter's text must equal.
 */
export function teaserAnswer(
  blockId: number,
  label: string,
  currency: string,
  base: string,
  teasers: readonly ServedTeaser[],
  personalised = true,
  designJson?: string,
  wideImages = false,
): Static<typeof TeasersAnswerSchema> {
  return {
    block: blockId,
    label,
    currency,
    personalised,
    teasers: teasers.map(({ ad, clickToken, viewToken }) => ({
      id: ad.offerId,
      title: ad.title,
      description: ad.description,
      price: ad.priceText,
      domain: ad.domain,
      image: pictureUrl(ad, base, wideImages),
      url: `${base}/serve/click/${clickToken}`,
      view: viewToken,
    })),
    ...(designJson === undefined ? {} : { design: JSON.parse(designJson) as Record<string, string | number> }),
  };
}

/** The URL of an ad's picture in a square or a wide block (the image route's sizes, image-store.ts). */
function pictureUrl(ad: AdEntry, base: string, wide: boolean): string | null {
  const hash = wide ? ad.wideImage : ad.image;
  return hash === null ? null : `${base}/img/${hash}/${wide ? WIDE_SIZE : SQUARE_SIZE}.jpg`;
}

const SQUARE_SIZE = '328x328';
const WIDE_SIZE = '492x328';

/**
 * The teasers answer as JSON text, written by hand for the hot path: an ad's fields up to its
 * image are the same in every answer that shows it, so they are escaped once per ad (and base URL)
 * and kept, and only the signed link and token are appended per teaser. The text is what the
 * response schema's serializer writes for the same answer (fields in schema order), which
 * test/modules/serving/teaser-answer.test.ts checks against teaserAnswer() and the schema; the XML answer and `fields=` still go through the object.
 */
export class TeaserAnswerWriter {
  /**
   * The fixed part of an ad's teaser, per snapshot entry (a rebuilt snapshot has new entries), in
   * square blocks and in wide ones (the picture differs).
   */
  private readonly heads = new WeakMap<AdEntry, { base: string; text: string }>();
  private readonly wideHeads = new WeakMap<AdEntry, { base: string; text: string }>();
  private readonly currency: string;
  private lastBase = '';
  private lastBaseJson = '';

  constructor(currency: string) {
    this.currency = JSON.stringify(currency);
  }

  write(
    blockId: number,
    label: string,
    base: string,
    teasers: readonly ServedTeaser[],
    personalised = true,
    designJson?: string,
    wideImages = false,
  ): string {
    const baseJson = this.escapedBase(base);
    let text = `{"block":${blockId},"label":${JSON.stringify(label)},"currency":${this.currency},"personalised":${personalised},"teasers":[`;
    for (let index = 0; index < teasers.length; index += 1) {
      const teaser = teasers[index] as ServedTeaser;
      if (index > 0) text += ',';
      // Tokens are base64url: nothing in them needs escaping.
      text += `${this.head(teaser.ad, base, baseJson, wideImages)}"url":"${baseJson}/serve/click/${teaser.clickToken}","view":"${teaser.viewToken}"}`;
    }
    return designJson === undefined ? `${text}]}` : `${text}],"design":${designJson}}`;
  }

  /** The base URL inside a JSON string (it may come from the Host header); one base is the rule. */
  private escapedBase(base: string): string {
    if (base !== this.lastBase) {
      this.lastBase = base;
      this.lastBaseJson = JSON.stringify(base).slice(1, -1);
    }
    return this.lastBaseJson;
  }

  private head(ad: AdEntry, base: string, baseJson: string, wide: boolean): string {
    const heads = wide ? this.wideHeads : this.heads;
    const cached = heads.get(ad);
    if (cached !== undefined && cached.base === base) return cached.text;
    const hash = wide ? ad.wideImage : ad.image;
    const image =
      hash === null ? 'null' : `"${baseJson}/img/${JSON.stringify(hash).slice(1, -1)}/${wide ? WIDE_SIZE : SQUARE_SIZE}.jpg"`;
    const text =
      `{"id":${ad.offerId},"title":${JSON.stringify(ad.title)},"description":${JSON.stringify(ad.description)},` +
      `"price":${JSON.stringify(ad.priceText)},"domain":${JSON.stringify(ad.domain)},"image":${image},`;
    heads.set(ad, { base, text });
    return text;
  }
}
