import type { Period } from '../../components/period-picker.tsx';

const campaigns = ['campaigns'] as const;
const campaign = (id: number) => ['campaign', id] as const;
const traffic = ['traffic'] as const;
const clients = ['clients'] as const;
const client = (id: number) => ['client', id] as const;
const ruleChanges = (campaignId: number) => ['rule-changes', campaignId] as const;

/**
 * Query keys of the advertiser's pages (web/src/query-keys.ts says how keys are built): `order`
 * is a list's search and sort (`useListOrder().key`), `goal` the conversion goal figures count.
 */
export const advertiserKeys = {
  statistics: {
    daily: (period: Period, campaignIds: string, goal: number) =>
      ['statistics', 'daily', period.from, period.to, campaignIds, goal] as const,
    total: (period: Period, campaignIds: string, goal: number) =>
      ['statistics', 'total', period.from, period.to, campaignIds, goal] as const,
  },
  campaigns: {
    all: () => campaigns,
    list: (period: Period, archived: boolean, type: string, goal: number, order: readonly string[]) =>
      [...campaigns, period.from, period.to, archived, type, goal, ...order] as const,
  },
  /** One campaign: its title (for the tabs), its figures and its ads. */
  campaign: {
    all: campaign,
    title: (id: number) => [...campaign(id), 'title'] as const,
    figures: (id: number, period: Period, goal: number) => [...campaign(id), period.from, period.to, goal] as const,
    ads: (id: number, period: Period, goal: number, order: readonly string[]) =>
      [...campaign(id), 'ads', period.from, period.to, goal, ...order] as const,
  },
  /** A campaign's sites and devices with their coefficients. */
  traffic: {
    all: () => traffic,
    ofCampaign: (id: number) => [...traffic, id] as const,
    sites: (id: number, period: Period, goal: number, page: number) =>
      [...traffic, id, 'sites', period.from, period.to, goal, page] as const,
    devices: (id: number, period: Period, goal: number) => [...traffic, id, 'devices', period.from, period.to, goal] as const,
  },
  explain: (id: number, visitor: { block: string; device: string; country: string; os: string; browser: string }) =>
    ['explain', id, visitor.block, visitor.device, visitor.country, visitor.os, visitor.browser] as const,
  filteredClicks: (campaignId: number, period: Period) =>
    ['advertiser-invalid-traffic', campaignId, period.from, period.to] as const,
  rules: (campaignId: number) => ['rules', campaignId] as const,
  /** What a campaign's rules changed, and the rules (deleted ones too) the history names. */
  ruleChanges: {
    ofCampaign: ruleChanges,
    page: (campaignId: number, ruleId: string, page: number) => [...ruleChanges(campaignId), ruleId, page] as const,
    rules: (campaignId: number) => [...ruleChanges(campaignId), 'rules'] as const,
  },
  clients: {
    all: () => clients,
    list: (order: readonly string[]) => [...clients, ...order] as const,
  },
  client: {
    all: client,
    figures: (id: number, period: Period, goal: number) => [...client(id), period.from, period.to, goal] as const,
  },
  ledger: (from: string, to: string, page: number) => ['ledger', from, to, page] as const,
  categories: () => ['categories'] as const,
  postbackKey: () => ['postback-key'] as const,
};
