import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { Id } from '../../../http/input-types.ts';
import { listPage, pageParameters } from '../../../http/pagination.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses } from '../../../http/schemas.ts';
import { CategorySchema, listCategories, toCategory } from '../../categories/index.ts';
import { subCategoriesOfCampaign } from './sub-categories.ts';

const SubCategoriesQuery = Type.Object({
  ...pageParameters,
  id: Id('Campaign id.'),
});

/** The product category tree as advertisers read it (operators edit it: category-admin-routes.ts). */
export function registerCategoryRoutes(app: App, context: AppContext): void {
  const { db } = context;
  const list = Type.Array(CategorySchema);

  app.get(
    '/api/advertiser/categories',
    {
      schema: {
        tags: ['Campaigns'],
        operationId: 'listCategories',
        summary: 'Root categories, usable when creating a campaign.',
        querystring: Type.Object(pageParameters),
        response: { 200: list, ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const rows = await listPage(request, reply, (limit, offset) => listCategories(db, { parentId: null }, limit, offset));
      return rows.map(toCategory);
    },
  );

  app.get(
    '/api/advertiser/subCategories',
    {
      schema: {
        tags: ['Ads'],
        operationId: 'listSubCategories',
        summary: "Subcategories for an ad of the campaign: the children of the campaign's category.",
        querystring: SubCategoriesQuery,
        response: { 200: list, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const advertiserId = accountOf(request);
      const { id } = request.query;
      const rows = await listPage(request, reply, (limit, offset) =>
        subCategoriesOfCampaign(db, advertiserId, id, limit, offset),
      );
      return rows.map(toCategory);
    },
  );
}
