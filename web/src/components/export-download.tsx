import { useState } from 'react';
import { dayLabel } from '../format.ts';
import { usePeriod } from './period-picker.tsx';

const GROUPINGS = {
  advertiser: ['day', 'campaign', 'ad', 'site', 'block', 'device', 'country'],
  publisher: ['day', 'site', 'block', 'device', 'country'],
} as const;
// "By …": the pages these sit on have their own Site and Block filters, which must keep their names.
const GROUPING_NAMES: Record<string, string> = {
  day: 'By day',
  campaign: 'By campaign',
  ad: 'By ad',
  site: 'By site',
  block: 'By block',
  device: 'By device',
  country: 'By country',
};
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
      <h2 id="export-title">Download</h2>
      <p className="hint">
        {dayLabel(period.from)} – {dayLabel(period.to)} (the period above)
        {kind === 'publisher'
          ? ', every site'
          : campaignId === undefined
            ? ', every campaign of the account: group by campaign to tell them apart'
            : ', this campaign'}
        . Money is in currency units (up to 6 decimals, nothing rounded); campaigns, ads, sites and blocks are named beside their
        ids.
      </p>
      <div className="export-options">
        <fieldset>
          <legend>Rows</legend>
          {GROUPINGS[kind].map((grouping) => (
            <label key={grouping} className="check">
              <input
                type="checkbox"
                checked={groups.includes(grouping)}
                onChange={(event) => toggle(grouping, event.target.checked)}
              />
              {GROUPING_NAMES[grouping]}
            </label>
          ))}
          {groupBy === '' && <p className="hint">None ticked: one row of totals.</p>}
        </fieldset>
        <fieldset>
          <legend>Format</legend>
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
          Download statistics
        </a>
        {kind === 'advertiser' && (
          <a className="button" href={`/api/advertiser/clicks/export?${query({})}`} download>
            Download click log
          </a>
        )}
      </div>
    </section>
  );
}
