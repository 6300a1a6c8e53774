/**
 * What other modules use of webhooks: events emitted in the transaction of their cause (balances,
 * settlements), the guard of outgoing addresses (ads.txt), and the deliverer the server runs.
 */
export { guardedLookup, urlRefusal } from './address-guard.ts';
export { emitBalanceDrops, emitSettlementEvents, emitWebhookEvent } from './emit.ts';
export type { WebhookEventType } from './event-types.ts';
export { WebhookDeliverer } from './webhook-deliverer.ts';
