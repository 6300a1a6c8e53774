import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import type { Db } from '../../db/database.ts';
import { uncheckedBody } from '../../http/field-rules.ts';
import { Count, Text } from '../../http/input-types.ts';
import { listPage, pageParameters } from '../../http/pagination.ts';
import { actorOf, inRequestTransaction } from '../../http/request-write.ts';
import type { App } from '../../http/routes.ts';
import { errorResponses, IdParams, NoContent } from '../../http/schemas.ts';
import { created } from '../../http/urls.ts';
import { recordAudit } from '../audit/index.ts';
import { type CategoryRow, listCategories } from './category-repository.ts';
import { CategorySchema, toCategory } from './category-schema.ts';
import { categoryFieldErrors, createCategory, editCategory, getCategory, removeCategory } from './category-service.ts';

const AdminListQuery = Type.Object({
  ...pageParameters,
  parentId: Type.Optional(Count('Only children of this category; 0 for the root categories.')),
});

const Title = Text('Title.', { minLength: 1, maxLength: 100 });
const ParentId = Type.Union([Count('A category id, or 0.'), Type.Null()], {
  description: 'Parent category id; 0 or null for a root category.',
});

const CreateBody = Type.Object({ title: Title, parentId: Type.Optional(ParentId) }, { additionalProperties: false });
const EditBody = Type.Object({ title: Type.Optional(Title), parentId: Type.Optional(ParentId) }, { additionalProperties: false });

const parentOf = (value: number | null | undefined): number | null | undefined => (value === 0 ? null : value);

/** The operator's editing of the product category tree. */
export function registerCategoryAdminRoutes(app: App, context: AppContext): void {
  const { db, clock } = context;

  /** A category's audit entry: its title and parent before and after. */
  const auditCategory = (
    request: FastifyRequest,
    trx: Db,
    action: string,
    id: number,
    before: CategoryRow | null,
    after: CategoryRow | null,
  ) => {
    const fields = (row: CategoryRow | null) => (row === null ? null : { title: row.title, parentId: row.parent_id });
    const change = { action, objectType: 'category', objectId: id, before: fields(before), after: fields(after) };
    return recordAudit(trx, actorOf(request), change, new Date(clock.now()));
  };
  const tags = ['Operator'];

  app.get(
    '/api/admin/categories',
    {
      schema: {
        tags,
        operationId: 'adminListCategories',
        summary: 'Product categories, by id.',
        querystring: AdminListQuery,
        response: { 200: Type.Array(CategorySchema), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const parentId = parentOf(request.query.parentId);
      const rows = await listPage(request, reply, (limit, offset) => listCategories(db, { parentId }, limit, offset));
      return rows.map(toCategory);
    },
  );

  app.get(
    '/api/admin/categories/:id',
    {
      schema: {
        tags,
        operationId: 'adminGetCategory',
        summary: 'One product category.',
        params: IdParams,
        response: { 200: CategorySchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => toCategory(await getCategory(db, request.params.id)),
  );

  app.post(
    '/api/admin/categories',
    {
      schema: {
        tags,
        operationId: 'adminCreateCategory',
        summary: 'Add a product category.',
        body: CreateBody,
        response: { 201: CategorySchema, ...errorResponses(401, 403, 422) },
      },
      config: { fieldRules: (request) => categoryFieldErrors(db, uncheckedBody(request)) },
    },
    async (request, reply) => {
      const { title, parentId } = request.body;
      const category = await inRequestTransaction(request, db, async (trx) => {
        const added = await createCategory(trx, { title, parentId: parentOf(parentId) ?? null });
        await auditCategory(request, trx, 'category.create', added.id, null, added);
        return added;
      });
      return created(request, reply, `/api/admin/categories/${category.id}`, toCategory(category));
    },
  );

  app.put(
    '/api/admin/categories/:id',
    {
      schema: {
        tags,
        operationId: 'adminUpdateCategory',
        summary: 'Rename a product category or move it under another parent.',
        params: IdParams,
        body: EditBody,
        response: { 200: CategorySchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { title, parentId } = request.body;
      const { id } = request.params;
      const category = await inRequestTransaction(request, db, async (trx) => {
        const before = await getCategory(trx, id);
        const edited = await editCategory(trx, id, { title, parentId: parentOf(parentId) });
        await auditCategory(request, trx, 'category.edit', id, before, edited);
        return edited;
      });
      return toCategory(category);
    },
  );

  app.delete(
    '/api/admin/categories/:id',
    {
      schema: {
        tags,
        operationId: 'adminDeleteCategory',
        summary: 'Delete a product category that no campaign, ad or subcategory uses.',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      await inRequestTransaction(request, db, async (trx) => {
        const before = await getCategory(trx, id);
        await removeCategory(trx, id);
        await auditCategory(request, trx, 'category.delete', id, before, null);
      });
      reply.code(204);
    },
  );
}
