import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { Id } from '../../../http/input-types.ts';
import { listPage, pageParameters } from '../../../http/pagination.ts';
import { actorOf, inRequestTransaction } from '../../../http/request-write.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses, IdParams } from '../../../http/schemas.ts';
import { recordAudit } from '../../audit/audit-service.ts';
import { lastRejections, ModerationReasonInput, ownerNames, reasonOf } from '../../moderation/moderation-input.ts';
import { listSites, sitesOfSameHost } from './site-repository.ts';
import { siteListOrder, siteListParameters } from './site-routes.ts';
import { AdminWebsiteSchema, SITE_STATUS, type SiteRow, StatusCode, WebsiteSchema } from './site-schema.ts';
import { moderateSite, presentSite, presentSites, resubmitSite } from './site-service.ts';

const LIFETIME = { from: undefined, to: undefined };

const ListSitesQuery = Type.Object({
  ...pageParameters,
  ...siteListParameters,
  status: Type.Optional(StatusCode('Only sites in this status (`status=0` is the moderation queue):')),
  userId: Type.Optional(Id('Only sites of this publisher.')),
});

const ModerateSiteBody = Type.Object(
  { status: StatusCode('The new status:'), reason: Type.Optional(ModerationReasonInput) },
  { additionalProperties: false },
);

/**
 * The moderation of sites: the operator's list (with the moderation queue) and decisions, and the
 * publisher's resubmission of a banned site.
 */
export function registerSiteAdminRoutes(app: App, context: AppContext): void {
  const { db, clock } = context;
  const tags = ['Operator'];
  const toAdminWebsites = async (rows: SiteRow[]) => {
    const ids = rows.map((row) => row.id);
    const [websites, names, sameHost, rejections] = await Promise.all([
      presentSites(db, rows, LIFETIME),
      ownerNames(
        db,
        rows.map((row) => row.publisher_id),
      ),
      sitesOfSameHost(db, ids),
      lastRejections(db, 'site', ids),
    ]);
    return websites.map((website, index) => {
      const userId = rows[index]?.publisher_id ?? 0;
      const siteId = rows[index]?.id ?? 0;
      const rejection = rejections.get(siteId);
      return {
        ...website,
        userId,
        userName: names.get(userId) ?? '',
        sameHostSites: sameHost.get(siteId) ?? [],
        ...(rejection === undefined ? {} : { lastRejection: rejection }),
      };
    });
  };

  app.get(
    '/api/admin/sites',
    {
      schema: {
        tags,
        operationId: 'adminListSites',
        summary:
          'List sites (lifetime statistics), oldest first unless `sort` says otherwise; `q` searches addresses; `status=0` is the moderation queue.',
        querystring: ListSitesQuery,
        response: { 200: Type.Array(AdminWebsiteSchema), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const filter = { status: request.query.status, publisherId: request.query.userId, ...siteListOrder(request.query) };
      return toAdminWebsites(await listPage(request, reply, (limit, offset) => listSites(db, filter, limit, offset)));
    },
  );

  app.put(
    '/api/admin/sites/:id',
    {
      schema: {
        tags,
        operationId: 'adminModerateSite',
        summary: 'Moderate a site: 0 moderation, 1 active (approved), 2 banned, 3 unconfirmed.',
        params: IdParams,
        body: ModerateSiteBody,
        response: { 200: AdminWebsiteSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const now = new Date(clock.now());
      const site = await inRequestTransaction(request, db, async (trx) => {
        const decision = { status: request.body.status, reason: reasonOf(request.body.reason) };
        const moderated = await moderateSite(trx, request.params.id, decision, now);
        const change = {
          action: 'site.moderate',
          objectType: 'site',
          objectId: moderated.id,
          subjectAccountId: moderated.publisher_id,
          after: { status: moderated.status, reason: moderated.moderation_reason },
        };
        await recordAudit(trx, actorOf(request), change, now);
        return moderated;
      });
      const [website] = await toAdminWebsites([site]);
      return website;
    },
  );

  app.post(
    '/api/webmaster/sites/:id/resubmit',
    {
      schema: {
        tags: ['Publisher'],
        operationId: 'resubmitSite',
        summary: 'Send a banned site back to moderation (extension); 409 when it is not banned.',
        params: IdParams,
        response: { 200: WebsiteSchema, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => {
      const now = new Date(clock.now());
      const publisherId = accountOf(request);
      const site = await inRequestTransaction(request, db, async (trx) => {
        const resubmitted = await resubmitSite(trx, publisherId, request.params.id);
        const change = {
          action: 'site.resubmit',
          objectType: 'site',
          objectId: resubmitted.id,
          subjectAccountId: publisherId,
          before: { status: SITE_STATUS.banned },
          after: { status: resubmitted.status },
        };
        await recordAudit(trx, actorOf(request), change, now);
        return resubmitted;
      });
      return presentSite(db, site, LIFETIME);
    },
  );
}
