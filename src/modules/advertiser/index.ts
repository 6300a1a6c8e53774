/**
 * What other modules and app.ts use of the advertiser's side: which campaigns and ads are an
 * advertiser's (statistics), how moderation decides on campaigns and ads and lists their queues
 * (handed to moderation's routes by app.ts), and the rules' scheduler the server runs.
 */
export { campaignModeration, listCampaignsForModeration, ownCampaignIds } from './campaigns/index.ts';
export { campaignOfOwnOffer, listOffersForModeration, offerModeration } from './offers/index.ts';
export { RuleScheduler } from './rules/rule-scheduler.ts';
