import i18next from 'i18next';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { count, fineMoney, money, percent } from '../format.ts';

/**
 * Every statistics figure a table shows, with its column heading and how its numbers are written,
 * so that a figure reads the same on every page. Orders take their heading from the chosen goal.
 */
const FIGURES = {
  served: { heading: () => i18next.t('figure.served'), write: count },
  views: { heading: () => i18next.t('figure.views'), write: count },
  viewableViews: { heading: () => i18next.t('figure.viewableViews'), write: count },
  clicks: { heading: () => i18next.t('figure.clicks'), write: count },
  ctr: { heading: () => 'CTR', write: percent },
  money: { heading: () => i18next.t('figure.spend'), write: money },
  cpc: { heading: () => 'CPC', write: fineMoney },
  orders: { heading: () => null, write: count },
  cr: { heading: () => 'CR', write: percent },
  cpo: { heading: () => 'CPO', write: fineMoney },
  income: { heading: () => i18next.t('figure.income'), write: fineMoney },
  cpm: { heading: () => <abbr title={i18next.t('figure.rpmTitle')}>RPM</abbr>, write: fineMoney },
  rpmServed: {
    heading: () => <abbr title={i18next.t('figure.rpmServedTitle')}>{i18next.t('figure.rpmServed')}</abbr>,
    write: fineMoney,
  },
  rpmViewable: {
    heading: () => <abbr title={i18next.t('figure.rpmTitle')}>{i18next.t('figure.rpmViewable')}</abbr>,
    write: fineMoney,
  },
} satisfies Record<string, { heading: () => ReactNode; write: (value: number) => string }>;

export type Figure = keyof typeof FIGURES;

/** What an advertiser's campaign, device or site earns it, in the order its tables show them. */
export const ADVERTISER_FIGURES = ['views', 'clicks', 'ctr', 'money', 'cpc', 'orders', 'cr', 'cpo'] as const;

/** What a publisher's site or block brings in. */
export const PUBLISHER_FIGURES = ['views', 'clicks', 'ctr', 'income', 'cpm'] as const;

/**
 * What a publisher's day brings in: teasers served and the viewable views among them, each with
 * its income per thousand (RPM).
 */
export const PUBLISHER_DAY_FIGURES = ['served', 'viewableViews', 'clicks', 'ctr', 'income', 'rpmServed', 'rpmViewable'] as const;

/** The column headings of `figures`, to follow a row's own headings; `goal` names the orders. */
export function FigureHeads({ figures, goal = '' }: { figures: readonly Figure[]; goal?: string }) {
  useTranslation(); // the headings follow the language
  return figures.map((figure) => (
    <th key={figure} scope="col" className="num">
      {figure === 'orders' ? goal : FIGURES[figure].heading()}
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
