import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, problem } from '../../api.ts';
import { Notice } from '../../components/controls.tsx';
import { count, fineMoney } from '../../format.ts';
import { publisherKeys } from './publisher-keys.ts';

const DEVICES = [
  { value: 'desktop', label: 'explain.device.desktop' },
  { value: 'mobile', label: 'explain.device.mobile' },
  { value: 'tablet', label: 'explain.device.tablet' },
] as const;

/** The serving engine's reason codes (docs/adr/0019), as a publisher reads them about others' ads. */
const KEPT_OUT = {
  balance: 'explain.keptOut.balance',
  budget: 'explain.keptOut.budget',
  daily_limit: 'explain.keptOut.dailyLimit',
  geo: 'explain.keptOut.geo',
  device: 'explain.keptOut.device',
  audience: 'explain.keptOut.audience',
  page_repeat: 'explain.keptOut.pageRepeat',
  frequency: 'explain.keptOut.frequency',
  schedule: 'explain.keptOut.schedule',
  filtered: 'explain.keptOut.filtered',
} as const;
const isKnownReason = (reason: string): reason is keyof typeof KEPT_OUT => reason in KEPT_OUT;

/**
 * What would fill a block now for a visitor of no known country on the chosen device, and how
 * many ads in serving are kept out, by reason. Asking does not serve anything, so it counts no view
 * (unlike loading the block's real code).
 */
export function BlockExplanation({ blockId, title }: { blockId: number; title: string }) {
  const { t } = useTranslation('publisher');
  const [device, setDevice] = useState<(typeof DEVICES)[number]['value']>('desktop');
  const group = useId();
  const explanation = useQuery({
    queryKey: publisherKeys.blockExplain(blockId, device),
    queryFn: () => data(api.GET('/api/webmaster/blocks/{id}/explain', { params: { path: { id: blockId }, query: { device } } })),
    retry: false,
  });
  const result = explanation.data;
  return (
    <section className="block-explain" aria-label={t('explain.region', { title })}>
      <span className="preview-widths" role="radiogroup" aria-label={t('explain.device')}>
        {DEVICES.map((entry) => (
          <label key={entry.value}>
            <input
              type="radio"
              name={group}
              value={entry.value}
              checked={device === entry.value}
              onChange={() => setDevice(entry.value)}
            />
            {t(entry.label)}
          </label>
        ))}
      </span>
      {explanation.error && <Notice kind="error">{problem(explanation.error)}</Notice>}
      {explanation.isPending && <p className="loading">{t('explain.asking')}</p>}
      {result && (
        <>
          <p>
            {result.eligible === 0
              ? t('explain.none')
              : t('explain.competing', {
                  ads: t('explain.ads', { count: result.eligible, ads: count(result.eligible) }),
                  places: t('explain.places', { count: result.teaserCount, places: count(result.teaserCount) }),
                })}
          </p>
          {result.teasers.length > 0 && (
            <ol className="would-show">
              {result.teasers.map((teaser) => (
                <li key={teaser.id}>
                  <strong>{teaser.title}</strong>{' '}
                  <span className="sub">
                    {teaser.domain} · {t('explain.score', { score: fineMoney(teaser.score) })}
                  </span>
                </li>
              ))}
            </ol>
          )}
          {result.filtered.length > 0 && (
            <>
              <p>{t('explain.keptOut')}</p>
              <ul className="kept-out">
                {result.filtered.map((entry) => (
                  <li key={entry.reason}>
                    {count(entry.count)}: {isKnownReason(entry.reason) ? t(KEPT_OUT[entry.reason]) : entry.reason}
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
