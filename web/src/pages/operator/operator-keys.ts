import type { Period } from '../../components/period-picker.tsx';

const accounts = ['accounts'] as const;
const ledger = (accountId: number) => ['ledger', accountId] as const;
const payouts = ['payouts'] as const;
const outbox = ['outbox'] as const;
const outboxList = [...outbox, 'list'] as const;
const moderation = ['moderation'] as const;
const invalidTraffic = ['invalid-traffic'] as const;

/**
 * Query keys of the operator's pages (web/src/query-keys.ts says how keys are built): `order` is
 * a list's search and sort (`useListOrder().key`).
 */
export const operatorKeys = {
  overview: (period: Period) => ['network-overview', period.from, period.to] as const,
  accounts: {
    all: () => accounts,
    list: (kind: string | undefined, page: number, order: readonly string[]) => [...accounts, kind, page, ...order] as const,
  },
  /** One account, as its page shows it. */
  account: (id: number) => ['account', id] as const,
  accountTokens: (id: number) => ['account-tokens', id] as const,
  /** An account's ledger, every page of it. */
  ledger: {
    ofAccount: ledger,
    page: (accountId: number, page: number) => [...ledger(accountId), page] as const,
  },
  /** What is owed to publishers and the payouts: recording or changing a payout changes both. */
  payouts: {
    all: () => payouts,
    balances: () => [...payouts, 'balances'] as const,
    list: (status: string | undefined, page: number, order: readonly string[]) =>
      [...payouts, 'list', status, page, ...order] as const,
  },
  outbox: {
    lists: () => outboxList,
    list: (status: string | undefined, page: number) => [...outboxList, status, page] as const,
    message: (id: number) => [...outbox, 'message', id] as const,
    ofAccount: (accountId: number) => [...outbox, 'account', accountId] as const,
  },
  moderation: {
    queue: (queue: 'campaigns' | 'ads' | 'sites') => [...moderation, queue] as const,
    reasons: () => [...moderation, 'reasons'] as const,
    adsTxt: (siteId: number) => [...moderation, 'ads-txt', siteId] as const,
  },
  invalidTraffic: {
    all: () => invalidTraffic,
    shares: (by: string, period: Period) => [...invalidTraffic, 'shares', by, period.from, period.to] as const,
    reviews: () => [...invalidTraffic, 'reviews'] as const,
  },
};
