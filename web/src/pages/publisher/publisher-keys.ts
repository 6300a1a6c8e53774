import type { Period } from '../../components/period-picker.tsx';

const sites = ['sites'] as const;

/** Query keys of the publisher's pages (web/src/query-keys.ts says how keys are built). */
export const publisherKeys = {
  statistics: (period: Period, siteIds: string, blockIds: string) =>
    ['publisher-statistics', period.from, period.to, siteIds, blockIds] as const,
  /** Sites with their blocks: whatever changes a site or a block refreshes them all. */
  sites: {
    all: () => sites,
    list: (period: Period | undefined, blocks: boolean, q: string, sort: string) =>
      [...sites, period?.from ?? '', period?.to ?? '', blocks, q, sort] as const,
    one: (id: number, period: Period) => [...sites, 'one', id, period.from, period.to] as const,
    privacy: (id: number) => [...sites, 'privacy', id] as const,
  },
  siteCategories: () => ['site-categories'] as const,
  productCategories: () => ['product-categories'] as const,
  blockExplain: (blockId: number, device: string) => ['block-explain', blockId, device] as const,
  unpaidClicks: (period: Period, siteId: string) => ['publisher-invalid-traffic', period.from, period.to, siteId] as const,
  payouts: (q: string, sort: string) => ['payouts', q, sort] as const,
  payoutSummary: () => ['payout-summary'] as const,
};
