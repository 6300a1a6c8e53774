import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { Id } from '../../../http/input-types.ts';
import { listPage, pageParameters } from '../../../http/pagination.ts';
import { actorOf, inRequestTransaction } from '../../../http/request-write.ts';
import type { App } from '../../../http/routes.ts';
import { errorResponses, IdParams } from '../../../http/schemas.ts';
import { recordAudit } from '../../audit/audit-service.ts';
import { listSites } from './site-repository.ts';
import { AdminWebsiteSchema, type SiteRow, StatusCode } from './site-schema.ts';
import { moderateSite, presentSites } from './site-service.ts';

const LIFETIME = { from: undefined, to: undefined };

const ListSitesQuery = Type.Object({
  ...pageParameters,
  status: Type.Optional(StatusCode('Only sites in this status (`status=0` is the moderation queue):')),
  userId: Type.Optional(Id('Only sites of this publisher.')),
});

const ModerateSiteBody = Type.Object({ status: StatusCode('The new status:') }, { additionalProperties: false });

/** The operator's side of sites: the list (with the moderation queue) and moderation. */
export function registerSiteAdminRoutes(app: App, context: AppContext): void {
  const { db, clock } = context;
  const tags = ['Operator'];
  const toAdminWebsites = async (rows: SiteRow[]) => {
    const websites = await presentSites(db, rows, LIFETIME);
    return websites.map((website, index) => ({ ...website, userId: rows[index]?.publisher_id ?? 0 }));
  };

  app.get(
    '/api/admin/sites',
    {
      schema: {
        tags,
        operationId: 'adminListSites',
        summary: 'List sites (lifetime statistics), oldest first; `status=0` is the moderation queue.',
        querystring: ListSitesQuery,
        response: { 200: Type.Array(AdminWebsiteSchema), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const filter = { status: request.query.status, publisherId: request.query.userId };
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
        const moderated = await moderateSite(trx, request.params.id, request.body.status, now);
        const change = {
          action: 'site.moderate',
          objectType: 'site',
          objectId: moderated.id,
          subjectAccountId: moderated.publisher_id,
          after: { status: moderated.status },
        };
        await recordAudit(trx, actorOf(request), change, now);
        return moderated;
      });
      const [website] = await toAdminWebsites([site]);
      return website;
    },
  );
}
