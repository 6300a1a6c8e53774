/**
 * What other modules read of ads: the campaigns ads belong to (statistics are keyed by campaign
 * first), whose an ad is, the operators' moderation queue, and how moderation decides on an ad
 * (offerModeration).
 * Other modules never import this module's repository (docs/tables.md, test/source/imports.test.ts),
 * and this file imports no other module's service, so depending on it never makes an import cycle.
 */
export { offerModeration } from './offer-moderation.ts';
export { campaignOfOwnOffer, campaignsOfOffers, listOffersForModeration } from './offer-repository.ts';
