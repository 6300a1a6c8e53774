import type { Db } from '../../../db/database.ts';
import { MODERATION } from '../../moderation/index.ts';

/** SQL of the snapshot: what can serve, and the figures it is ranked and limited by. */

/**
 * Ads that can serve, each with the content moderation approved: its own columns when it is
 * approved, the kept version while an edit of it waits for moderation (docs/moderation.md).
 */
export async function loadServableOffers(db: Db) {
  return (
    db
      .selectFrom('offers as o')
      .innerJoin('campaigns as c', 'c.id', 'o.campaign_id')
      .innerJoin('accounts as a', 'a.id', 'c.advertiser_id')
      .leftJoin('offer_approved_versions as v', 'v.offer_id', 'o.id')
      .select((eb) => [
        'o.id',
        'o.campaign_id',
        eb.fn.coalesce('v.title', 'o.title').as('title'),
        eb.fn.coalesce('v.description', 'o.description').as('description'),
        eb.fn.coalesce('v.price_text', 'o.price_text').as('price_text'),
        eb.fn.coalesce('v.url', 'o.url').as('url'),
        eb.fn.coalesce('v.url_mobile', 'o.url_mobile').as('url_mobile'),
        'o.bid_micros',
        // An approved version's image columns replace the ad's even when null (no such image then).
        eb
          .case()
          .when('v.offer_id', 'is', null)
          .then(eb.ref('o.image_square'))
          .else(eb.ref('v.image_square'))
          .end()
          .as('image_square'),
        eb.case().when('v.offer_id', 'is', null).then(eb.ref('o.image_wide')).else(eb.ref('v.image_wide')).end().as('image_wide'),
        'c.advertiser_id',
        'c.geo',
        'c.is_retarget',
        'c.daily_budget_micros as campaign_daily_budget_micros',
        'c.daily_click_limit',
        'c.frequency_cap',
        'c.schedule_hours',
        'c.time_zone',
        'c.category_id',
        'c.starts_at',
        'c.ends_at',
        'c.total_budget_micros',
        'c.pacing',
        'c.device_targets',
        'c.os_targets',
        'c.browser_targets',
        'c.site_allow',
        'c.site_block',
        'o.sub_category_id',
        'a.balance_micros',
        'a.daily_budget_micros as advertiser_daily_budget_micros',
      ])
      .where('o.active', '=', true)
      .where((eb) => eb.or([eb('o.moderation_status', '=', MODERATION.approved), eb('v.offer_id', 'is not', null)]))
      .where('o.moderation_status', '!=', MODERATION.rejected)
      .where('o.deleted_at', 'is', null)
      .where('c.active', '=', true)
      .where('c.moderation_status', '=', MODERATION.approved)
      .where('c.archived', '=', false)
      .where('a.kind', '=', 'advertiser')
      // A suspended advertiser's ads stop serving; they serve again when it is reinstated.
      .where('a.suspended_at', 'is', null)
      .orderBy('o.id')
      .execute()
  );
}

/** Blocks of active (approved) sites of publishers not suspended, with the publisher who earns from them. */
export async function loadServableBlocks(db: Db) {
  return db
    .selectFrom('blocks as b')
    .innerJoin('sites as s', 's.id', 'b.site_id')
    .innerJoin('accounts as p', 'p.id', 's.publisher_id')
    .select([
      'b.id',
      'b.site_id',
      'b.title',
      'b.teaser_count',
      'b.no_campaign_repeats',
      'b.min_cpc_micros',
      'b.design',
      's.publisher_id',
      's.url',
      's.domains',
      's.refused_categories',
      's.never_personalise',
    ])
    .where('s.status', '=', 1)
    .where('p.suspended_at', 'is', null)
    .execute();
}

/**
 * The spend before `day` of every campaign with a lifetime budget: with today's, what counts
 * against that budget. Campaigns without one are not summed (their history can be long).
 */
export async function loadSpendBefore(db: Db, day: string) {
  return db
    .selectFrom('stats_campaign_daily')
    .select(['campaign_id', (eb) => eb.fn.sum<number>('spend_micros').as('spend')])
    .where('day', '<', day)
    .where('campaign_id', 'in', (eb) => eb.selectFrom('campaigns').select('id').where('total_budget_micros', '>', 0))
    .groupBy('campaign_id')
    .execute();
}

export async function loadSiteCoefficients(db: Db) {
  return db.selectFrom('site_coefficients').select(['campaign_id', 'site_id', 'block_id', 'coef']).execute();
}

export async function loadDeviceCoefficients(db: Db) {
  return db.selectFrom('device_coefficients').select(['campaign_id', 'device', 'coef']).execute();
}

/** Views and clicks per ad since `fromDay`: the basis of each ad's CTR estimate. */
export async function loadOfferTraffic(db: Db, fromDay: string) {
  return db
    .selectFrom('stats_daily')
    .select(['offer_id', (eb) => eb.fn.sum<number>('views').as('views'), (eb) => eb.fn.sum<number>('clicks').as('clicks')])
    .where('day', '>=', fromDay)
    .groupBy('offer_id')
    .execute();
}

/** What each campaign spent and how many clicks it bought on `day`. */
export async function loadCampaignSpend(db: Db, day: string) {
  return db
    .selectFrom('stats_campaign_daily')
    .select(['campaign_id', 'spend_micros as spend', 'clicks'])
    .where('day', '=', day)
    .execute();
}

/** Which advertisers each recent visitor belongs to (retargeting audiences). */
export async function loadAudiences(db: Db, since: Date) {
  return db.selectFrom('audience_members').select(['advertiser_id', 'visitor_id']).where('last_seen_at', '>=', since).execute();
}

export async function loadAdvertiserBalances(db: Db) {
  return db
    .selectFrom('accounts')
    .select(['id', 'balance_micros', 'daily_budget_micros'])
    .where('kind', '=', 'advertiser')
    .execute();
}
