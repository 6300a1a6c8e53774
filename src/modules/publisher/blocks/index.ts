/**
 * What the rest of publisher/ reads of blocks (and other modules, through publisher/index.ts): a
 * site's blocks and their number, and which of some blocks are a publisher's (with their sites) or
 * belong to a site.
 * Other modules import neither this file nor the repository, only publisher/index.ts
 * (docs/architecture.md, "Modules"; test/source/imports.test.ts).
 */
export { blockBelongsToSite, countBlocksBySite, listBlocksOfSite, ownBlockSites } from './block-repository.ts';
