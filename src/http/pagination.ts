import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ListWithTotal } from '../db/list.ts';
import { Count, MAX_PAGE, PageNumber } from './input-types.ts';
import { absoluteUrl } from './urls.ts';

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

/** Query parameters of every paginated list; spread into a route's querystring schema. */
export const pageParameters = {
  page: Type.Optional(PageNumber(`Page number, from 1 (at most ${MAX_PAGE}).`)),
  'per-page': Type.Optional(
    Count(`Items per page (default ${DEFAULT_PER_PAGE}; larger values are served as ${MAX_PER_PAGE}).`, { minimum: 1 }),
  ),
};

/** The longest query part echoed into the `Link` header; beyond it the header is left out. */
export const MAX_LINK_QUERY_LENGTH = 1024;

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
  const links = pageLinks(request, page, pageCount);
  if (links !== undefined) reply.header('Link', links);
}

/**
 * The Yii2 `Link` header: self, first, prev, next and last, each the request's path with only the
 * query parameters the route declares (its filters) and the paging ones. A query whose echoed part
 * would pass MAX_LINK_QUERY_LENGTH gets no links rather than links that drop a filter (a wrong
 * next page is worse than none; the X-Pagination-* headers still say how to page).
 */
function pageLinks(request: FastifyRequest, page: Page, pageCount: number): string | undefined {
  const declared = (request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined)?.properties;
  const query = request.query as Record<string, unknown>;
  const kept = new URLSearchParams();
  for (const name of Object.keys(declared ?? {})) {
    const value = query[name];
    if (name === 'page' || name === 'per-page' || value === undefined || value === null) continue;
    if (typeof value === 'object') {
      for (const [inner, innerValue] of Object.entries(value)) kept.append(`${name}[${inner}]`, String(innerValue));
    } else {
      kept.append(name, String(value));
    }
  }
  const filters = kept.toString();
  if (filters.length > MAX_LINK_QUERY_LENGTH) return undefined;
  const base = absoluteUrl(request, request.url.split('?', 1)[0] ?? '');
  const prefix = filters === '' ? '' : `${filters}&`;
  const link = (target: number, rel: string): string => `<${base}?${prefix}page=${target}&per-page=${page.perPage}>; rel=${rel}`;
  const links = [link(page.page, 'self'), link(1, 'first')];
  if (page.page > 1) links.push(link(Math.min(page.page - 1, pageCount), 'prev'));
  if (page.page < pageCount) links.push(link(page.page + 1, 'next'));
  links.push(link(pageCount, 'last'));
  return links.join(', ');
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
