import type { operations } from '@nativa/sdk';
import type catalogue from '../../../i18n/locales/en/shared.json';

export type Endpoint = operations['getAdvertiserWebhook']['responses'][200]['content']['application/json'];
export type EventType = NonNullable<
  operations['createAdvertiserWebhook']['requestBody']
>['content']['application/json']['events'][number];
export type WebhookKind = 'advertiser' | 'publisher' | 'operator';

/** The API's entry point of each kind of account (docs/webhooks.md). */
export const PREFIX = { advertiser: '/api/advertiser', publisher: '/api/webmaster', operator: '/api/admin' } as const;

/** The events each kind may subscribe to, as the API allows them, with what each one tells (`shared` keys). */
export const EVENTS: Record<WebhookKind, readonly { type: EventType; meaning: keyof typeof catalogue }[]> = {
  advertiser: [
    { type: 'balance.below_threshold', meaning: 'webhooks.event.balanceBelowThreshold' },
    { type: 'campaign.budget_exhausted', meaning: 'webhooks.event.campaignBudgetExhausted' },
    { type: 'campaign.moderated', meaning: 'webhooks.event.campaignModerated' },
    { type: 'ad.moderated', meaning: 'webhooks.event.adModerated' },
    { type: 'client.created', meaning: 'webhooks.event.clientCreated' },
    { type: 'clicks.refunded', meaning: 'webhooks.event.clicksRefunded' },
  ],
  publisher: [
    { type: 'balance.below_threshold', meaning: 'webhooks.event.balanceBelowThreshold' },
    { type: 'site.moderated', meaning: 'webhooks.event.siteModerated' },
    { type: 'payout.created', meaning: 'webhooks.event.payoutCreated' },
    { type: 'payout.paid', meaning: 'webhooks.event.payoutPaid' },
    { type: 'payout.cancelled', meaning: 'webhooks.event.payoutCancelled' },
    { type: 'clicks.refunded', meaning: 'webhooks.event.clicksRefundedPublisher' },
    { type: 'traffic.site_flagged', meaning: 'webhooks.event.siteFlagged' },
  ],
  // An operator's endpoints receive these for every account of the platform.
  operator: [
    { type: 'balance.below_threshold', meaning: 'webhooks.event.balanceBelowThresholdOperator' },
    { type: 'campaign.budget_exhausted', meaning: 'webhooks.event.campaignBudgetExhausted' },
    { type: 'campaign.moderated', meaning: 'webhooks.event.campaignModerated' },
    { type: 'ad.moderated', meaning: 'webhooks.event.adModerated' },
    { type: 'site.moderated', meaning: 'webhooks.event.siteModerated' },
    { type: 'payout.created', meaning: 'webhooks.event.payoutCreated' },
    { type: 'payout.paid', meaning: 'webhooks.event.payoutPaid' },
    { type: 'payout.cancelled', meaning: 'webhooks.event.payoutCancelled' },
    { type: 'client.created', meaning: 'webhooks.event.clientCreatedOperator' },
    { type: 'clicks.refunded', meaning: 'webhooks.event.clicksRefundedOperator' },
    { type: 'traffic.site_flagged', meaning: 'webhooks.event.siteFlaggedOperator' },
  ],
};
