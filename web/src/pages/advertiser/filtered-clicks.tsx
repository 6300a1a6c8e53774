import { useQuery } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { api, data, problem } from '../../api.ts';
import { Notice } from '../../components/controls.tsx';
import { InvalidClicksSection } from '../../components/invalid-clicks.tsx';
import type { Period } from '../../components/period-picker.tsx';
import { count, money } from '../../format.ts';
import { advertiserKeys } from './advertiser-keys.ts';

/** Each reason in the advertiser's words; a reason this page does not know shows as the server wrote it. */
const REASONS = {
  bot: 'filtered.reason.bot',
  automation: 'filtered.reason.automation',
  datacenter: 'filtered.reason.datacenter',
  prefetch: 'filtered.reason.prefetch',
  foreign_site: 'filtered.reason.foreign_site',
  no_opportunity: 'filtered.reason.no_opportunity',
  repeat_click: 'filtered.reason.repeat_click',
  concentration: 'filtered.reason.concentration',
  network_mismatch: 'filtered.reason.network_mismatch',
  click_flood: 'filtered.reason.click_flood',
  duplicate: 'filtered.reason.duplicate',
  publisher_fraud: 'filtered.reason.publisher_fraud',
  manual: 'filtered.reason.manual',
} as const;

const OUTCOMES = { refused: 'filtered.outcome.refused', refunded: 'filtered.outcome.refunded' } as const;

const reasonText = (t: TFunction<'advertiser'>, reason: string) =>
  reason in REASONS ? t(REASONS[reason as keyof typeof REASONS]) : reason;

/**
 * What was filtered out of a campaign's clicks over the period, by reason: refused on arrival
 * (never charged) or refunded afterwards (the money given back).
 */
export function FilteredClicks({ period, campaignId }: { period: Period; campaignId: number }) {
  const { t } = useTranslation('advertiser');
  const filtered = useQuery({
    queryKey: advertiserKeys.filteredClicks(campaignId, period),
    queryFn: () =>
      data(
        api.GET('/api/advertiser/invalid-traffic', {
          params: { query: { dateFrom: period.from, dateTo: period.to, campaignId } },
        }),
      ),
  });
  if (filtered.error) return <Notice kind="error">{problem(filtered.error)}</Notice>;
  const body = filtered.data;
  if (!body) return null;
  return (
    <InvalidClicksSection
      id="filtered-title"
      rows={body.reasons}
      words={{
        title: t('filtered.title'),
        lead: t('filtered.lead', {
          refused: count(body.refusedClicks),
          refunded: count(body.refundedClicks),
          amount: money(body.refundedSpend),
        }),
        table: t('filtered.table'),
        reason: t('filtered.reason'),
        outcome: t('filtered.outcome'),
        clicks: t('filtered.clicks'),
        amount: t('filtered.amount'),
        none: t('filtered.none'),
        outcomeText: (outcome) => t(OUTCOMES[outcome]),
        reasonText: (reason) => reasonText(t, reason),
      }}
    />
  );
}
