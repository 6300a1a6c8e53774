import { useMemo } from 'react';
import type { Series } from '../../components/chart.tsx';
import { change } from '../../components/compare.tsx';
import { Tile } from '../../components/figures.tsx';
import { count, fineMoney, percent } from '../../format.ts';
import { type DailyIncome, type IncomeTotals, SITE_STATUS, type SiteStatus } from './publisher-data.ts';
import './publisher.css';

/**
 * A publisher's figures for the period as tiles, income first: what the sites and blocks brought
 * in; with `previous`, each with its change on the previous period.
 */
export function IncomeTiles({ label, figures, previous }: { label: string; figures: IncomeTotals; previous?: IncomeTotals }) {
  return (
    <section className="tiles" aria-label={label}>
      <Tile label="Income" value={fineMoney(figures.income)} note={change(figures.income, previous?.income)} />
      <Tile label="Clicks" value={count(figures.clicks)} note={change(figures.clicks, previous?.clicks)} />
      <Tile label="Views" value={count(figures.views)} note={change(figures.views, previous?.views)} />
      <Tile label="CTR" value={percent(figures.ctr)} note={change(figures.ctr, previous?.ctr)} />
      <Tile label="Income per 1000 views" value={fineMoney(figures.cpm)} note={change(figures.cpm, previous?.cpm)} />
    </section>
  );
}

export function SiteStatusBadge({ status }: { status: SiteStatus }) {
  return <span className={`status site-${status}`}>{SITE_STATUS[status].label}</span>;
}

/**
 * Income (left axis) and clicks (right axis) per day. uPlot draws on a canvas, which needs real
 * colours, so the theme's variables are resolved here (and again when light/dark changes).
 */
export function useIncomeSeries(daily: DailyIncome | undefined, previous?: DailyIncome): Series[] {
  return useMemo(() => {
    if (!daily) return [];
    const style = getComputedStyle(document.documentElement);
    const color = (variable: string, fallback: string) => style.getPropertyValue(variable).trim() || fallback;
    return [
      // A publisher's income per day is often cents: up to four fraction digits, as the API keeps it.
      { label: 'Income', values: daily.income, color: color('--accent', '#0b6e4f'), format: fineMoney },
      // Clicks are whole: no 0.2-click ticks on the axis.
      { label: 'Clicks', values: daily.clicks, color: color('--second', '#2f5fb3'), format: wholeCount, right: true },
      ...(previous
        ? [
            {
              label: 'Income, previous period',
              values: previous.income,
              color: color('--muted', '#666'),
              format: fineMoney,
              dashed: true,
            },
          ]
        : []),
    ];
  }, [daily, previous]);
}

function wholeCount(value: number): string {
  return Number.isInteger(value) ? count(value) : '';
}
