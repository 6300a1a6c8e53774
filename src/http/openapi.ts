import type { RouteOptions } from 'fastify';

/**
 * What the conventions of conventions.ts add to every route, written into the OpenAPI document
 * once, here, rather than repeated by each route's schema: the XML form of every JSON answer, the
 * shared headers (ETag, pagination, rate limit, Location, Set-Cookie, Content-Disposition,
 * Retry-After), and the 304, 415, 422 and 429 answers the conventions give. A route's schema says
 * only what is its own; test/http/openapi-prism.test.ts checks the result against the server.
 */

/** The media types a route's response schema declares besides JSON and XML, lower case, without parameters. */
export function producedTypes(response: unknown): readonly string[] {
  if (response === null || typeof response !== 'object') return [];
  const types = new Set<string>();
  for (const answer of Object.values(response as Record<string, { content?: Record<string, unknown> }>)) {
    for (const type of Object.keys(answer?.content ?? {})) {
      const base = (type.split(';', 1)[0] ?? '').trim().toLowerCase();
      if (base !== 'application/json' && base !== 'application/xml') types.add(base);
    }
  }
  return [...types];
}

/** What the document needs to know of a route that its schema does not say. */
export interface RouteFacts {
  /** The route needs a token or a session (it is not public): rate limited, its session may move. */
  authenticated: boolean;
  /** A page for browsers (HTML or a file whatever `Accept` says): no 415, no API error shapes to add. */
  page: boolean;
  /** The route's own error handler answers every failure its way (the conversion pixel: a GIF). */
  answersEverything: boolean;
  /** A public account route: rate limited per client address (PUBLIC_RATE_LIMIT_RPS). */
  limitedByAddress?: boolean;
  /** What a `text/plain` body the route also takes holds (the view beacon's tokens, one per line). */
  plainTextBody?: string;
}

const HEADERS = {
  ETag: {
    description: 'The version of the answer; send it back in `If-None-Match` to get 304 when it has not changed.',
    schema: { type: 'string' },
  },
  Link: {
    description:
      'Pagination links (RFC 8288): `self`, `first`, `prev`, `next`, `last`. Left out when the query is too long to echo.',
    schema: { type: 'string' },
  },
  'X-Pagination-Total-Count': { description: 'Items in the whole list.', schema: { type: 'integer' } },
  'X-Pagination-Page-Count': { description: 'Pages in the whole list.', schema: { type: 'integer' } },
  'X-Pagination-Current-Page': { description: 'This page, from 1.', schema: { type: 'integer' } },
  'X-Pagination-Per-Page': { description: 'Items per page.', schema: { type: 'integer' } },
  'X-Rate-Limit-Limit': { description: 'Requests allowed per second to this token (or session).', schema: { type: 'integer' } },
  'X-Rate-Limit-Remaining': { description: 'Requests left in the current second.', schema: { type: 'integer' } },
  'X-Rate-Limit-Reset': { description: 'Seconds until the allowance is whole again.', schema: { type: 'integer' } },
  Location: { description: 'The URL of the created resource (201) or of the redirect target (302).', schema: { type: 'string' } },
  'Set-Cookie': {
    description: 'A browser session whose expiry moved (or the cookie the route sets): the cookie to keep.',
    schema: { type: 'string' },
  },
  'Content-Disposition': { description: 'The file is an attachment, with its file name.', schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer' } },
} as const;

type HeaderName = keyof typeof HEADERS;
const header = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` });
const PAGINATION: HeaderName[] = [
  'Link',
  'X-Pagination-Total-Count',
  'X-Pagination-Page-Count',
  'X-Pagination-Current-Page',
  'X-Pagination-Per-Page',
];
const RATE_LIMIT: HeaderName[] = ['X-Rate-Limit-Limit', 'X-Rate-Limit-Remaining', 'X-Rate-Limit-Reset'];
/** Answers that are files to save: they come with `Content-Disposition`. */
const FILE_TYPES = ['text/csv', 'application/vnd.apache.parquet', 'application/gzip'];

const ERROR_CONTENT = {
  'application/json': { schema: { $ref: '#/components/schemas/Error' } },
  'application/xml': { schema: xmlShape({ $ref: '#/components/schemas/Error' }) },
};

const SHARED_RESPONSES = {
  NotModified: {
    description: 'Not Modified: the `ETag` sent in `If-None-Match` is still current; no body.',
    headers: { ETag: header('ETag') },
  },
  UnsupportedMediaType: {
    headers: conventionalHeaders(),
    description:
      'Unsupported Media Type: `Accept` names nothing the route answers (JSON, XML, or the route’s own types), another API version is asked for, or the request body’s `Content-Type` is not JSON, a form or XML.',
    content: ERROR_CONTENT,
  },
  ValidationFailed: {
    headers: conventionalHeaders(),
    description: 'Unprocessable Entity: a parameter or body field failed validation; `errors` names each failing field.',
    content: ERROR_CONTENT,
  },
  TooManyRequests: {
    description:
      'Too Many Requests: the token’s (or session’s) rate limit is spent, or on the public sign-in, reset and confirmation routes the client address’s; `Retry-After` says for how long.',
    headers: { 'Retry-After': header('Retry-After'), ...Object.fromEntries(RATE_LIMIT.map((name) => [name, header(name)])) },
    content: ERROR_CONTENT,
  },
};

/** Headers any answer of an authenticated route may carry: its rate limit, and a session cookie that moved. */
function conventionalHeaders() {
  return Object.fromEntries([...RATE_LIMIT, 'Set-Cookie' as const].map((name) => [name, header(name)]));
}

type SchemaObject = Record<string, unknown>;

interface ResponseObject {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: SchemaObject }>;
  $ref?: string;
}

interface OperationObject {
  parameters?: { in: string; name: string }[];
  requestBody?: { content?: Record<string, unknown> };
  responses?: Record<string, ResponseObject>;
}

/** The routes as registered, and the document completed from them. */
export class DocumentedRoutes {
  private readonly facts = new Map<string, RouteFacts>();

  note(route: RouteOptions, facts: RouteFacts): void {
    const path = route.url.replace(/:(\w+)/g, '{$1}');
    for (const method of [route.method].flat()) this.facts.set(`${method.toLowerCase()} ${path}`, facts);
  }

  /** Adds the conventions' answers and headers to every operation of `document` (in place). */
  complete<T>(document: T): T {
    const openapi = document as {
      paths?: Record<string, Record<string, OperationObject>>;
      components?: { schemas?: Record<string, SchemaObject>; headers?: unknown; responses?: unknown };
    };
    openapi.components ??= {};
    openapi.components.headers = HEADERS;
    openapi.components.responses = SHARED_RESPONSES;
    for (const schema of Object.values(openapi.components.schemas ?? {})) nameXmlItems(schema);
    for (const [path, item] of Object.entries(openapi.paths ?? {})) {
      for (const [method, operation] of Object.entries(item)) {
        const facts = this.facts.get(`${method} ${path}`);
        if (facts === undefined || typeof operation !== 'object' || operation === null) continue;
        completeOperation(method, operation, facts);
      }
    }
    return document;
  }
}

function completeOperation(method: string, operation: OperationObject, facts: RouteFacts): void {
  operation.responses ??= {};
  const responses = operation.responses;
  const negotiates = !facts.page && !facts.answersEverything;
  const paginated = operation.parameters?.some((parameter) => parameter.in === 'query' && parameter.name === 'page') ?? false;
  const validates =
    operation.requestBody !== undefined || (operation.parameters?.some((parameter) => parameter.in === 'query') ?? false);
  if (negotiates) {
    responses['415'] ??= { $ref: '#/components/responses/UnsupportedMediaType' };
    if (validates) responses['422'] ??= { $ref: '#/components/responses/ValidationFailed' };
    if (facts.authenticated || facts.limitedByAddress === true)
      responses['429'] ??= { $ref: '#/components/responses/TooManyRequests' };
  }
  if (method === 'get' && responses['200'] !== undefined) responses['304'] = { $ref: '#/components/responses/NotModified' };
  const jsonBody = operation.requestBody?.content?.['application/json'] as { schema?: SchemaObject } | undefined;
  if (jsonBody?.schema !== undefined) jsonBody.schema = withIntegerFlags(jsonBody.schema);
  if (facts.plainTextBody !== undefined && operation.requestBody?.content !== undefined) {
    operation.requestBody.content['text/plain'] = { schema: { type: 'string', description: facts.plainTextBody } };
  }
  for (const [status, response] of Object.entries(responses)) {
    if (response.$ref !== undefined) continue;
    const json = response.content?.['application/json'];
    if (json !== undefined && response.content) {
      response.content['application/xml'] = { schema: xmlShape(json.schema ?? {}) };
    }
    const names: HeaderName[] = [];
    if (method === 'get' && status === '200') names.push('ETag');
    if (paginated && status === '200') names.push(...PAGINATION);
    if (facts.authenticated) names.push(...RATE_LIMIT, 'Set-Cookie');
    else if (facts.limitedByAddress === true) names.push(...RATE_LIMIT);
    if (status === '201' || status === '302') names.push('Location');
    if (Object.keys(response.content ?? {}).some((type) => FILE_TYPES.some((file) => type.startsWith(file)))) {
      names.push('Content-Disposition');
    }
    if (status === '429' || status === '503') names.push('Retry-After');
    if (names.length === 0) continue;
    response.headers ??= {};
    for (const name of names) response.headers[name] ??= header(name);
  }
}

/**
 * A JSON body's boolean flags as the conventions take them (input-types.ts `coerceInput`): `true`
 * and `false`, or the integers 1 and 0; anything else is a 422. The copy is the document's only.
 */
function withIntegerFlags(schema: SchemaObject): SchemaObject {
  if (schema.type === 'boolean') {
    const { type: _type, ...rest } = schema;
    return { ...rest, anyOf: [{ type: 'boolean' }, { type: 'integer', enum: [0, 1] }] };
  }
  const copy: SchemaObject = { ...schema };
  if (isSchema(copy.properties)) {
    copy.properties = Object.fromEntries(
      Object.entries(copy.properties).map(([name, property]) => [
        name,
        isSchema(property) ? withIntegerFlags(property) : property,
      ]),
    );
  }
  if (isSchema(copy.items)) copy.items = withIntegerFlags(copy.items);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = copy[key];
    if (Array.isArray(options)) copy[key] = options.map((option) => (isSchema(option) ? withIntegerFlags(option) : option));
  }
  return copy;
}

function isSchema(value: unknown): value is SchemaObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The XML form of a JSON answer (xml.ts): a string of XML whose root element is `response` and
 * whose lists' elements are `item`, the JSON schema's shape otherwise. The body is declared a
 * string with that shape as its `contentSchema` (JSON Schema 2020-12): validators such as Prism
 * check an XML body as text, and a reader (or a generator) finds its structure and element names
 * there. The JSON schema is copied, never changed: both forms share nothing but components.
 */
function xmlShape(schema: SchemaObject): SchemaObject {
  let shape: SchemaObject;
  if (typeof schema.$ref === 'string') shape = { allOf: [schema], xml: { name: 'response' } };
  else {
    shape = structuredClone(schema);
    nameXmlItems(shape);
    shape.xml = shape.type === 'array' ? { name: 'response', wrapped: true } : { name: 'response' };
  }
  return { type: 'string', contentMediaType: 'application/xml', contentSchema: shape };
}

/** Names the elements of every list in the schema `item`, as xml.ts writes them. */
function nameXmlItems(schema: unknown): void {
  if (schema === null || typeof schema !== 'object') return;
  const object = schema as SchemaObject;
  if (object.type === 'array' && object.items !== null && typeof object.items === 'object' && !Array.isArray(object.items)) {
    const items = object.items as SchemaObject;
    if (typeof items.$ref === 'string') object.items = { allOf: [items], xml: { name: 'item' } };
    else items.xml = { name: 'item' };
    object.xml ??= { wrapped: true };
  }
  for (const [key, value] of Object.entries(object)) {
    if (key === 'xml' || key === 'enum' || key === 'examples' || key === 'default' || key === 'const') continue;
    if (Array.isArray(value)) for (const entry of value) nameXmlItems(entry);
    else nameXmlItems(value);
  }
}
