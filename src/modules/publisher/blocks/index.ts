/**
 * What other modules read of blocks: a site's blocks and their number, and which of some blocks
 * are a publisher's (with their sites) or belong to a site.
 * Other modules never import this module's repository (docs/tables.md, test/source/imports.test.ts),
 * and this file imports no other module's service, so depending on it never makes an import cycle.
 */
export { blockBelongsToSite, countBlocksBySite, listBlocksOfSite, ownBlockSites } from './block-repository.ts';
