import { type Static, Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { readExpand } from '../../../http/expand.ts';
import { uncheckedBody } from '../../../http/field-rules.ts';
import { Count, Id, Text } from '../../../http/input-types.ts';
import { listPage, pageParameters, slicePage } from '../../../http/pagination.ts';
import { requestDb } from '../../../http/request-write.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses, IdParams } from '../../../http/schemas.ts';
import { searchParameter, sortParameter } from '../../../http/sorting.ts';
import { absoluteUrl, created } from '../../../http/urls.ts';
import { readSort } from '../../../shared/list-query.ts';
import { listProductCategories, toCategory } from '../../categories/index.ts';
import { readPeriod } from '../../statistics/index.ts';
import { listSiteCategories, listSites, SITE_SORT_FIELDS, type SiteSortField } from './site-repository.ts';
import { CategorySchema, StatusCode, WebsiteSchema } from './site-schema.ts';
import { blocksOfSite, changeSite, createSite, getOwnSite, presentSite, presentSites, siteFieldErrors } from './site-service.ts';

const periodParameters = {
  dateFrom: Type.Optional(Text('First day of the statistics period, YYYY-MM-DD (inclusive). None: lifetime.')),
  dateTo: Type.Optional(Text('Last day of the statistics period, YYYY-MM-DD (inclusive). None: up to today.')),
  expand: Type.Optional(Text('`blocks` embeds the blocks of each site.')),
};

/** The search and order of a site list (the publisher's sites, the operator's). */
export const siteListParameters = {
  q: searchParameter('address'),
  sort: sortParameter(SITE_SORT_FIELDS, 'id'),
};

/** The search and order a site list asks for (`q` and `sort`, checked by `siteListParameters`). */
export const siteListOrder = (query: { q?: string; sort?: string }) => ({
  search: query.q?.trim() || undefined,
  sort: readSort(query.sort, { field: 'id' as SiteSortField, descending: false }),
});

const ListSitesQuery = Type.Object({
  ...pageParameters,
  ...periodParameters,
  ...siteListParameters,
  status: Type.Optional(StatusCode('Only sites in this status:')),
});

const SiteQuery = Type.Object(periodParameters);

const CreateSiteBody = Type.Object(
  {
    url: Text('Site address, http or https.', { minLength: 1, maxLength: 2048 }),
    category_id: Id('Site category id (see GET /webmaster/categories).'),
    monthly_uniq_users: Type.Optional(Count('Monthly unique visitors (declared by the publisher).', { maximum: 2_000_000_000 })),
  },
  { additionalProperties: false },
);

const ChangeSiteBody = Type.Object(
  {
    refusedCategories: Type.Optional(
      Type.Array(Id('A product category id (GET /webmaster/productCategories).'), {
        maxItems: 500,
        description:
          'Product categories the site refuses (brand safety): ads of campaigns filed under one, or ads filed under one, do not serve on its blocks; empty clears; absent leaves them (extension).',
      }),
    ),
    domains: Type.Optional(
      Type.Array(Text('A domain name, such as `example.com` (its subdomains are included).', { minLength: 1, maxLength: 253 }), {
        maxItems: 20,
        description:
          "Further domains the site's blocks serve on besides the domain of its address (each with its subdomains): a block asked from a page on any other host answers no teasers and its clicks are not billed; empty clears; absent leaves them (extension).",
      }),
    ),
  },
  { additionalProperties: false },
);

/** Site categories and sites of the platform's publisher API (docs/publisher.md) and the site-creation and brand-safety extensions. */
export function registerSiteRoutes(app: App, context: AppContext): void {
  const { db, clock } = context;
  const tags = ['Publisher'];

  app.get(
    '/api/webmaster/categories',
    {
      schema: {
        tags,
        operationId: 'listSiteCategories',
        summary: 'Site categories.',
        querystring: Type.Object(pageParameters),
        response: { 200: Type.Array(CategorySchema), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => slicePage(request, reply, await listSiteCategories(db)),
  );

  // Brand safety names product categories (the advertisers' tree), which the advertiser entry point keeps from publishers.
  app.get(
    '/api/webmaster/productCategories',
    {
      schema: {
        tags,
        operationId: 'listProductCategories',
        summary: 'Product categories, roots and their children, that a site may refuse (extension).',
        querystring: Type.Object(pageParameters),
        response: { 200: Type.Array(CategorySchema), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const rows = await listPage(request, reply, (limit, offset) => listProductCategories(db, limit, offset));
      return rows.map(toCategory);
    },
  );

  app.get(
    '/api/webmaster/sites',
    {
      schema: {
        tags,
        operationId: 'listSites',
        summary: "The publisher's sites with their statistics for the period; `q` searches addresses, `sort` orders them.",
        querystring: ListSitesQuery,
        response: { 200: Type.Array(WebsiteSchema), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const { query } = request;
      const period = readPeriod({ from: query.dateFrom, to: query.dateTo });
      const filter = { publisherId: accountOf(request), status: query.status, ...siteListOrder(query) };
      const rows = await listPage(request, reply, (limit, offset) => listSites(db, filter, limit, offset));
      const websites = await presentSites(db, rows, period);
      if (!readExpand(request, ['blocks']).has('blocks')) return websites;
      const baseUrl = absoluteUrl(request, '');
      return Promise.all(websites.map(async (website) => ({ ...website, blocks: await blocksOfSite(db, website.id, baseUrl) })));
    },
  );

  app.get(
    '/api/webmaster/sites/:id',
    {
      schema: {
        tags,
        operationId: 'getSite',
        summary: 'One site with its statistics for the period; `expand=blocks` embeds its blocks.',
        params: IdParams,
        querystring: SiteQuery,
        response: { 200: WebsiteSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { query } = request;
      const period = readPeriod({ from: query.dateFrom, to: query.dateTo });
      const site = await getOwnSite(db, accountOf(request), request.params.id);
      const website = await presentSite(db, site, period);
      if (!readExpand(request, ['blocks']).has('blocks')) return website;
      return { ...website, blocks: await blocksOfSite(db, site.id, absoluteUrl(request, '')) };
    },
  );

  app.post(
    '/api/webmaster/sites',
    {
      schema: {
        tags,
        operationId: 'createSite',
        summary: 'Add a site (extension). It starts in moderation (status 0) until an operator approves it.',
        body: CreateSiteBody,
        response: { 201: WebsiteSchema, ...errorResponses(401, 403, 422) },
      },
      config: {
        fieldRules: (request) => {
          const body = uncheckedBody<Static<typeof CreateSiteBody>>(request);
          return siteFieldErrors(db, accountOf(request), { url: body.url, categoryId: body.category_id });
        },
        idempotent: true,
      },
    },
    async (request, reply) => {
      const { body } = request;
      const site = await createSite(
        requestDb(request, db),
        accountOf(request),
        { url: body.url, categoryId: body.category_id, monthlyUniqUsers: body.monthly_uniq_users ?? 0 },
        new Date(clock.now()),
      );
      return created(
        request,
        reply,
        `/api/webmaster/sites/${site.id}`,
        await presentSite(requestDb(request, db), site, { from: undefined, to: undefined }),
      );
    },
  );

  app.put(
    '/api/webmaster/sites/:id',
    {
      schema: {
        tags,
        operationId: 'updateSite',
        summary:
          'Change a site’s brand safety and domains (extension): the product categories it refuses, the further domains its blocks serve on.',
        params: IdParams,
        body: ChangeSiteBody,
        response: { 200: WebsiteSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const site = await changeSite(db, accountOf(request), request.params.id, request.body);
      return presentSite(db, site, { from: undefined, to: undefined });
    },
  );
}
