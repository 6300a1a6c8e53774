import type { Db } from '../../db/database.ts';

/**
 * Which campaigns and ads are an advertiser's: the modules owning them answer, handed in by app.ts
 * (they show figures beside their objects, so statistics imports none of them).
 */
export interface AdvertiserObjects {
  /** The advertiser's campaigns among `ids` (all of them without), by id. */
  ownCampaignIds(db: Db, advertiserId: number, ids?: readonly number[]): Promise<number[]>;
  /** The campaign of the advertiser's ad, if it is the advertiser's. */
  campaignOfOwnOffer(db: Db, advertiserId: number, offerId: number): Promise<number | undefined>;
}

/** Which sites and blocks are a publisher's: the sites and blocks modules answer, handed in by app.ts. */
export interface PublisherObjects {
  ownSiteIds(db: Db, publisherId: number, siteIds: readonly number[]): Promise<Set<number>>;
  /** The publisher's blocks among `blockIds`, each with its site. */
  ownBlockSites(db: Db, publisherId: number, blockIds: readonly number[]): Promise<Map<number, number>>;
}
