import type { AccountKind } from '../../db/schema.ts';

/** Every event an endpoint may subscribe to (docs/webhooks.md describes each one's `data`). */
export const WEBHOOK_EVENT_TYPES = [
  'balance.below_threshold',
  'campaign.budget_exhausted',
  'campaign.moderated',
  'ad.moderated',
  'site.moderated',
  'payout.created',
  'payout.paid',
  'payout.cancelled',
  'client.created',
  'clicks.refunded',
  'traffic.site_flagged',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The event a test delivery carries; it goes to the one endpoint it was asked for, subscribed or not. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** Which events concern which kind of account; an operator's endpoints receive every account's events. */
export const EVENT_TYPES_BY_KIND: Record<AccountKind, readonly WebhookEventType[]> = {
  advertiser: [
    'balance.below_threshold',
    'campaign.budget_exhausted',
    'campaign.moderated',
    'ad.moderated',
    'client.created',
    'clicks.refunded',
  ],
  publisher: [
    'balance.below_threshold',
    'site.moderated',
    'payout.created',
    'payout.paid',
    'payout.cancelled',
    'clicks.refunded',
    'traffic.site_flagged',
  ],
  operator: WEBHOOK_EVENT_TYPES,
};
