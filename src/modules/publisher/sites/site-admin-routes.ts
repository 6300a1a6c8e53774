import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { Id } from '../../../http/input-types.ts';
import { listPage, pageParameters } from '../../../http/pagination.ts';
import type { App } from '../../../http/routes.ts';
import { errorResponses } from '../../../http/schemas.ts';
import { listSites } from './site-repository.ts';
import { siteListOrder, siteListParameters } from './site-routes.ts';
import { AdminWebsiteSchema, StatusCode } from './site-schema.ts';
import { presentAdminSites } from './site-service.ts';

const ListSitesQuery = Type.Object({
  ...pageParameters,
  ...siteListParameters,
  status: Type.Optional(StatusCode('Only sites in this status (`status=0` is the moderation queue):')),
  userId: Type.Optional(Id('Only sites of this publisher.')),
});

/**
 * The operator's list of sites, the moderation queue among them. Deciding on a site, and its
 * publisher's resubmission, are the moderation module's (moderation/moderation-routes.ts).
 */
export function registerSiteAdminRoutes(app: App, context: AppContext): void {
  const { db } = context;

  app.get(
    '/api/admin/sites',
    {
      schema: {
        tags: ['Operator'],
        operationId: 'adminListSites',
        summary:
          'List sites (lifetime statistics), oldest first unless `sort` says otherwise; `q` searches addresses; `status=0` is the moderation queue.',
        querystring: ListSitesQuery,
        response: { 200: Type.Array(AdminWebsiteSchema), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const filter = { status: request.query.status, publisherId: request.query.userId, ...siteListOrder(request.query) };
      return presentAdminSites(db, await listPage(request, reply, (limit, offset) => listSites(db, filter, limit, offset)));
    },
  );
}
