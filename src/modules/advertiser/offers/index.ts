/**
 * What the rest of advertiser/ reads of ads (and other modules, through advertiser/index.ts): the
 * campaigns ads belong to (statistics are keyed by campaign first), whose an ad is, the operators'
 * moderation queue, and how moderation decides on an ad (offerModeration).
 * Other modules import neither this file nor the repository, only advertiser/index.ts
 * (docs/architecture.md, "Modules"; test/source/imports.test.ts).
 */
export { offerModeration } from './offer-moderation.ts';
export { campaignOfOwnOffer, campaignsOfOffers, listOffersForModeration } from './offer-repository.ts';
