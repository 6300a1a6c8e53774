import { useLayoutEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { domainOf, renderTeaserList, teaserPicture, teaserWords } from '../../../src/modules/serving/teaser-render.ts';
import { currentPlatform } from '../format.ts';
import { currentLanguage } from '../i18n/i18n.ts';

/**
 * A teaser drawn by the embed script's own code (renderTeaserList), so that a preview shows what a
 * visitor of a block will see: the square picture (the wide one only when there is no square),
 * the "Ad" mark and domain, the headline, the price in the platform's currency.
 */
export function TeaserPreview({
  square,
  wide,
  title,
  url,
  price,
  label,
}: {
  square: string | null;
  wide: string | null;
  title: string;
  url: string;
  price: string;
  label?: string;
}) {
  const { t } = useTranslation();
  const language = currentLanguage();
  const box = useRef<HTMLDivElement>(null);
  const name = label ?? t('teaserPreview.label');
  const headline = title || t('teaserPreview.headline');
  const image = teaserPicture(square, wide);
  useLayoutEffect(() => {
    const target = box.current;
    if (!target) return;
    const list = renderTeaserList(document, {
      teasers: [{ url: url || '#', title: headline, domain: domainOf(url), price, image }],
      currency: currentPlatform().currency,
      label: name,
      language,
    }) as unknown as Node;
    target.replaceChildren(list);
  }, [image, headline, url, price, name, language]);
  return <div className="teaser-preview" ref={box} />;
}

/** The "Ad" mark as teasers show it in the page's language (the embed script's own word). */
export const adMarkText = (): string => teaserWords(currentLanguage()).mark;

/** The accessible name of a teaser list in the page's language (the embed script's own word). */
export const teaserListLabel = (): string => teaserWords(currentLanguage()).label;
