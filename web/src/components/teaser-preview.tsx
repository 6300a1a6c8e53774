import { useLayoutEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import {
  domainOf,
  renderTeaserList,
  teaserPicture,
  teaserWords,
  widePicture,
} from '../../../src/modules/serving/teaser-render.ts';
import { currentPlatform } from '../format.ts';
import { currentLanguage } from '../i18n/i18n.ts';

/**
 * The picture box of a wide block's tile, width to height: a designed block with `imageShape: wide`
 * draws its pictures 92 px high in a column 164 px wide (block-design.ts, the loader's PICTURE).
 */
const WIDE_TILE_RATIO = '164 / 92';

/**
 * A teaser drawn by the embed script's own code (renderTeaserList), so that a preview shows what a
 * visitor of a block will see: the "Ad" mark and domain, the headline, the price in the platform's
 * currency, and the picture a block of that shape is served — in a square block (the default) the
 * square picture (the wide one only when there is no square), in a wide block the wide picture
 * (else the square one), cut as the block cuts it.
 */
export function TeaserPreview({
  square,
  wide,
  title,
  url,
  price,
  label,
  shape = 'square',
}: {
  square: string | null;
  wide: string | null;
  title: string;
  url: string;
  price: string;
  label?: string;
  shape?: 'square' | 'wide';
}) {
  const { t } = useTranslation();
  const language = currentLanguage();
  const box = useRef<HTMLDivElement>(null);
  const name = label ?? t('teaserPreview.label');
  const headline = title || t('teaserPreview.headline');
  const image = shape === 'wide' ? widePicture(square, wide) : teaserPicture(square, wide);
  useLayoutEffect(() => {
    const target = box.current;
    if (!target) return;
    const list = renderTeaserList(document, {
      teasers: [{ url: url || '#', title: headline, domain: domainOf(url), price, image }],
      currency: currentPlatform().currency,
      label: name,
      language,
    }) as unknown as HTMLElement;
    const picture = list.querySelector('img');
    if (shape === 'wide' && picture) picture.style.aspectRatio = WIDE_TILE_RATIO;
    target.replaceChildren(list);
  }, [image, headline, url, price, name, shape, language]);
  return <div className="teaser-preview" data-shape={shape} ref={box} />;
}

/** The "Ad" mark as teasers show it in the page's language (the embed script's own word). */
export const adMarkText = (): string => teaserWords(currentLanguage()).mark;

/** The accessible name of a teaser list in the page's language (the embed script's own word). */
export const teaserListLabel = (): string => teaserWords(currentLanguage()).label;
