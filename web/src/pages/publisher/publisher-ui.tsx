import type { TFunction } from 'i18next';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { Series } from '../../components/chart.tsx';
import { change } from '../../components/compare.tsx';
import { Tile } from '../../components/figures.tsx';
import { count, fineMoney, percent } from '../../format.ts';
import { type DailyIncome, type IncomeTotals, perThousand, SITE_STATUS, type SiteStatus } from './publisher-data.ts';
import './publisher.css';
import type catalogue from '../../i18n/locales/en/publisher.json';

/** A key of the publisher's catalogue. */
export type PublisherKey = keyof typeof catalogue;

/**
 * A publisher's figures for the period as tiles, income first: what the sites and blocks brought
 * in, teasers served and the viewable views among them, and the income per thousand of each;
 * with `previous`, each with its change on the previous period.
 */
export function IncomeTiles({ label, figures, previous }: { label: string; figures: IncomeTotals; previous?: IncomeTotals }) {
  const { t } = useTranslation('publisher');
  return (
    <section className="tiles" aria-label={label}>
      <Tile label={t('figures.income')} value={fineMoney(figures.income)} note={change(figures.income, previous?.income)} />
      <Tile label={t('figures.clicks')} value={count(figures.clicks)} note={change(figures.clicks, previous?.clicks)} />
      <Tile label={t('figures.served')} value={count(figures.served)} note={change(figures.served, previous?.served)} />
      <Tile label={t('figures.views')} value={count(figures.views)} note={change(figures.views, previous?.views)} />
      <Tile label="CTR" value={percent(figures.ctr)} note={change(figures.ctr, previous?.ctr)} />
      <Tile
        label={t('figures.incomePerThousandServed')}
        value={fineMoney(perThousand(figures.income, figures.served))}
        note={change(perThousand(figures.income, figures.served), previous && perThousand(previous.income, previous.served))}
      />
      <Tile
        label={t('figures.incomePerThousandViews')}
        value={fineMoney(figures.cpm)}
        note={change(figures.cpm, previous?.cpm)}
      />
    </section>
  );
}

export function SiteStatusBadge({ status }: { status: SiteStatus }) {
  const { t } = useTranslation('publisher');
  return <span className={`status site-${status}`}>{t(SITE_STATUS[status].label)}</span>;
}

/**
 * Income (left axis) and clicks (right axis) per day. uPlot draws on a canvas, which needs real
 * colours, so the theme's variables are resolved here (and again when light/dark changes).
 */
export function useIncomeSeries(daily: DailyIncome | undefined, previous?: DailyIncome): Series[] {
  const { t } = useTranslation('publisher');
  return useMemo(() => {
    if (!daily) return [];
    const style = getComputedStyle(document.documentElement);
    const color = (variable: string, fallback: string) => style.getPropertyValue(variable).trim() || fallback;
    return [
      // A publisher's income per day is often cents: up to four fraction digits, as the API keeps it.
      { label: t('figures.income'), values: daily.income, color: color('--accent', '#0b6e4f'), format: fineMoney },
      // Clicks are whole: no 0.2-click ticks on the axis.
      { label: t('figures.clicks'), values: daily.clicks, color: color('--second', '#2f5fb3'), format: wholeCount, right: true },
      ...(previous
        ? [
            {
              label: t('figures.incomePreviousPeriod'),
              values: previous.income,
              color: color('--muted', '#666'),
              format: fineMoney,
              dashed: true,
            },
          ]
        : []),
    ];
  }, [daily, previous, t]);
}

function wholeCount(value: number): string {
  return Number.isInteger(value) ? count(value) : '';
}

/** A map of values to catalogue keys (a select's options, a list's orders) with each key translated. */
export function translatedNames<V extends string, K extends PublisherKey>(names: Record<V, K>, t: TFunction<'publisher'>) {
  const translate = (key: PublisherKey): string => t(key);
  return Object.fromEntries(Object.entries<K>(names).map(([value, key]) => [value, translate(key)])) as Record<V, string>;
}
