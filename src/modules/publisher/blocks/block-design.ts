import { type Static, Type } from '@sinclair/typebox';
import type { FieldError } from '../../../errors.ts';

/**
 * A block's design (an extension; docs/publisher.md, Block design): the grid, type, colours, picture
 * shape and where the "Ad" mark sits, stored on the block and applied by the embed script. The
 * tile's height follows from the design alone (fixed picture height, two lines of title, one of
 * price), so the embed code reserves the block's exact height and the teasers cause no layout
 * shift; the loader (serving/loader-script.ts) lays tiles out with the same figures.
 */

export const FONTS = ['system', 'sans-serif', 'serif', 'monospace', 'arial', 'georgia', 'verdana'] as const;
export const IMAGE_SHAPES = ['square', 'wide', 'round', 'none'] as const;
export const AD_MARKS = ['byline', 'top-left', 'top-right', 'bottom-left', 'bottom-right'] as const;

const Color = (description: string) => Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: `${description} (#rrggbb).` });

export const BlockDesignSchema = Type.Object(
  {
    columns: Type.Integer({ minimum: 1, maximum: 6, description: 'Teasers per row, 1–6.' }),
    rows: Type.Integer({ minimum: 1, maximum: 5, description: 'Rows, 1–5; columns × rows is the block’s `count`.' }),
    heading: Type.String({ maxLength: 60, description: 'Text above the teasers; empty: none.' }),
    font: Type.Union(
      FONTS.map((font) => Type.Literal(font)),
      { description: 'Font family: system (the page’s system font), sans-serif, serif, monospace, arial, georgia, verdana.' },
    ),
    titleSize: Type.Integer({ minimum: 10, maximum: 24, description: 'Title size, px (10–24).' }),
    textColor: Color('Title and text colour'),
    priceColor: Color('Price colour'),
    background: Color('Background colour'),
    imageShape: Type.Union(
      IMAGE_SHAPES.map((shape) => Type.Literal(shape)),
      { description: 'Picture: square, wide (16:9), round, or none.' },
    ),
    adMark: Type.Union(
      AD_MARKS.map((mark) => Type.Literal(mark)),
      { description: 'Where the "Ad" mark sits: in the byline, or on a corner of the picture.' },
    ),
  },
  { additionalProperties: false, description: 'A block’s design (extension).' },
);

export type BlockDesign = Static<typeof BlockDesignSchema>;

export const DEFAULT_DESIGN: BlockDesign = {
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

/** The request's design: any of the fields, the rest from the block's current design or the defaults. */
export const BlockDesignInput = Type.Partial(BlockDesignSchema, {
  // An empty object would silently give a block without a design the default one.
  minProperties: 1,
  description:
    'The block’s design (extension): one or more of its fields, the others kept (or their defaults); null removes the design. Setting columns or rows sets `count` to columns × rows.',
});

/** Picture heights by shape, px, and the fixed parts of a tile: the loader uses the same figures. */
const IMAGE_HEIGHT: Record<BlockDesign['imageShape'], number> = { square: 164, wide: 92, round: 164, none: 0 };
const BYLINE = 18;
const GAP = 12;
const HEADING = 28;

/** A tile's height, px: picture (+6 px gap), byline, two lines of title, one line of price. */
export function tileHeight(design: BlockDesign): number {
  const image = IMAGE_HEIGHT[design.imageShape];
  const line = Math.ceil(design.titleSize * 1.3);
  return (image > 0 ? image + 6 : 0) + BYLINE + 2 * line + line;
}

/** The block's height, px: its heading, its rows of tiles and the gaps between them. */
export function blockHeight(design: BlockDesign): number {
  return (design.heading === '' ? 0 : HEADING) + design.rows * tileHeight(design) + (design.rows - 1) * GAP;
}

/** A stored design as the block's full design (a design stored by an older version gets today's defaults for new fields). */
export function readDesign(stored: unknown): BlockDesign | undefined {
  if (stored === null || stored === undefined || typeof stored !== 'object') return undefined;
  return { ...DEFAULT_DESIGN, ...(stored as Partial<BlockDesign>) };
}

/** The design a change gives (undefined: unchanged, null: removed), with 422 entries for what its schema does not bound. */
export function mergeDesign(
  current: BlockDesign | undefined,
  change: Partial<BlockDesign> | null | undefined,
  problems: FieldError[],
): BlockDesign | null | undefined {
  if (change === undefined || change === null) return change;
  const merged = { ...(current ?? DEFAULT_DESIGN), ...change };
  if (/[<>]/.test(merged.heading)) problems.push({ field: 'design.heading', message: 'Must not contain < or >.' });
  return merged;
}
