import { Trans, useTranslation } from 'react-i18next';
import { isNotFound, problem } from '../../api.ts';
import { DailyChart } from '../../components/chart.tsx';
import { CompareToggle, previousPeriod, useComparing } from '../../components/compare.tsx';
import { Notice } from '../../components/controls.tsx';
import { ExportDownload } from '../../components/export-download.tsx';
import { FigureCells, FigureHeads, PUBLISHER_DAY_FIGURES } from '../../components/figures.tsx';
import { PeriodPicker, usePeriod } from '../../components/period-picker.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { dayLabel } from '../../format.ts';
import { Link, setQuery, useLocation } from '../../router.tsx';
import { perThousand, usePublisherStatistics, useSites } from './publisher-data.ts';
import { IncomeTiles, useIncomeSeries } from './publisher-ui.tsx';
import { UnpaidClicks } from './unpaid-clicks.tsx';

const ID = /^\d+$/;

/** A day's (or the period's) row of the table: served and viewable views, each with its RPM. */
function dayFigures(row: { served: number; views: number; clicks: number; ctr: number; income: number }) {
  return {
    ...row,
    viewableViews: row.views,
    rpmServed: perThousand(row.income, row.served),
    rpmViewable: perThousand(row.income, row.views),
  };
}

export function PublisherStatisticsPage() {
  const { t } = useTranslation('publisher');
  const period = usePeriod();
  const { query } = useLocation();
  const siteId = ID.test(query.get('site') ?? '') ? (query.get('site') ?? '') : '';
  const blockId = ID.test(query.get('block') ?? '') ? (query.get('block') ?? '') : '';
  const sites = useSites(undefined, { blocks: true });
  const statistics = usePublisherStatistics(period, { siteIds: siteId, blockIds: blockId });
  // The previous period of the same length, while comparing (the same query as the page's otherwise).
  const comparing = useComparing();
  const before = usePublisherStatistics(comparing ? previousPeriod(period) : period, { siteIds: siteId, blockIds: blockId });
  const previous = comparing ? before.data : undefined;
  const series = useIncomeSeries(statistics.data?.daily, previous?.daily);
  const chosenSites = (sites.data ?? []).filter((site) => siteId === '' || String(site.id) === siteId);
  const blocks = chosenSites.flatMap((site) =>
    (site.blocks ?? []).map((block) => ({ ...block, site: site.url.replace(/^https?:\/\//, '') })),
  );
  const daily = statistics.data?.daily;
  const totals = statistics.data?.totals;
  const notFound = isNotFound(statistics.error);
  return (
    <>
      <div className="page-head">
        <h1>{t('statistics.title')}</h1>
        <div className="pickers">
          <PeriodPicker />
          <CompareToggle />
        </div>
      </div>
      <div className="toolbar">
        <div className="stacked">
          <label htmlFor="filter-site">{t('sites.column.site')}</label>
          <select id="filter-site" value={siteId} onChange={(event) => setQuery({ site: event.target.value, block: '' })}>
            <option value="">{t('statistics.allSites')}</option>
            {(sites.data ?? []).map((site) => (
              <option key={site.id} value={site.id}>
                {site.url.replace(/^https?:\/\//, '')}
              </option>
            ))}
          </select>
        </div>
        <div className="stacked">
          <label htmlFor="filter-block">{t('statistics.block')}</label>
          <select id="filter-block" value={blockId} onChange={(event) => setQuery({ block: event.target.value })}>
            <option value="">{t('statistics.allBlocks')}</option>
            {blocks.map((block) => (
              <option key={block.id} value={block.id}>
                {siteId ? block.title : `${block.title} (${block.site})`}
              </option>
            ))}
          </select>
        </div>
      </div>
      {notFound ? (
        <Notice kind="error">
          <Trans
            t={t}
            i18nKey={
              siteId && blockId ? 'statistics.notFound.both' : siteId ? 'statistics.notFound.site' : 'statistics.notFound.block'
            }
            values={{ site: siteId, block: blockId }}
            components={{ all: <Link href="/publisher/statistics" /> }}
          />
        </Notice>
      ) : (
        statistics.error && <Notice kind="error">{problem(statistics.error)}</Notice>
      )}
      {totals && <IncomeTiles label={t('statistics.totals')} figures={totals} previous={previous?.totals} />}
      {daily && totals && (
        <section className="card" aria-labelledby="daily-title">
          <h2 id="daily-title">{t('statistics.perDay')}</h2>
          <DailyChart days={daily.days} series={series} label={t('statistics.chart')} />
          <ScrollRegion label={t('statistics.figuresPerDay')}>
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('statistics.day')}</th>
                  <FigureHeads figures={PUBLISHER_DAY_FIGURES} />
                </tr>
              </thead>
              <tbody>
                {daily.days
                  .map((day, index) => ({
                    day,
                    served: daily.served[index] ?? 0,
                    views: daily.views[index] ?? 0,
                    clicks: daily.clicks[index] ?? 0,
                    income: daily.income[index] ?? 0,
                  }))
                  .filter((row) => row.served + row.views + row.clicks > 0)
                  .reverse()
                  .map((row) => (
                    <tr key={row.day}>
                      <th scope="row">{dayLabel(row.day)}</th>
                      <FigureCells
                        figures={PUBLISHER_DAY_FIGURES}
                        row={dayFigures({ ...row, ctr: row.views === 0 ? 0 : (row.clicks / row.views) * 100 })}
                      />
                    </tr>
                  ))}
              </tbody>
              {totals.served + totals.views + totals.clicks > 0 && (
                <tfoot>
                  <tr>
                    <th scope="row">{t('statistics.period')}</th>
                    <FigureCells figures={PUBLISHER_DAY_FIGURES} row={dayFigures(totals)} />
                  </tr>
                </tfoot>
              )}
            </table>
            {totals.served + totals.views + totals.clicks === 0 && <p className="empty">{t('statistics.empty')}</p>}
          </ScrollRegion>
          <p className="hint">{t('statistics.figuresMeaning')}</p>
        </section>
      )}
      {!notFound && <UnpaidClicks period={period} siteId={siteId} />}
      <ExportDownload kind="publisher" />
    </>
  );
}
