import type { AdEntry, BlockEntry, Snapshot } from '../snapshot/snapshot.ts';
import type { Winner } from './auction.ts';
import type { ImpressionFilters } from './eligibility.ts';
import type { FrequencyStore } from './frequency.ts';
import type { Impression } from './judgement.ts';
import type { PageViewStore } from './page-views.ts';
import { selectTeasers } from './select-teasers.ts';

/** A claim on a page that collides this many times in a row (other blocks racing) serves nothing. */
const PAGE_CLAIM_ATTEMPTS = 3;

export interface ViewerFiltersOptions {
  /** What each page view showed. */
  pages: PageViewStore;
  /** Views per visitor, campaign and day, for frequency caps. */
  frequency: FrequencyStore;
  onError(error: unknown, what: string): void;
}

/**
 * The per-request filters of a viewer (docs/adr/0033): what the page showed, the visitor's views
 * today, the hour. When a store fails (Redis down) the impression is served without that filter
 * rather than not at all.
 */
export class ViewerFilters {
  private readonly options: ViewerFiltersOptions;

  constructor(options: ViewerFiltersOptions) {
    this.options = options;
  }

  /**
   * Reads the page's and the visitor's filters for an impression of `block`. Without a page id or
   * a capped campaign's visitor nothing is read, and the filters come back at once, not through a
   * promise: most impressions wait on no store.
   */
  read(
    block: BlockEntry,
    pageId: string | undefined,
    visitor: string | undefined,
    now: number,
    day: string,
  ): ImpressionFilters | Promise<ImpressionFilters> {
    const campaignsUnique = block.campaignsUnique ?? false;
    if (pageId === undefined && visitor === undefined) {
      return { nowMs: now, page: undefined, campaignsUnique, viewsToday: undefined };
    }
    return Promise.all([
      pageId === undefined ? undefined : this.options.pages.shown(pageId).catch(this.failOpen('reading the page')),
      visitor === undefined ? undefined : this.options.frequency.viewsToday(visitor, day).catch(this.failOpen('reading views')),
    ]).then(([page, viewsToday]): ImpressionFilters => ({ nowMs: now, page, campaignsUnique, viewsToday }));
  }

  /**
   * Records the winners on the page; when another block of the page claimed one of them first
   * (concurrent requests, perhaps on another instance), selects again without what it showed.
   */
  async claimOnPage(
    snapshotNow: () => Snapshot,
    pageId: string,
    impression: Impression,
    winners: Winner<AdEntry>[],
  ): Promise<Winner<AdEntry>[]> {
    const filters = impression.filters;
    let selected = winners;
    for (let attempt = 1; filters !== undefined && selected.length > 0; attempt += 1) {
      const claim = {
        ads: selected.map(({ ad }) => ad.offerId),
        campaigns: selected.map(({ ad }) => ad.campaign.id),
        campaignsUnique: filters.campaignsUnique,
      };
      const conflict = await this.options.pages.claim(pageId, claim).catch(this.failOpen('claiming on the page'));
      if (conflict === undefined) return selected;
      if (attempt === PAGE_CLAIM_ATTEMPTS) return [];
      const page = await this.options.pages.shown(pageId).catch(this.failOpen('reading the page'));
      filters.page = page;
      selected = selectTeasers(snapshotNow(), impression);
    }
    return selected;
  }

  /** A store that fails is reported and treated as empty, so serving goes on without its filter. */
  private failOpen(what: string): (error: unknown) => undefined {
    return (error) => {
      this.options.onError(error, what);
      return undefined;
    };
  }
}
