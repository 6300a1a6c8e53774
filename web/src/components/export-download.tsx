import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { dayLabel } from '../format.ts';
import { usePeriod } from './period-picker.tsx';

const GROUPINGS = {
  advertiser: ['day', 'campaign', 'ad', 'site', 'block', 'device', 'country'],
  publisher: ['day', 'site', 'block', 'device', 'country'],
} as const;
// "By …": the pages these sit on have their own Site and Block filters, which must keep their names.
const GROUPING_NAMES = {
  day: 'export.byDay',
  campaign: 'export.byCampaign',
  ad: 'export.byAd',
  site: 'export.bySite',
  block: 'export.byBlock',
  device: 'export.byDevice',
  country: 'export.byCountry',
} as const;
const FORMATS = [
  { id: 'csv', label: 'CSV' },
  { id: 'parquet', label: 'Parquet' },
] as const;

/**
 * Files of the page's period from the export API (docs/rules-and-export.md). They are plain links
 * to the same origin: the browser sends the session cookie and writes the streamed answer to disk,
 * so a year of rows never sits in the page's memory, and no token is ever in the browser.
 */
export function ExportDownload({ kind, campaignId }: { kind: 'advertiser' | 'publisher'; campaignId?: number }) {
  const { t } = useTranslation();
  const period = usePeriod();
  const [groups, setGroups] = useState<string[]>(['day']);
  const [format, setFormat] = useState<(typeof FORMATS)[number]['id']>('csv');
  const prefix = kind === 'advertiser' ? '/api/advertiser' : '/api/webmaster';
  // A campaign's page asks for that campaign's rows only, in both files.
  const only: Record<string, string> = campaignId === undefined ? {} : { campaignIds: String(campaignId) };
  const query = (extra: Record<string, string>) =>
    new URLSearchParams({ format, dateFrom: period.from, dateTo: period.to, ...only, ...extra }).toString();
  // The API puts the columns in its own order, whatever order the boxes were ticked in.
  const groupBy = GROUPINGS[kind].filter((grouping) => groups.includes(grouping)).join(',');
  const toggle = (grouping: string, on: boolean) =>
    setGroups((current) => (on ? [...current, grouping] : current.filter((entry) => entry !== grouping)));
  return (
    <section className="card export" aria-labelledby="export-title">
      <h2 id="export-title">{t('export.title')}</h2>
      <p className="hint">
        {t(
          kind === 'publisher'
            ? 'export.scopeSites'
            : campaignId === undefined
              ? 'export.scopeCampaigns'
              : 'export.scopeCampaign',
          { from: dayLabel(period.from), to: dayLabel(period.to) },
        )}{' '}
        {t('export.money')}
      </p>
      <div className="export-options">
        <fieldset>
          <legend>{t('export.rows')}</legend>
          {GROUPINGS[kind].map((grouping) => (
            <label key={grouping} className="check">
              <input
                type="checkbox"
                checked={groups.includes(grouping)}
                onChange={(event) => toggle(grouping, event.target.checked)}
              />
              {t(GROUPING_NAMES[grouping])}
            </label>
          ))}
          {groupBy === '' && <p className="hint">{t('export.totalsOnly')}</p>}
        </fieldset>
        <fieldset>
          <legend>{t('export.format')}</legend>
          {FORMATS.map((entry) => (
            <label key={entry.id} className="check">
              <input
                type="radio"
                name={`export-format-${kind}`}
                value={entry.id}
                checked={format === entry.id}
                onChange={() => setFormat(entry.id)}
              />
              {entry.label}
            </label>
          ))}
        </fieldset>
      </div>
      <div className="actions">
        <a className="button primary" href={`${prefix}/statistics/export?${query({ groupBy })}`} download>
          {t('export.statistics')}
        </a>
        {kind === 'advertiser' && (
          <a className="button" href={`/api/advertiser/clicks/export?${query({})}`} download>
            {t('export.clickLog')}
          </a>
        )}
      </div>
    </section>
  );
}
