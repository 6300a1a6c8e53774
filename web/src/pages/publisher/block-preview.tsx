import { useId, useState } from 'react';
import { money } from '../../format.ts';

/** Invented teasers: a preview must not ask the serving engine, which would count the views. */
const SAMPLES = [
  { domain: 'shoes.example', title: 'Running shoes at half price this week', price: 59.9 },
  { domain: 'travel.example', title: 'Seven islands you can still visit in spring', price: 0 },
  { domain: 'bank.example', title: 'A savings account that pays from day one', price: 0 },
  { domain: 'garden.example', title: 'The tomato seeds gardeners order twice', price: 4.5 },
  { domain: 'phones.example', title: 'This phone lasts three days on one charge', price: 299 },
  { domain: 'courses.example', title: 'Learn Spanish in ten minutes a day', price: 0 },
  { domain: 'kitchen.example', title: 'Knives chefs keep sharp for years', price: 89 },
  { domain: 'cars.example', title: 'Compare insurance in two minutes', price: 0 },
];

const WIDTHS = [
  { id: 'phone', label: 'Phone', width: 360 },
  { id: 'column', label: 'Article column', width: 680 },
  { id: 'wide', label: 'Full width', width: 0 },
] as const;

/**
 * A block as the embed script renders it: the same elements, class names and sizes as
 * src/modules/serving/loader-script.ts (a list of linked teasers, square picture, "Ad" mark and
 * domain, headline, price). It is drawn by the app rather than by loading the real script in a
 * frame: the app's Content-Security-Policy allows only its own scripts and forbids the inline
 * script a frame's srcdoc would need, and a real teaser request would count as views of real ads.
 */
export function BlockPreview({ count, label }: { count: number; label: string }) {
  const group = useId();
  const [width, setWidth] = useState<(typeof WIDTHS)[number]['id']>('column');
  const teasers = Array.from({ length: Math.max(1, Math.min(count, 20)) }, (_, index) => ({
    ...(SAMPLES[index % SAMPLES.length] ?? { domain: 'shop.example', title: 'A headline', price: 0 }),
    key: index,
  }));
  const chosen = WIDTHS.find((entry) => entry.id === width);
  return (
    <figure className="block-preview">
      <figcaption>
        <span>{label}</span>
        <span className="preview-widths" role="radiogroup" aria-label={`Width of the ${label.toLowerCase()}`}>
          {WIDTHS.map((entry) => (
            <label key={entry.id}>
              <input
                type="radio"
                name={group}
                value={entry.id}
                checked={width === entry.id}
                onChange={() => setWidth(entry.id)}
              />
              {entry.label}
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
        <ul className="nativa-teasers" aria-label="Sponsored">
          {teasers.map((teaser) => (
            <li className="nativa-teaser" key={teaser.key}>
              <span className="nativa-link">
                <span className={`nativa-sample-image sample-${teaser.key % 4}`} role="img" aria-label={teaser.title} />
                <span className="nativa-byline">
                  <span className="nativa-ad-mark">Ad</span>
                  <span className="nativa-domain">{teaser.domain}</span>
                </span>
                <span className="nativa-title">{teaser.title}</span>
                {teaser.price > 0 && <span className="nativa-price">from {money(teaser.price)}</span>}
              </span>
            </li>
          ))}
        </ul>
      </div>
    </figure>
  );
}
