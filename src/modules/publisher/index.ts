/**
 * What other modules and app.ts use of the publisher's side: which sites and blocks are a
 * publisher's (statistics, coefficients), and how moderation decides on sites and answers them
 * (handed to moderation's routes by app.ts).
 */
export { blockBelongsToSite, ownBlockSites } from './blocks/index.ts';
export { moderatedSites, ownSiteIds, siteExists, siteModeration } from './sites/index.ts';
