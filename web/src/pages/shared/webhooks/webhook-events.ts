import type { operations } from '@nativa/sdk';

export type Endpoint = operations['getAdvertiserWebhook']['responses'][200]['content']['application/json'];
export type EventType = NonNullable<
  operations['createAdvertiserWebhook']['requestBody']
>['content']['application/json']['events'][number];
export type WebhookKind = 'advertiser' | 'publisher' | 'operator';

/** The API's entry point of each kind of account (docs/webhooks.md). */
export const PREFIX = { advertiser: '/api/advertiser', publisher: '/api/webmaster', operator: '/api/admin' } as const;

/** The events each kind may subscribe to, as the API allows them, with what each one tells. */
export const EVENTS: Record<WebhookKind, { type: EventType; meaning: string }[]> = {
  advertiser: [
    { type: 'balance.below_threshold', meaning: 'your balance fell below the threshold' },
    { type: 'campaign.budget_exhausted', meaning: 'a campaign reached a daily limit' },
    { type: 'campaign.moderated', meaning: 'a campaign was approved or rejected' },
    { type: 'ad.moderated', meaning: 'an ad was approved or rejected' },
    { type: 'client.created', meaning: 'a client account was created' },
    { type: 'clicks.refunded', meaning: 'clicks were refunded to you' },
  ],
  publisher: [
    { type: 'balance.below_threshold', meaning: 'your balance fell below the threshold' },
    { type: 'site.moderated', meaning: 'a site was approved, banned or not confirmed' },
    { type: 'payout.created', meaning: 'a payout was recorded' },
    { type: 'payout.paid', meaning: 'a payout was paid' },
    { type: 'payout.cancelled', meaning: 'a payout was cancelled' },
    { type: 'clicks.refunded', meaning: 'refunded clicks were taken back from your income' },
  ],
  // An operator's endpoints receive these for every account of the platform.
  operator: [
    { type: 'balance.below_threshold', meaning: 'the operator account’s own balance fell below the threshold' },
    { type: 'campaign.budget_exhausted', meaning: 'a campaign reached a daily limit' },
    { type: 'campaign.moderated', meaning: 'a campaign was approved or rejected' },
    { type: 'ad.moderated', meaning: 'an ad was approved or rejected' },
    { type: 'site.moderated', meaning: 'a site was approved, banned or not confirmed' },
    { type: 'payout.created', meaning: 'a payout was recorded' },
    { type: 'payout.paid', meaning: 'a payout was paid' },
    { type: 'payout.cancelled', meaning: 'a payout was cancelled' },
    { type: 'client.created', meaning: 'an advertiser created a client account' },
    { type: 'clicks.refunded', meaning: 'clicks were refunded (one event per advertiser and publisher)' },
  ],
};
