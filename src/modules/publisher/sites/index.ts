/**
 * What other modules read of sites: which of some sites are a publisher's, and whether a site exists.
 * Other modules never import this module's repository (docs/tables.md, test/source/imports.test.ts),
 * and this file imports no other module's service, so depending on it never makes an import cycle.
 */
export { ownSiteIds, siteExists } from './site-repository.ts';
