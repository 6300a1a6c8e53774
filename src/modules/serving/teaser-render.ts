/**
 * How a block's teasers look on a publisher's page, written once for the two places that draw
 * them: the embed script (loader-script.ts carries this function's source) and the web app's
 * previews (the advertiser's "as it will appear" and the operator's moderation card import it), so
 * a preview shows what a visitor will see — the square picture, the "Ad" mark, the domain, the
 * price in the platform's currency.
 *
 * `renderTeaserList` and `teaserWords` must stay self-contained plain ES2017 once their types are
 * stripped: they are sent to browsers as text (Function.prototype.toString), side by side in the
 * loader's scope, so they use nothing from outside their bodies but each other.
 */

/** What a teaser list's words are in one language. */
export interface TeaserWords {
  /** The list's accessible name. */
  label: string;
  /** The disclosure on each teaser. */
  mark: string;
  from: string;
  upTo: string;
  was: string;
  freeShipping: string;
  gift: string;
  sale: string;
}

/**
 * The words of a teaser list in the page's language (a BCP 47 tag such as `ru-RU`): Russian for
 * `ru`, English otherwise. The price text of an ad is written in English by the server
 * (discount-types.ts: `from 90 (was 120) + free shipping`); these are its words in the language.
 */
export function teaserWords(language: string): TeaserWords {
  if (/^ru\b/i.test(language || '')) {
    return {
      label: 'Реклама',
      mark: 'Реклама',
      from: 'от',
      upTo: 'до',
      was: 'было',
      freeShipping: 'бесплатная доставка',
      gift: 'подарок',
      sale: 'распродажа',
    };
  }
  return {
    label: 'Sponsored',
    mark: 'Ad',
    from: 'from',
    upTo: 'up to',
    was: 'was',
    freeShipping: 'free shipping',
    gift: 'gift',
    sale: 'sale',
  };
}

/** What one teaser shows: the fields of the teasers answer (teaser-answer.ts) that are drawn. */
export interface TeaserView {
  url: string;
  title: string;
  domain?: string;
  /** The price as text; its numbers are shown as amounts of the answer's currency. */
  price?: string;
  image: string | null;
}

/** The few DOM calls the drawing needs (the server's TypeScript has no DOM library). */
interface TeaserNode {
  className: string;
  textContent: string | null;
  style: { cssText: string };
  appendChild<Child extends TeaserNode>(child: Child): Child;
  setAttribute(name: string, value: string): void;
  [property: string]: unknown;
}

interface TeaserDocument {
  createElement(tag: string): unknown;
}

/** Builds the list of a block's teasers (`<ul class="nativa-teasers">`), not yet in the page. */
export function renderTeaserList(
  document: TeaserDocument,
  data: { teasers: TeaserView[]; currency?: string; label?: string; language?: string },
): TeaserNode {
  const language = data.language || '';
  const words = teaserWords(language);
  function el(tag: string, className?: string, text?: string): TeaserNode {
    const node = document.createElement(tag) as TeaserNode;
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  /**
   * The price text in the page's language, every amount in the platform currency written as the
   * language writes it: `from 90 (was 120) -25%` becomes `from $90.00 (was $120.00) -25%`, or in
   * Russian `от 90,00 $ (было 120,00 $) -25%`.
   */
  function price(text: string, currency: string): string {
    const worded = text
      .replace(/^from /, `${words.from} `)
      .replace(/^up to /, `${words.upTo} `)
      .replace(/\(was /, `(${words.was} `)
      .replace(/\+ free shipping$/, `+ ${words.freeShipping}`)
      .replace(/\+ gift$/, `+ ${words.gift}`)
      .replace(/ sale$/, ` ${words.sale}`);
    let format: Intl.NumberFormat;
    try {
      format = new Intl.NumberFormat(language || undefined, { style: 'currency', currency: currency });
    } catch (_error) {
      return `${worded} ${currency}`;
    }
    return worded.replace(/-?[0-9]+(?:[.][0-9]+)?%?/g, (amount) => (/%$/.test(amount) ? amount : format.format(Number(amount))));
  }

  const list = el('ul', 'nativa-teasers');
  list.setAttribute('aria-label', data.label || words.label);
  list.style.cssText = 'list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:12px;';
  data.teasers.forEach((teaser) => {
    const item = el('li', 'nativa-teaser');
    item.style.cssText = 'flex:1 1 160px;max-width:240px;font:14px/1.3 sans-serif;';
    const link = el('a');
    link.href = teaser.url;
    link.target = '_blank';
    link.rel = 'sponsored noopener';
    link.style.cssText = 'display:block;color:inherit;text-decoration:none;';
    if (teaser.image) {
      const image = el('img');
      image.src = teaser.image;
      image.alt = teaser.title;
      image.width = 164;
      image.height = 164;
      image.loading = 'lazy';
      image.style.cssText = 'display:block;width:100%;height:auto;aspect-ratio:1/1;object-fit:cover;border-radius:4px;';
      link.appendChild(image);
    }
    // Disclosure, as every ad network shows it: an "Ad" mark and whose ad it is.
    const byline = link.appendChild(el('span', 'nativa-byline'));
    byline.style.cssText = 'display:block;margin-top:6px;font-size:12px;color:#595959;';
    byline.appendChild(el('span', 'nativa-ad-mark', words.mark)).style.cssText =
      'display:inline-block;margin-right:6px;padding:0 4px;border:1px solid currentColor;border-radius:3px;font-weight:700;';
    if (teaser.domain) byline.appendChild(el('span', 'nativa-domain', teaser.domain));
    link.appendChild(el('span', 'nativa-title', teaser.title)).style.cssText = 'display:block;font-weight:600;margin-top:2px;';
    if (teaser.price) {
      link.appendChild(el('span', 'nativa-price', price(teaser.price, data.currency || 'USD'))).style.cssText =
        'display:block;margin-top:2px;';
    }
    item.appendChild(link);
    list.appendChild(item);
  });
  return list;
}

/** The picture a teaser shows in a square block: the square one, else the wide one (the serving snapshot and the previews both ask this). */
export function teaserPicture<Image>(square: Image | null, wide: Image | null): Image | null {
  return square ?? wide;
}

/** The picture a teaser shows in a wide (3:2) block: the wide one, else the square one. */
export function widePicture<Image>(square: Image | null, wide: Image | null): Image | null {
  return wide ?? square;
}

/** The host of an ad's URL as a person reads it: `shop.example.com` for `https://www.shop.example.com/x`. */
export function domainOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
}
