import { useQuery } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { api, data, problem } from '../../api.ts';
import { Notice } from '../../components/controls.tsx';
import type { Period } from '../../components/period-picker.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { count, money } from '../../format.ts';

/** Each reason in the publisher's words; a reason this page does not know shows as the server wrote it. */
const REASONS = {
  bot: 'unpaid.reason.bot',
  automation: 'unpaid.reason.automation',
  datacenter: 'unpaid.reason.datacenter',
  prefetch: 'unpaid.reason.prefetch',
  foreign_site: 'unpaid.reason.foreign_site',
  no_opportunity: 'unpaid.reason.no_opportunity',
  repeat_click: 'unpaid.reason.repeat_click',
  concentration: 'unpaid.reason.concentration',
  network_mismatch: 'unpaid.reason.network_mismatch',
  click_flood: 'unpaid.reason.click_flood',
  duplicate: 'unpaid.reason.duplicate',
  publisher_fraud: 'unpaid.reason.publisher_fraud',
  manual: 'unpaid.reason.manual',
} as const;

const OUTCOMES = { refused: 'unpaid.outcome.refused', refunded: 'unpaid.outcome.refunded' } as const;

const reasonText = (t: TFunction<'publisher'>, reason: string) =>
  reason in REASONS ? t(REASONS[reason as keyof typeof REASONS]) : reason;

/**
 * Why clicks on the publisher's sites were not paid over the period, by reason: refused on arrival
 * or refunded afterwards with the income taken back. The rules' thresholds are never shown.
 */
export function UnpaidClicks({ period, siteId }: { period: Period; siteId: string }) {
  const { t } = useTranslation('publisher');
  const unpaid = useQuery({
    queryKey: ['publisher-invalid-traffic', period.from, period.to, siteId],
    queryFn: () =>
      data(
        api.GET('/api/webmaster/invalid-traffic', {
          params: { query: { dateFrom: period.from, dateTo: period.to, ...(siteId ? { siteId: Number(siteId) } : {}) } },
        }),
      ),
  });
  if (unpaid.error) return <Notice kind="error">{problem(unpaid.error)}</Notice>;
  const body = unpaid.data;
  if (!body) return null;
  return (
    <section className="card" aria-labelledby="unpaid-title">
      <h2 id="unpaid-title">{t('unpaid.title')}</h2>
      <p className="hint">{t('unpaid.lead')}</p>
      <ScrollRegion label={t('unpaid.table')}>
        <table className="stack">
          <thead>
            <tr>
              <th scope="col">{t('unpaid.reason')}</th>
              <th scope="col">{t('unpaid.outcome')}</th>
              <th scope="col">{t('unpaid.clicks')}</th>
              <th scope="col">{t('unpaid.income')}</th>
            </tr>
          </thead>
          <tbody>
            {body.reasons.map((row) => (
              <tr key={`${row.outcome}-${row.reason}`}>
                <th scope="row">{reasonText(t, row.reason)}</th>
                <td data-label={t('unpaid.outcome')}>{t(OUTCOMES[row.outcome])}</td>
                <td data-label={t('unpaid.clicks')}>{count(row.clicks)}</td>
                <td data-label={t('unpaid.income')}>{row.outcome === 'refused' ? '—' : money(row.income)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {body.reasons.length === 0 && <p className="empty">{t('unpaid.none')}</p>}
      </ScrollRegion>
    </section>
  );
}
