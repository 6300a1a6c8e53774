import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { adMarkText, teaserListLabel } from '../../components/teaser-preview.tsx';
import { money } from '../../format.ts';

/**
 * The disclosure the embed script writes on every teaser and list (src/modules/serving/teaser-render.ts),
 * in the page's language as the script writes it on a page in that language: the previews show
 * what visitors will see, so they take these words from the script's own table.
 */
export const adMark = (): string => adMarkText();
const sponsored = (): string => teaserListLabel();

/**
 * Invented teasers: a preview must not ask the serving engine, which would count the views. Their
 * headlines stand for advertisers' texts, so they are in the publisher's language.
 */
export const SAMPLE_TEASERS = [
  { domain: 'shoes.example', title: 'preview.sample.shoes', price: 59.9 },
  { domain: 'travel.example', title: 'preview.sample.travel', price: 0 },
  { domain: 'bank.example', title: 'preview.sample.bank', price: 0 },
  { domain: 'garden.example', title: 'preview.sample.garden', price: 4.5 },
  { domain: 'phones.example', title: 'preview.sample.phones', price: 299 },
  { domain: 'courses.example', title: 'preview.sample.courses', price: 0 },
  { domain: 'kitchen.example', title: 'preview.sample.kitchen', price: 89 },
  { domain: 'cars.example', title: 'preview.sample.cars', price: 0 },
] as const;

const WIDTHS = [
  { id: 'phone', label: 'preview.width.phone', width: 360 },
  { id: 'column', label: 'preview.width.column', width: 680 },
  { id: 'wide', label: 'preview.width.full', width: 0 },
] as const;

/**
 * A block as the embed script renders it: the same elements, class names and sizes as
 * src/modules/serving/loader-script.ts (a list of linked teasers, square picture, "Ad" mark and
 * domain, headline, price). It is drawn by the app rather than by loading the real script in a
 * frame: the app's Content-Security-Policy allows only its own scripts and forbids the inline
 * script a frame's srcdoc would need, and a real teaser request would count as views of real ads.
 */
export function BlockPreview({ count, label }: { count: number; label: string }) {
  const { t } = useTranslation('publisher');
  const group = useId();
  const [width, setWidth] = useState<(typeof WIDTHS)[number]['id']>('column');
  const teasers = Array.from({ length: Math.max(1, Math.min(count, 20)) }, (_, index) => ({
    ...(SAMPLE_TEASERS[index % SAMPLE_TEASERS.length] ?? SAMPLE_TEASERS[0]),
    key: index,
  }));
  const chosen = WIDTHS.find((entry) => entry.id === width);
  return (
    <figure className="block-preview">
      <figcaption>
        <span>{label}</span>
        <span className="preview-widths" role="radiogroup" aria-label={t('preview.widths', { label })}>
          {WIDTHS.map((entry) => (
            <label key={entry.id}>
              <input
                type="radio"
                name={group}
                value={entry.id}
                checked={width === entry.id}
                onChange={() => setWidth(entry.id)}
              />
              {t(entry.label)}
            </label>
          ))}
        </span>
      </figcaption>
      <div className={`preview-page width-${chosen?.id ?? 'column'}`}>
        <p className="preview-article" aria-hidden="true">
          <span />
          <span />
          <span />
        </p>
        <ul className="nativa-teasers" aria-label={sponsored()}>
          {teasers.map((teaser) => (
            <li className="nativa-teaser" key={teaser.key}>
              <span className="nativa-link">
                <span className={`nativa-sample-image sample-${teaser.key % 4}`} role="img" aria-label={t(teaser.title)} />
                <span className="nativa-byline">
                  <span className="nativa-ad-mark">{adMark()}</span>
                  <span className="nativa-domain">{teaser.domain}</span>
                </span>
                <span className="nativa-title">{t(teaser.title)}</span>
                {teaser.price > 0 && (
                  <span className="nativa-price">{t('preview.sample.price', { price: money(teaser.price) })}</span>
                )}
              </span>
            </li>
          ))}
        </ul>
      </div>
    </figure>
  );
}
