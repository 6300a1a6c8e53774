import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ListWithTotal } from '../db/list.ts';
import { absoluteUrl } from './urls.ts';

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

/** Query parameters of every paginated list; spread into a route's querystring schema. */
export const pageParameters = {
  page: Type.Optional(Type.Integer({ minimum: 1, description: 'Page number, from 1.' })),
  'per-page': Type.Optional(
    Type.Integer({ minimum: 1, description: `Items per page (default ${DEFAULT_PER_PAGE}, at most ${MAX_PER_PAGE}).` }),
  ),
};

export interface Page {
  page: number;
  perPage: number;
  offset: number;
}

export function readPage(request: FastifyRequest): Page {
  const query = request.query as { page?: number; 'per-page'?: number };
  const page = query.page ?? 1;
  const perPage = Math.min(query['per-page'] ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  return { page, perPage, offset: (page - 1) * perPage };
}

/** Sets the Yii2 pagination headers (`X-Pagination-*` and `Link`) for a list of `total` items. */
export function setPaginationHeaders(request: FastifyRequest, reply: FastifyReply, page: Page, total: number): void {
  const pageCount = Math.max(1, Math.ceil(total / page.perPage));
  reply.header('X-Pagination-Total-Count', String(total));
  reply.header('X-Pagination-Page-Count', String(pageCount));
  reply.header('X-Pagination-Current-Page', String(page.page));
  reply.header('X-Pagination-Per-Page', String(page.perPage));
  const base = new URL(absoluteUrl(request, request.url));
  const link = (target: number, rel: string): string => {
    base.searchParams.set('page', String(target));
    base.searchParams.set('per-page', String(page.perPage));
    return `<${base.toString()}>; rel=${rel}`;
  };
  const links = [link(page.page, 'self'), link(1, 'first')];
  if (page.page > 1) links.push(link(Math.min(page.page - 1, pageCount), 'prev'));
  if (page.page < pageCount) links.push(link(page.page + 1, 'next'));
  links.push(link(pageCount, 'last'));
  reply.header('Link', links.join(', '));
}

/**
 * The paginated-list route in one call: reads the page from the query, lists it, and sets the
 * pagination headers from the total.
 */
export async function listPage<Row>(
  request: FastifyRequest,
  reply: FastifyReply,
  list: (limit: number, offset: number) => Promise<ListWithTotal<Row>>,
): Promise<Row[]> {
  const page = readPage(request);
  const { rows, total } = await list(page.perPage, page.offset);
  setPaginationHeaders(request, reply, page, total);
  return rows;
}

/** A page of a list already in memory, with the pagination headers. */
export function slicePage<Row>(request: FastifyRequest, reply: FastifyReply, all: readonly Row[]): Row[] {
  const page = readPage(request);
  setPaginationHeaders(request, reply, page, all.length);
  return all.slice(page.offset, page.offset + page.perPage);
}
