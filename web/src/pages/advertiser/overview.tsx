import { useTranslation } from 'react-i18next';
import { problem } from '../../api.ts';
import { DailyChart } from '../../components/chart.tsx';
import { CompareToggle, change, previousPeriod, useComparing } from '../../components/compare.tsx';
import { Notice } from '../../components/controls.tsx';
import { Tile } from '../../components/figures.tsx';
import { GoalPicker, goalNoun, useGoal } from '../../components/goal-picker.tsx';
import { PeriodPicker, usePeriod } from '../../components/period-picker.tsx';
import { count, money, today } from '../../format.ts';
import type { User } from '../../session.ts';
import { useDailyStatistics, useSpendAndClicksSeries, useTotals } from './advertiser-data.ts';

export function OverviewPage({ user }: { user: User }) {
  const { t } = useTranslation('advertiser');
  const period = usePeriod();
  const goal = useGoal();
  const day = today();
  const todays = useTotals({ from: day, to: day });
  const totals = useTotals(period, undefined, goal);
  const daily = useDailyStatistics(period);
  // The previous period of the same length, while comparing.
  const comparing = useComparing();
  // Not comparing, these are the page's own queries (the same keys): nothing more is asked for.
  const before = comparing ? previousPeriod(period) : period;
  const previousTotals = useTotals(before, undefined, goal);
  const previousDaily = useDailyStatistics(before);
  const previous = comparing ? previousTotals.data : undefined;
  const resolvedSeries = useSpendAndClicksSeries(daily.data, comparing ? previousDaily.data : undefined);
  return (
    <>
      <div className="page-head">
        <h1>{t('overview.title')}</h1>
        <div className="pickers">
          <GoalPicker />
          <PeriodPicker />
          <CompareToggle />
        </div>
      </div>
      {(totals.error || daily.error) && <Notice kind="error">{problem(totals.error ?? daily.error)}</Notice>}
      <section className="tiles" aria-label={t('overview.figures')}>
        <Tile label={t('figure.balance')} value={money(user.balance)} />
        <Tile label={t('overview.spentToday')} value={todays.data ? money(todays.data.money) : '…'} />
        <Tile
          label={t('client.spent')}
          value={totals.data ? money(totals.data.money) : '…'}
          note={totals.data && change(totals.data.money, previous?.money)}
        />
        <Tile
          label={t('client.clicks')}
          value={totals.data ? count(totals.data.clicks) : '…'}
          note={totals.data && change(totals.data.clicks, previous?.clicks)}
        />
        <Tile
          label={t('overview.goalInPeriod', { goal: goalNoun(goal) })}
          value={totals.data ? count(totals.data.orders) : '…'}
          note={totals.data && change(totals.data.orders, previous?.orders)}
        />
      </section>
      <section className="card">
        <h2>{t('overview.chartTitle')}</h2>
        {daily.data && <DailyChart days={daily.data.days} series={resolvedSeries} label={t('overview.chart')} />}
      </section>
    </>
  );
}
