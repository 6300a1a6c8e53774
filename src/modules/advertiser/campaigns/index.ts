/**
 * What the rest of advertiser/ reads of campaigns (and other modules, through advertiser/index.ts):
 * a campaign of its advertiser, which campaigns are an advertiser's (for filters that must hold
 * only the caller's own, e.g. statistics and exports), the operators' moderation queue, and how
 * moderation decides on a campaign (campaignModeration).
 * Other modules import neither this file nor the repository, only advertiser/index.ts
 * (docs/architecture.md, "Modules"; test/source/imports.test.ts).
 */
export { campaignModeration } from './campaign-moderation.ts';
export { findCampaign, listCampaignsForModeration, ownCampaignIds } from './campaign-repository.ts';
