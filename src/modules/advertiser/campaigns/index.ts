/**
 * What other modules read of campaigns: a campaign of its advertiser, which campaigns are an
 * advertiser's (for filters that must hold only the caller's own, e.g. statistics and exports),
 * the operators' moderation queue, and how moderation decides on a campaign (campaignModeration).
 * Other modules never import this module's repository (docs/tables.md, test/source/imports.test.ts),
 * and this file imports no other module's service, so depending on it never makes an import cycle.
 */
export { campaignModeration } from './campaign-moderation.ts';
export { findCampaign, listCampaignsForModeration, ownCampaignIds } from './campaign-repository.ts';
