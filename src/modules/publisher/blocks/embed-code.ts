import { type BlockDesign, blockHeight } from './block-design.ts';

/**
 * The embed code (`Block.bn`) a publisher pastes into a page: a placeholder element the loader
 * script finds by its `data-nativa-block` attribute, and the loader itself. This is the contract
 * with the serving engine, which serves `GET /api/serve/loader.js` (public) and the teasers of a
 * block at `GET /api/serve/blocks/{blockId}/teasers`; see docs/publisher.md.
 */
export function embedCode(baseUrl: string, blockId: number, design?: BlockDesign): string {
  const base = escapeAttribute(baseUrl.replace(/\/+$/, ''));
  // A designed block reserves its height, so the teasers arriving later move nothing on the page.
  const reserve = design === undefined ? '' : ` style="min-height:${blockHeight(design)}px"`;
  return `<div data-nativa-block="${blockId}"${reserve}></div><script async src="${base}/api/serve/loader.js"></script>`;
}

/** The base URL comes from PUBLIC_URL or the request's Host header; neither may break out of the attribute. */
function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
