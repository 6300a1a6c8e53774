import { notFound } from '../../../errors.ts';
import type { ModeratedKind, ModeratedSites } from '../../moderation/index.ts';
import { findOwnSite, findSiteStatusForUpdate, updateSiteStatus } from './site-repository.ts';
import { AdminWebsiteSchema, SITE_STATUS, type SiteRow, StatusCode, siteStatusName, WebsiteSchema } from './site-schema.ts';
import { LIFETIME, presentAdminSites, presentSite } from './site-service.ts';

/** What a site's owner is told a status means: a ban is a rejection, an active site an approved one. */
const SITE_OUTCOMES = { moderation: 'moderation', active: 'approved', banned: 'rejected', unconfirmed: 'unconfirmed' } as const;

/**
 * How moderation reads and writes sites (the moderation module's one decision flow takes it): a
 * site has four statuses, and a ban is its rejection.
 */
export const siteModeration: ModeratedKind<SiteRow> = {
  auditType: 'site',
  noticeObject: 'site',
  missing: 'Site',
  statuses: { waiting: SITE_STATUS.moderation, rejected: SITE_STATUS.banned },
  notRejected: 'Only a banned site can be sent back to moderation.',
  outcomeOf: (status) => SITE_OUTCOMES[siteStatusName(status)],
  lockStatus: findSiteStatusForUpdate,
  async ownStatus(trx, publisherId, id) {
    const site = await findOwnSite(trx, publisherId, id);
    if (site === undefined) throw notFound('Site');
    return site.status;
  },
  write: (trx, id, { status, reason }) => updateSiteStatus(trx, id, status, reason),
  read: (site) => ({
    id: site.id,
    ownerId: site.publisher_id,
    name: site.url,
    status: site.status,
    reason: site.moderation_reason,
  }),
  event: (site) => ({ type: 'site.moderated', data: { siteId: site.id, url: site.url, status: site.status } }),
};

/** Sites as moderation's decision routes take and answer them (app.ts hands this to moderation). */
export const moderatedSites: ModeratedSites<SiteRow> = {
  kind: siteModeration,
  status: StatusCode('The new status:'),
  operatorAnswer: AdminWebsiteSchema,
  presentToOperator: async (db, site) => (await presentAdminSites(db, [site]))[0],
  ownerAnswer: WebsiteSchema,
  presentToOwner: (db, site) => presentSite(db, site, LIFETIME),
};
