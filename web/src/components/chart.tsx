import { useEffect, useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { dayLabel, dayMonthLabel } from '../format.ts';

export interface Series {
  label: string;
  values: number[];
  color: string;
  format: (value: number) => string;
  /** Plotted against the right-hand axis. */
  right?: boolean;
  /** Drawn dashed (the previous period beside the current one). */
  dashed?: boolean;
}

/**
 * A daily line chart (uPlot: small, canvas, fast with a year of points). Its width follows its
 * box; its figures are also in the table next to it, which is what screen readers get.
 */
export function DailyChart({ days, series, label }: { days: string[]; series: Series[]; label: string }) {
  const { t } = useTranslation();
  const box = useRef<HTMLDivElement>(null);
  const dayName = t('chart.day');
  useEffect(() => {
    const element = box.current;
    if (element === null || days.length === 0) return;
    const stroke = getComputedStyle(element).getPropertyValue('--muted').trim() || '#888';
    const grid = getComputedStyle(element).getPropertyValue('--line').trim() || '#ddd';
    const times = days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
    const axis = (side: 1 | 3, format: (value: number) => string, scale: string): uPlot.Axis => ({
      side,
      scale,
      stroke,
      grid: { stroke: grid, width: 1, show: side === 3 },
      ticks: { show: false },
      size: 70,
      values: (_plot, ticks) => ticks.map(format),
    });
    const first = series[0];
    const second = series.find((entry) => entry.right && !entry.dashed);
    const options: uPlot.Options = {
      width: element.clientWidth,
      height: 240,
      tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
      cursor: { drag: { x: false, y: false } },
      legend: { show: true },
      scales: { x: { time: true }, left: { auto: true }, right: { auto: true } },
      axes: [
        {
          stroke,
          size: 36,
          gap: 10,
          grid: { show: false },
          ticks: { show: false },
          values: (_plot, ticks) => ticks.map((tick) => dayMonthLabel(new Date(tick * 1000).toISOString().slice(0, 10))),
        },
        ...(first ? [axis(3, first.format, 'left')] : []),
        ...(second ? [axis(1, second.format, 'right')] : []),
      ],
      series: [
        {
          label: dayName,
          value: (_plot, value) => (value == null ? '' : dayLabel(new Date(value * 1000).toISOString().slice(0, 10))),
        },
        ...series.map((entry) => ({
          label: entry.label,
          stroke: entry.color,
          width: 2,
          ...(entry.dashed ? { dash: [6, 4] } : {}),
          scale: entry.right ? 'right' : 'left',
          points: { show: days.length < 45 },
          value: (_plot: uPlot, value: number | null) => (value == null ? '' : entry.format(value)),
        })),
      ],
    };
    const plot = new uPlot(options, [times, ...series.map((entry) => entry.values)], element);
    const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: 240 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
    // The language is a dependency (through dayName): the axes' days and the legend are written in it.
  }, [days, series, dayName]);
  return <div className="chart" ref={box} role="img" aria-label={label} />;
}

/** uPlot draws on a canvas, which needs real colours, not CSS variables. */
export function useResolvedColors<T extends { color: string }>(series: T[]): T[] {
  return useMemo(() => {
    const style = getComputedStyle(document.documentElement);
    return series.map((entry) => {
      const variable = /^var\((--[a-z-]+)\)$/.exec(entry.color)?.[1];
      return variable ? { ...entry, color: style.getPropertyValue(variable).trim() || '#0b6e4f' } : entry;
    });
  }, [series]);
}
