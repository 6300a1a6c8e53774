import type { AdEntry } from './snapshot/snapshot.ts';
import type { ServedTeaser } from './tracking/tracker.ts';

/**
 * The teasers answer as an object, fields in the response schema's order: what the XML answer and
 * `fields=` are built from, and what TeaserAnswerWriter's text must equal.
 */
export function teaserAnswer(blockId: number, label: string, currency: string, base: string, teasers: readonly ServedTeaser[]) {
  return {
    block: blockId,
    label,
    currency,
    teasers: teasers.map(({ ad, clickToken, viewToken }) => ({
      id: ad.offerId,
      title: ad.title,
      description: ad.description,
      price: ad.priceText,
      domain: ad.domain,
      image: ad.image === null ? null : `${base}/img/${ad.image}/328x328.jpg`,
      url: `${base}/serve/click/${clickToken}`,
      view: viewToken,
    })),
  };
}

/**
 * The teasers answer as JSON text, written by hand for the hot path: an ad's fields up to its
 * image are the same in every answer that shows it, so they are escaped once per ad (and base URL)
 * and kept, and only the signed link and token are appended per teaser. The text is what the
 * response schema's serializer writes for the same answer (fields in schema order), which the
 * serving tests compare; the XML answer and `fields=` still go through the object.
 */
export class TeaserAnswerWriter {
  /** The fixed part of an ad's teaser, per snapshot entry (a rebuilt snapshot has new entries). */
  private readonly heads = new WeakMap<AdEntry, { base: string; text: string }>();
  private readonly currency: string;
  private lastBase = '';
  private lastBaseJson = '';

  constructor(currency: string) {
    this.currency = JSON.stringify(currency);
  }

  write(blockId: number, label: string, base: string, teasers: readonly ServedTeaser[]): string {
    const baseJson = this.escapedBase(base);
    let text = `{"block":${blockId},"label":${JSON.stringify(label)},"currency":${this.currency},"teasers":[`;
    for (let index = 0; index < teasers.length; index += 1) {
      const teaser = teasers[index] as ServedTeaser;
      if (index > 0) text += ',';
      // Tokens are base64url: nothing in them needs escaping.
      text += `${this.head(teaser.ad, base, baseJson)}"url":"${baseJson}/serve/click/${teaser.clickToken}","view":"${teaser.viewToken}"}`;
    }
    return `${text}]}`;
  }

  /** The base URL inside a JSON string (it may come from the Host header); one base is the rule. */
  private escapedBase(base: string): string {
    if (base !== this.lastBase) {
      this.lastBase = base;
      this.lastBaseJson = JSON.stringify(base).slice(1, -1);
    }
    return this.lastBaseJson;
  }

  private head(ad: AdEntry, base: string, baseJson: string): string {
    const cached = this.heads.get(ad);
    if (cached !== undefined && cached.base === base) return cached.text;
    const image = ad.image === null ? 'null' : `"${baseJson}/img/${JSON.stringify(ad.image).slice(1, -1)}/328x328.jpg"`;
    const text =
      `{"id":${ad.offerId},"title":${JSON.stringify(ad.title)},"description":${JSON.stringify(ad.description)},` +
      `"price":${JSON.stringify(ad.priceText)},"domain":${JSON.stringify(ad.domain)},"image":${image},`;
    this.heads.set(ad, { base, text });
    return text;
  }
}
