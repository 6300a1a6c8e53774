/**
 * What the rest of publisher/ reads of sites (and other modules, through publisher/index.ts): which
 * of some sites are a publisher's, whether a site exists, the schemas of a site in the API, and how
 * moderation decides on a site and answers it (siteModeration, moderatedSites).
 * Other modules import neither this file nor the repository, only publisher/index.ts
 * (docs/architecture.md, "Modules"; test/source/imports.test.ts).
 */
export { moderatedSites, siteModeration } from './site-moderation.ts';
export { ownSiteIds, siteExists } from './site-repository.ts';
export { AdminWebsiteSchema, StatusCode, WebsiteSchema } from './site-schema.ts';
