import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app-context.ts';
import { pageParameters, readPage, setPaginationHeaders } from '../../../http/pagination.ts';
import { errorResponses, IdParams, NoContent } from '../../../http/schemas.ts';
import { created } from '../../../http/urls.ts';
import { listCategories } from './category-repository.ts';
import { CategorySchema, toCategory } from './category-schema.ts';
import { createCategory, editCategory, getCategory, removeCategory, subCategoriesOfCampaign } from './category-service.ts';

const SubCategoriesQuery = Type.Object({
  ...pageParameters,
  id: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Campaign id.' }),
});

const AdminListQuery = Type.Object({
  ...pageParameters,
  parentId: Type.Optional(
    Type.Integer({ minimum: 0, description: 'Only children of this category; 0 for the root categories.' }),
  ),
});

const Title = Type.String({ minLength: 1, maxLength: 100, description: 'Title.' });
const ParentId = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
  description: 'Parent category id; 0 or null for a root category.',
});

const CreateBody = Type.Object({ title: Title, parentId: Type.Optional(ParentId) }, { additionalProperties: false });
const EditBody = Type.Object({ title: Type.Optional(Title), parentId: Type.Optional(ParentId) }, { additionalProperties: false });

const parentOf = (value: number | null | undefined): number | null | undefined => (value === 0 ? null : value);

/** The product category tree: advertisers read it, operators edit it. */
export function registerCategoryRoutes(app: FastifyInstance, context: AppContext): void {
  const { db } = context;
  const list = Type.Array(CategorySchema);

  app.get(
    '/api/advertiser/categories',
    {
      schema: {
        tags: ['Campaigns'],
        summary: 'Root categories, usable when creating a campaign.',
        querystring: Type.Object(pageParameters),
        response: { 200: list, ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const page = readPage(request);
      const { rows, total } = await listCategories(db, { parentId: null }, page.perPage, page.offset);
      setPaginationHeaders(request, reply, page, total);
      return rows.map(toCategory);
    },
  );

  app.get(
    '/api/advertiser/subCategories',
    {
      schema: {
        tags: ['Ads'],
        summary: "Subcategories for an ad of the campaign: the children of the campaign's category.",
        querystring: SubCategoriesQuery,
        response: { 200: list, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const page = readPage(request);
      const { id } = request.query as Static<typeof SubCategoriesQuery>;
      const { rows, total } = await subCategoriesOfCampaign(db, request.principal?.accountId ?? 0, id, page);
      setPaginationHeaders(request, reply, page, total);
      return rows.map(toCategory);
    },
  );

  const tags = ['Operator'];

  app.get(
    '/api/admin/categories',
    {
      schema: {
        tags,
        summary: 'Product categories, by id.',
        querystring: AdminListQuery,
        response: { 200: list, ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const page = readPage(request);
      const { parentId } = request.query as Static<typeof AdminListQuery>;
      const { rows, total } = await listCategories(db, { parentId: parentOf(parentId) }, page.perPage, page.offset);
      setPaginationHeaders(request, reply, page, total);
      return rows.map(toCategory);
    },
  );

  app.get(
    '/api/admin/categories/:id',
    {
      schema: {
        tags,
        summary: 'One product category.',
        params: IdParams,
        response: { 200: CategorySchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => toCategory(await getCategory(db, (request.params as Static<typeof IdParams>).id)),
  );

  app.post(
    '/api/admin/categories',
    {
      schema: {
        tags,
        summary: 'Add a product category.',
        body: CreateBody,
        response: { 201: CategorySchema, ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const body = request.body as Static<typeof CreateBody>;
      const category = await createCategory(db, { title: body.title, parentId: parentOf(body.parentId) ?? null });
      return created(request, reply, `/api/admin/categories/${category.id}`, toCategory(category));
    },
  );

  app.put(
    '/api/admin/categories/:id',
    {
      schema: {
        tags,
        summary: 'Rename a product category or move it under another parent.',
        params: IdParams,
        body: EditBody,
        response: { 200: CategorySchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { id } = request.params as Static<typeof IdParams>;
      const body = request.body as Static<typeof EditBody>;
      return toCategory(await editCategory(db, id, { title: body.title, parentId: parentOf(body.parentId) }));
    },
  );

  app.delete(
    '/api/admin/categories/:id',
    {
      schema: {
        tags,
        summary: 'Delete a product category that no campaign, ad or subcategory uses.',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      await removeCategory(db, (request.params as Static<typeof IdParams>).id);
      reply.code(204);
    },
  );
}
