import type { ReactNode } from 'react';
import { count, fineMoney, money, percent } from '../format.ts';

/**
 * Every statistics figure a table shows, with its column heading and how its numbers are written,
 * so that a figure reads the same on every page. Orders take their heading from the chosen goal.
 */
const FIGURES = {
  views: { heading: 'Views', write: count },
  clicks: { heading: 'Clicks', write: count },
  ctr: { heading: 'CTR', write: percent },
  money: { heading: 'Spend', write: money },
  cpc: { heading: 'CPC', write: fineMoney },
  orders: { heading: null, write: count },
  cr: { heading: 'CR', write: percent },
  cpo: { heading: 'CPO', write: fineMoney },
  income: { heading: 'Income', write: fineMoney },
  cpm: { heading: <abbr title="Income per 1000 views">RPM</abbr>, write: fineMoney },
} satisfies Record<string, { heading: ReactNode; write: (value: number) => string }>;

export type Figure = keyof typeof FIGURES;

/** What an advertiser's campaign, device or site earns it, in the order its tables show them. */
export const ADVERTISER_FIGURES = ['views', 'clicks', 'ctr', 'money', 'cpc', 'orders', 'cr', 'cpo'] as const;

/** What a publisher's site, block or day brings in. */
export const PUBLISHER_FIGURES = ['views', 'clicks', 'ctr', 'income', 'cpm'] as const;

/** The column headings of `figures`, to follow a row's own headings; `goal` names the orders. */
export function FigureHeads({ figures, goal = '' }: { figures: readonly Figure[]; goal?: string }) {
  return figures.map((figure) => (
    <th key={figure} scope="col" className="num">
      {figure === 'orders' ? goal : FIGURES[figure].heading}
    </th>
  ));
}

/** One row's cells for `figures`, in the order of their headings. */
export function FigureCells<F extends Figure>({ figures, row }: { figures: readonly F[]; row: Record<F, number> }) {
  return figures.map((figure) => (
    <td key={figure} className="num">
      {FIGURES[figure].write(row[figure])}
    </td>
  ));
}

/** One figure in large type, with what it is (and, if given, what it counts) beneath. */
export function Tile({ label, value, note }: { label: string; value: string; note?: string }) {
  return (
    <div className="tile">
      <span className="tile-label">{label}</span>
      <strong>{value}</strong>
      {note && <span className="tile-note">{note}</span>}
    </div>
  );
}
