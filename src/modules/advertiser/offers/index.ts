/**
 * What other modules read of ads: the campaigns ads belong to (statistics are keyed by campaign
 * first), and whose an ad is.
 * Other modules never import this module's repository (docs/tables.md, test/source/imports.test.ts),
 * and this file imports no other module's service, so depending on it never makes an import cycle.
 */
export { campaignOfOwnOffer, campaignsOfOffers } from './offer-repository.ts';
