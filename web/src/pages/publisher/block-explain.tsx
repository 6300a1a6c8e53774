import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, data, problem } from '../../api.ts';
import { Notice } from '../../components/controls.tsx';
import { count, fineMoney } from '../../format.ts';

const DEVICES = [
  { value: 'desktop', label: 'Desktop' },
  { value: 'mobile', label: 'Phone' },
  { value: 'tablet', label: 'Tablet' },
] as const;

/** The serving engine's reason codes (docs/adr/0019), as a publisher reads them about others' ads. */
const KEPT_OUT: Record<string, string> = {
  balance: 'the advertiser’s balance is spent',
  budget: 'the campaign’s daily budget is spent',
  daily_limit: 'the campaign’s daily click limit is reached',
  geo: 'they target other countries',
  audience: 'retargeting: the visitor is not in their audience',
  page_repeat: 'already shown on this page',
  frequency: 'the visitor reached their frequency cap',
  schedule: 'outside their campaign’s hours',
  filtered: 'another filter of the request',
};

/**
 * What would fill a block now for a visitor of no known country on the chosen device, and how
 * many ads in serving are kept out, by reason. Asking does not serve anything, so it counts no view
 * (unlike loading the block's real code).
 */
export function BlockExplanation({ blockId, title }: { blockId: number; title: string }) {
  const [device, setDevice] = useState<(typeof DEVICES)[number]['value']>('desktop');
  const group = useId();
  const explanation = useQuery({
    queryKey: ['block-explain', blockId, device],
    queryFn: () => data(api.GET('/api/webmaster/blocks/{id}/explain', { params: { path: { id: blockId }, query: { device } } })),
    retry: false,
  });
  const result = explanation.data;
  return (
    <section className="block-explain" aria-label={`What would show in ${title} now`}>
      <span className="preview-widths" role="radiogroup" aria-label="Device of the visitor">
        {DEVICES.map((entry) => (
          <label key={entry.value}>
            <input
              type="radio"
              name={group}
              value={entry.value}
              checked={device === entry.value}
              onChange={() => setDevice(entry.value)}
            />
            {entry.label}
          </label>
        ))}
      </span>
      {explanation.error && <Notice kind="error">{problem(explanation.error)}</Notice>}
      {explanation.isPending && <p className="loading">Asking serving…</p>}
      {result && (
        <>
          <p>
            {result.eligible === 0
              ? 'No ad competes for this visitor now: the block would stay empty.'
              : `${count(result.eligible)} ${result.eligible === 1 ? 'ad competes' : 'ads compete'} for ${result.teaserCount === 1 ? 'its one place' : `its ${result.teaserCount} places`}; ads are ranked by what they would earn per thousand views.`}
          </p>
          {result.teasers.length > 0 && (
            <ol className="would-show">
              {result.teasers.map((teaser) => (
                <li key={teaser.id}>
                  <strong>{teaser.title}</strong>{' '}
                  <span className="sub">
                    {teaser.domain} · {fineMoney(teaser.score)} per 1,000 views
                  </span>
                </li>
              ))}
            </ol>
          )}
          {result.filtered.length > 0 && (
            <>
              <p>Ads in serving that would not show here, and why:</p>
              <ul className="kept-out">
                {result.filtered.map((entry) => (
                  <li key={entry.reason}>
                    {count(entry.count)}: {KEPT_OUT[entry.reason] ?? entry.reason}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </section>
  );
}
