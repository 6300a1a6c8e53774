import { useTranslation } from 'react-i18next';
import { problem } from '../../api.ts';
import { DailyChart } from '../../components/chart.tsx';
import { CompareToggle, change, previousPeriod, useComparing } from '../../components/compare.tsx';
import { Notice } from '../../components/controls.tsx';
import { Tile } from '../../components/figures.tsx';
import { PeriodPicker, usePeriod } from '../../components/period-picker.tsx';
import { count, fineMoney, today } from '../../format.ts';
import { Link } from '../../router.tsx';
import type { User } from '../../session.ts';
import { perThousand, SITE_STATUS, usePublisherStatistics, useSites } from './publisher-data.ts';
import { SiteStatusBadge, useIncomeSeries } from './publisher-ui.tsx';

export function PublisherOverviewPage({ user }: { user: User }) {
  const { t } = useTranslation('publisher');
  const period = usePeriod();
  const day = today();
  const todays = usePublisherStatistics({ from: day, to: day });
  const statistics = usePublisherStatistics(period);
  const sites = useSites();
  // The previous period of the same length, while comparing (otherwise the page's own query again).
  const comparing = useComparing();
  const before = usePublisherStatistics(comparing ? previousPeriod(period) : period);
  const previous = comparing ? before.data : undefined;
  const series = useIncomeSeries(statistics.data?.daily, previous?.daily);
  const totals = statistics.data?.totals;
  const was = previous?.totals;
  const waiting = (sites.data ?? []).filter((site) => site.status !== 'active');
  return (
    <>
      <div className="page-head">
        <h1>{t('overview.title')}</h1>
        <div className="pickers">
          <PeriodPicker />
          <CompareToggle />
        </div>
      </div>
      {(statistics.error || todays.error || sites.error) && (
        <Notice kind="error">{problem(statistics.error ?? todays.error ?? sites.error)}</Notice>
      )}
      <section className="tiles" aria-label={t('overview.figures')}>
        <Tile label={t('overview.balance')} value={fineMoney(user.balance)} note={t('overview.balanceNote')} />
        <Tile label={t('overview.earnedToday')} value={todays.data ? fineMoney(todays.data.totals.income) : '…'} />
        <Tile
          label={t('overview.earnedInPeriod')}
          value={totals ? fineMoney(totals.income) : '…'}
          note={totals && change(totals.income, was?.income)}
        />
        <Tile
          label={t('overview.clicksInPeriod')}
          value={totals ? count(totals.clicks) : '…'}
          note={totals && change(totals.clicks, was?.clicks)}
        />
        <Tile
          label={t('overview.servedInPeriod')}
          value={totals ? count(totals.served) : '…'}
          note={totals && change(totals.served, was?.served)}
        />
        <Tile
          label={t('overview.viewsInPeriod')}
          value={totals ? count(totals.views) : '…'}
          note={totals && change(totals.views, was?.views)}
        />
        <Tile
          label={t('figures.incomePerThousandServed')}
          value={totals ? fineMoney(perThousand(totals.income, totals.served)) : '…'}
          note={totals && change(perThousand(totals.income, totals.served), was && perThousand(was.income, was.served))}
        />
        <Tile
          label={t('figures.incomePerThousandViews')}
          value={totals ? fineMoney(totals.cpm) : '…'}
          note={totals && change(totals.cpm, was?.cpm)}
        />
      </section>
      {sites.isSuccess && sites.data.length === 0 && (
        <section className="card next-step">
          <h2>{t('overview.start.title')}</h2>
          <ol>
            <li>{t('overview.start.addSite')}</li>
            <li>{t('overview.start.createBlock')}</li>
            <li>{t('overview.start.earn')}</li>
          </ol>
          <Link href="/publisher/sites?add=1" className="button primary">
            {t('sites.add')}
          </Link>
        </section>
      )}
      {waiting.length > 0 && (
        <section className="card" aria-labelledby="waiting-title">
          <h2 id="waiting-title">{t('overview.waiting')}</h2>
          <ul className="site-notes">
            {waiting.map((site) => (
              <li key={site.id}>
                <Link href={`/publisher/sites/${site.id}`}>{site.url}</Link> <SiteStatusBadge status={site.status} />
                <p className="hint">{t(SITE_STATUS[site.status].meaning)}</p>
              </li>
            ))}
          </ul>
        </section>
      )}
      <section className="card">
        <div className="section-head flush">
          <h2>{t('overview.daily')}</h2>
          <Link href={`/publisher/statistics${location.search}`}>{t('overview.details')}</Link>
        </div>
        {statistics.data && <DailyChart days={statistics.data.daily.days} series={series} label={t('overview.chart')} />}
      </section>
    </>
  );
}
