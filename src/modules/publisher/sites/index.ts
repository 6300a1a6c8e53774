/**
 * What other modules read of sites: which of some sites are a publisher's, whether a site exists,
 * the schemas of a site in the API, and how moderation decides on a site (siteModeration).
 * Other modules never import this module's repository (docs/tables.md, test/source/imports.test.ts),
 * and this file imports no other module's service, so depending on it never makes an import cycle.
 */
export { moderatedSites, siteModeration } from './site-moderation.ts';
export { ownSiteIds, siteExists } from './site-repository.ts';
export { AdminWebsiteSchema, StatusCode, WebsiteSchema } from './site-schema.ts';
