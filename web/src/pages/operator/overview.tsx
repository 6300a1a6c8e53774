import type { operations } from '@nativa/sdk';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, data, problem } from '../../api.ts';
import { Notice } from '../../components/controls.tsx';
import { Tile } from '../../components/figures.tsx';
import { PeriodPicker, usePeriod } from '../../components/period-picker.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { count, fineMoney, percent } from '../../format.ts';
import { Link } from '../../router.tsx';
import './operator.css';
import { operatorKeys } from './operator-keys.ts';

type Overview = operations['adminNetworkOverview']['responses'][200]['content']['application/json'];
type Figures = Pick<Overview, 'spend' | 'earnings' | 'margin' | 'served' | 'views' | 'clicks' | 'invalidClicks'>;

/** The share of clicks found invalid, in per cent (0 without clicks). */
const invalidShare = (figures: Figures) => (figures.clicks > 0 ? (figures.invalidClicks / figures.clicks) * 100 : 0);

/** The network at a glance for a period: money, traffic, invalid traffic, the top sites and advertisers. */
export function NetworkOverviewPage() {
  const { t } = useTranslation('operator');
  const period = usePeriod();
  const overview = useQuery({
    queryKey: operatorKeys.overview(period),
    queryFn: () => data(api.GET('/api/admin/overview', { params: { query: { dateFrom: period.from, dateTo: period.to } } })),
  });
  const figures = overview.data;
  const value = (write: (figures: Overview) => string) => (figures ? write(figures) : '…');
  return (
    <>
      <div className="page-head">
        <h1>{t('overview.title')}</h1>
        <div className="pickers">
          <PeriodPicker />
        </div>
      </div>
      {overview.error && <Notice kind="error">{problem(overview.error)}</Notice>}
      <section className="tiles" aria-label={t('overview.figures')}>
        <Tile label={t('overview.spend')} value={value((f) => fineMoney(f.spend))} note={t('overview.spendNote')} />
        <Tile label={t('overview.earnings')} value={value((f) => fineMoney(f.earnings))} note={t('overview.earningsNote')} />
        <Tile label={t('overview.margin')} value={value((f) => fineMoney(f.margin))} note={t('overview.marginNote')} />
        <Tile label={t('overview.served')} value={value((f) => count(f.served))} />
        <Tile label={t('overview.views')} value={value((f) => count(f.views))} />
        <Tile label={t('overview.clicks')} value={value((f) => count(f.clicks))} />
        <Tile
          label={t('overview.invalidClicks')}
          value={value((f) => count(f.invalidClicks))}
          note={figures && t('overview.invalidShare', { share: percent(invalidShare(figures)) })}
        />
      </section>
      <TopTable
        title={t('overview.topSites')}
        what={t('overview.site')}
        rows={(figures?.topSites ?? []).map((row) => ({ ...row, name: row.url, href: `/operator/accounts/${row.userId}` }))}
      />
      <TopTable
        title={t('overview.topAdvertisers')}
        what={t('overview.advertiser')}
        rows={(figures?.topAdvertisers ?? []).map((row) => ({ ...row, href: `/operator/accounts/${row.id}` }))}
      />
    </>
  );
}

function TopTable({
  title,
  what,
  rows,
}: {
  title: string;
  what: string;
  rows: (Figures & { id: number; name: string; href: string })[];
}) {
  const { t } = useTranslation('operator');
  return (
    <section className="section">
      <div className="section-head">
        <h2>{title}</h2>
      </div>
      {rows.length === 0 ? (
        <p className="empty">{t('overview.none')}</p>
      ) : (
        <ScrollRegion label={title}>
          <table className="stack">
            <thead>
              <tr>
                <th scope="col">{what}</th>
                <th scope="col">{t('overview.spend')}</th>
                <th scope="col">{t('overview.earnings')}</th>
                <th scope="col">{t('overview.margin')}</th>
                <th scope="col">{t('overview.clicks')}</th>
                <th scope="col">{t('overview.invalidClicks')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.id}>
                  <th scope="row" className="wrap">
                    <Link href={row.href}>{row.name}</Link>
                  </th>
                  <td data-label={t('overview.spend')}>{fineMoney(row.spend)}</td>
                  <td data-label={t('overview.earnings')}>{fineMoney(row.earnings)}</td>
                  <td data-label={t('overview.margin')}>{fineMoney(row.margin)}</td>
                  <td data-label={t('overview.clicks')}>{count(row.clicks)}</td>
                  <td data-label={t('overview.invalidClicks')}>{count(row.invalidClicks)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </section>
  );
}
