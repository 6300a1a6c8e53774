import { useQuery } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { api, data, problem } from '../../api.ts';
import { Notice } from '../../components/controls.tsx';
import { InvalidClicksSection } from '../../components/invalid-clicks.tsx';
import type { Period } from '../../components/period-picker.tsx';
import { publisherKeys } from './publisher-keys.ts';

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
    queryKey: publisherKeys.unpaidClicks(period, siteId),
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
    <InvalidClicksSection
      id="unpaid-title"
      rows={body.reasons.map((row) => ({ ...row, amount: row.income }))}
      words={{
        title: t('unpaid.title'),
        lead: t('unpaid.lead'),
        table: t('unpaid.table'),
        reason: t('unpaid.reason'),
        outcome: t('unpaid.outcome'),
        clicks: t('unpaid.clicks'),
        amount: t('unpaid.income'),
        none: t('unpaid.none'),
        outcomeText: (outcome) => t(OUTCOMES[outcome]),
        reasonText: (reason) => reasonText(t, reason),
      }}
    />
  );
}
