import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type CSSProperties, type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, problem, useFieldErrors } from '../../api.ts';
import { Field, Notice, Options } from '../../components/controls.tsx';
import { money } from '../../format.ts';
import { adMark, SAMPLE_TEASERS } from './block-preview.tsx';
import type { Block } from './publisher-data.ts';
import { publisherKeys } from './publisher-keys.ts';
import { translatedNames } from './publisher-ui.tsx';

type Design = NonNullable<Block['design']>;

const DEFAULT: Design = {
  columns: 4,
  rows: 1,
  heading: '',
  font: 'system',
  titleSize: 14,
  textColor: '#1a1a1a',
  priceColor: '#0b6b3a',
  background: '#ffffff',
  imageShape: 'square',
  adMark: 'byline',
};
const FONTS: Record<Design['font'], string> = {
  system: 'system-ui,sans-serif',
  'sans-serif': 'sans-serif',
  serif: 'serif',
  monospace: 'monospace',
  arial: 'Arial,sans-serif',
  georgia: 'Georgia,serif',
  verdana: 'Verdana,sans-serif',
};
const FONT_NAMES = {
  system: 'design.font.system',
  'sans-serif': 'design.font.sansSerif',
  serif: 'design.font.serif',
  monospace: 'design.font.monospace',
  arial: 'design.font.arial',
  georgia: 'design.font.georgia',
  verdana: 'design.font.verdana',
} as const satisfies Record<Design['font'], string>;
const PICTURE_NAMES = {
  square: 'design.picture.square',
  wide: 'design.picture.wide',
  round: 'design.picture.round',
  none: 'design.picture.none',
} as const satisfies Record<Design['imageShape'], string>;
const AD_MARK_PLACES = {
  byline: 'design.adMark.byline',
  'top-left': 'design.adMark.topLeft',
  'top-right': 'design.adMark.topRight',
  'bottom-left': 'design.adMark.bottomLeft',
  'bottom-right': 'design.adMark.bottomRight',
} as const satisfies Record<Design['adMark'], string>;
/** The loader's figures (src/modules/publisher/blocks/block-design.ts): picture heights, px. */
const PICTURE: Record<Design['imageShape'], number> = { square: 164, wide: 92, round: 164, none: 0 };
const SAMPLES = SAMPLE_TEASERS.filter((sample) => sample.domain !== 'bank.example' && sample.domain !== 'cars.example');

/** The block as the embed script lays out a designed block: the same grid, heights and colours. */
function DesignPreview({ design }: { design: Design }) {
  const { t } = useTranslation('publisher');
  const line = Math.ceil(design.titleSize * 1.3);
  const picture = PICTURE[design.imageShape];
  const tile = (picture ? picture + 6 : 0) + 18 + 3 * line;
  const font = FONTS[design.font];
  const corner = design.adMark === 'byline' || !picture ? undefined : design.adMark.split('-');
  const tiles = Array.from({ length: design.columns * design.rows }, (_, slot) => ({
    slot,
    sample: SAMPLES[slot % SAMPLES.length] ?? SAMPLE_TEASERS[0],
  }));
  const mark: CSSProperties = corner
    ? { position: 'absolute', [corner[0] ?? 'top']: 4, [corner[1] ?? 'left']: 4, background: design.background }
    : {};
  return (
    <div className="design-preview" role="img" aria-label={t('design.preview')} style={{ fontFamily: font }}>
      {design.heading !== '' && <div style={{ height: 28, lineHeight: '28px', fontWeight: 700 }}>{design.heading}</div>}
      <div
        style={{
          display: 'grid',
          gap: 12,
          gridTemplateColumns: `repeat(${design.columns}, minmax(0, 1fr))`,
          background: design.background,
          color: design.textColor,
        }}
      >
        {tiles.map(({ slot: index, sample }) => {
          const { domain, title, price } = sample;
          return (
            <div key={index} style={{ height: tile, overflow: 'hidden', fontSize: 12, lineHeight: '18px', position: 'relative' }}>
              {picture > 0 && (
                <div
                  className={`nativa-sample-image sample-${index % 4}`}
                  style={{
                    height: picture,
                    aspectRatio: 'auto',
                    width: design.imageShape === 'round' ? picture : '100%',
                    maxWidth: '100%',
                    margin: design.imageShape === 'round' ? '0 auto' : undefined,
                    borderRadius: design.imageShape === 'round' ? '50%' : 4,
                  }}
                />
              )}
              <div style={{ height: 18, marginTop: picture ? 6 : 0, overflow: 'hidden' }}>
                <span className="design-ad-mark" style={mark}>
                  {adMark()}
                </span>{' '}
                {domain}
              </div>
              <div
                style={{
                  fontWeight: 600,
                  fontSize: design.titleSize,
                  lineHeight: `${line}px`,
                  height: 2 * line,
                  overflow: 'hidden',
                }}
              >
                {t(title)}
              </div>
              <div style={{ color: design.priceColor, height: line, lineHeight: `${line}px` }}>
                {price > 0 && t('preview.sample.price', { price: money(price) })}
              </div>
            </div>
          );
        })}
      </div>
    </div>
  );
}

/**
 * A block's design with a live preview: columns × rows (which set how many teasers it shows),
 * heading, font and title size, colours, picture shape, where the "Ad" mark sits. Saved on the
 * block, applied by the embed script; the block's code then reserves its height (paste it again
 * after changing the grid, heading, picture shape or title size).
 */
export function BlockDesignEditor({ block }: { block: Block }) {
  const { t } = useTranslation('publisher');
  const queryClient = useQueryClient();
  const [design, setDesign] = useState<Design>(block.design ?? DEFAULT);
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: (body: { design: Design | null }) =>
      data(api.PUT('/api/webmaster/blocks/{id}', { params: { path: { id: block.id } }, body })),
    onSuccess: () => {
      setSaved(true);
      queryClient.invalidateQueries({ queryKey: publisherKeys.sites.all() });
    },
  });
  const { errors, general } = useFieldErrors(save.error);
  const set = <K extends keyof Design>(key: K, value: Design[K]) => {
    setDesign({ ...design, [key]: value });
    setSaved(false);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ design });
  };
  const number = (key: 'columns' | 'rows' | 'titleSize', label: string, min: number, max: number) => (
    <Field
      label={label}
      name={`${key}-${block.id}`}
      type="number"
      min={min}
      max={max}
      value={design[key]}
      onChange={(event) => set(key, Math.min(max, Math.max(min, Number(event.target.value) || min)))}
    />
  );
  const color = (key: 'textColor' | 'priceColor' | 'background', label: string) => (
    <Field
      label={label}
      name={`${key}-${block.id}`}
      type="color"
      value={design[key]}
      onChange={(event) => set(key, event.target.value)}
    />
  );
  return (
    <form className="block-design" onSubmit={submit} aria-label={t('design.form', { title: block.title })}>
      {general && <Notice kind="error">{problem(save.error)}</Notice>}
      {errors.design && <Notice kind="error">{errors.design}</Notice>}
      {saved && !save.isPending && <Notice kind="ok">{t('design.saved')}</Notice>}
      <div className="inline-form">
        {number('columns', t('design.columns'), 1, 6)}
        {number('rows', t('design.rows'), 1, 5)}
        <Field
          label={t('design.heading')}
          name={`heading-${block.id}`}
          maxLength={60}
          value={design.heading}
          hint={t('design.headingHint')}
          onChange={(event) => set('heading', event.target.value)}
        />
        <Field label={t('design.font')} name={`font-${block.id}`}>
          <select
            id={`field-font-${block.id}`}
            value={design.font}
            onChange={(event) => set('font', event.target.value as Design['font'])}
          >
            <Options names={translatedNames(FONT_NAMES, t)} />
          </select>
        </Field>
        {number('titleSize', t('design.titleSize'), 10, 24)}
        {color('textColor', t('design.textColor'))}
        {color('priceColor', t('design.priceColor'))}
        {color('background', t('design.background'))}
        <Field label={t('design.picture')} name={`imageShape-${block.id}`}>
          <select
            id={`field-imageShape-${block.id}`}
            value={design.imageShape}
            onChange={(event) => set('imageShape', event.target.value as Design['imageShape'])}
          >
            <Options names={translatedNames(PICTURE_NAMES, t)} />
          </select>
        </Field>
        <Field label={t('design.adMark', { mark: adMark() })} name={`adMark-${block.id}`}>
          <select
            id={`field-adMark-${block.id}`}
            value={design.adMark}
            onChange={(event) => set('adMark', event.target.value as Design['adMark'])}
          >
            <Options names={translatedNames(AD_MARK_PLACES, t)} />
          </select>
        </Field>
      </div>
      <DesignPreview design={design} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? t('saving') : t('design.save')}
        </button>
        {block.design && (
          <button type="button" onClick={() => save.mutate({ design: null })} disabled={save.isPending}>
            {t('design.remove')}
          </button>
        )}
      </div>
    </form>
  );
}
