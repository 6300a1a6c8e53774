import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type CSSProperties, type FormEvent, useState } from 'react';
import { api, data, problem, useFieldErrors } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import type { Block } from './publisher-data.ts';

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
/** The loader's figures (src/modules/publisher/blocks/block-design.ts): picture heights, px. */
const PICTURE: Record<Design['imageShape'], number> = { square: 164, wide: 92, round: 164, none: 0 };
const SAMPLES = [
  ['shoes.example', 'Running shoes at half price this week', 'from 59.90'],
  ['travel.example', 'Seven islands you can still visit in spring', ''],
  ['garden.example', 'The tomato seeds gardeners order twice', 'from 4.50'],
  ['phones.example', 'This phone lasts three days on one charge', '299'],
  ['courses.example', 'Learn Spanish in ten minutes a day', ''],
  ['kitchen.example', 'Knives chefs keep sharp for years', '89'],
] as const;

/** The block as the embed script lays out a designed block: the same grid, heights and colours. */
function DesignPreview({ design }: { design: Design }) {
  const line = Math.ceil(design.titleSize * 1.3);
  const picture = PICTURE[design.imageShape];
  const tile = (picture ? picture + 6 : 0) + 18 + 3 * line;
  const font = FONTS[design.font];
  const corner = design.adMark === 'byline' || !picture ? undefined : design.adMark.split('-');
  const tiles = Array.from({ length: design.columns * design.rows }, (_, slot) => ({
    slot,
    sample: SAMPLES[slot % SAMPLES.length] ?? SAMPLES[0],
  }));
  const mark: CSSProperties = corner
    ? { position: 'absolute', [corner[0] ?? 'top']: 4, [corner[1] ?? 'left']: 4, background: design.background }
    : {};
  return (
    <div className="design-preview" role="img" aria-label="Live preview of the block" style={{ fontFamily: font }}>
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
          const [domain, title, price] = sample;
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
                  Ad
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
                {title}
              </div>
              <div style={{ color: design.priceColor, height: line, lineHeight: `${line}px` }}>{price}</div>
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
  const queryClient = useQueryClient();
  const [design, setDesign] = useState<Design>(block.design ?? DEFAULT);
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: (body: { design: Design | null }) =>
      data(api.PUT('/api/webmaster/blocks/{id}', { params: { path: { id: block.id } }, body })),
    onSuccess: () => {
      setSaved(true);
      queryClient.invalidateQueries({ queryKey: ['sites'] });
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
    <form className="block-design" onSubmit={submit} aria-label={`Design of ${block.title}`}>
      {general && <Notice kind="error">{problem(save.error)}</Notice>}
      {errors.design && <Notice kind="error">{errors.design}</Notice>}
      {saved && !save.isPending && <Notice kind="ok">Saved. If the size changed, paste the block’s code again.</Notice>}
      <div className="inline-form">
        {number('columns', 'Columns', 1, 6)}
        {number('rows', 'Rows', 1, 5)}
        <Field
          label="Heading"
          name={`heading-${block.id}`}
          maxLength={60}
          value={design.heading}
          hint="Empty: none."
          onChange={(event) => set('heading', event.target.value)}
        />
        <Field label="Font" name={`font-${block.id}`}>
          <select
            id={`field-font-${block.id}`}
            value={design.font}
            onChange={(event) => set('font', event.target.value as Design['font'])}
          >
            {Object.keys(FONTS).map((font) => (
              <option key={font} value={font}>
                {font}
              </option>
            ))}
          </select>
        </Field>
        {number('titleSize', 'Title size (px)', 10, 24)}
        {color('textColor', 'Text colour')}
        {color('priceColor', 'Price colour')}
        {color('background', 'Background')}
        <Field label="Picture" name={`imageShape-${block.id}`}>
          <select
            id={`field-imageShape-${block.id}`}
            value={design.imageShape}
            onChange={(event) => set('imageShape', event.target.value as Design['imageShape'])}
          >
            <option value="square">Square</option>
            <option value="wide">Wide (16:9)</option>
            <option value="round">Round</option>
            <option value="none">None</option>
          </select>
        </Field>
        <Field label="“Ad” mark" name={`adMark-${block.id}`}>
          <select
            id={`field-adMark-${block.id}`}
            value={design.adMark}
            onChange={(event) => set('adMark', event.target.value as Design['adMark'])}
          >
            <option value="byline">Beside the domain</option>
            <option value="top-left">Picture, top left</option>
            <option value="top-right">Picture, top right</option>
            <option value="bottom-left">Picture, bottom left</option>
            <option value="bottom-right">Picture, bottom right</option>
          </select>
        </Field>
      </div>
      <DesignPreview design={design} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save design'}
        </button>
        {block.design && (
          <button type="button" onClick={() => save.mutate({ design: null })} disabled={save.isPending}>
            Remove design
          </button>
        )}
      </div>
    </form>
  );
}
