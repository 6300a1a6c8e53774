import { XMLParser } from 'fast-xml-parser';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { badRequest, type FieldError } from './errors.ts';

type Params = Record<string, unknown>;

/**
 * Parses a query string the way the platform's clients write it: `filter[id]=1,2` becomes
 * `{ filter: { id: '1,2' } }`. A repeated key keeps its last value.
 */
export function parseQueryString(text: string): Params {
  const result: Params = {};
  if (text === '') return result;
  for (const [rawKey, value] of new URLSearchParams(text)) {
    // `__proto__` would replace the object's prototype rather than name a parameter.
    if (rawKey.startsWith('__proto__')) continue;
    const bracket = rawKey.indexOf('[');
    if (bracket > 0 && rawKey.endsWith(']')) {
      const outer = rawKey.slice(0, bracket);
      const inner = rawKey.slice(bracket + 1, -1);
      if (inner === '__proto__') continue;
      const existing = result[outer];
      const nested: Params = existing && typeof existing === 'object' ? (existing as Params) : {};
      nested[inner] = value;
      result[outer] = nested;
    } else {
      result[rawKey] = value;
    }
  }
  return result;
}

const xmlParser = new XMLParser({ ignoreAttributes: true, parseTagValue: false, processEntities: true });

/** Request bodies may be JSON (the default), a form, or XML shaped like our responses. */
export function registerBodyParsers(app: FastifyInstance): void {
  // Only the formats below are understood; any other request Content-Type (text/plain too) → 415.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, {});
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        return done(badRequest('The request body must be a JSON object.'));
      }
      done(null, parsed);
    } catch {
      done(badRequest('The request body is not valid JSON.'));
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, parseQueryString(body as string));
  });
  app.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, {});
    try {
      const parsed = xmlParser.parse(text, true) as Params;
      const root = parsed.request ?? parsed.response ?? Object.values(parsed)[0];
      done(null, root && typeof root === 'object' ? root : {});
    } catch {
      done(badRequest('The request body is not valid XML.'));
    }
  });
}

interface SchemaLike {
  type?: string | string[];
  anyOf?: SchemaLike[];
  properties?: Record<string, SchemaLike>;
}

/** Names of the properties that are booleans in a schema, so `"1"`/`"0"` can be accepted for them. */
function booleanKeys(schema: SchemaLike | undefined): string[] {
  if (!schema?.properties) return [];
  return Object.entries(schema.properties)
    .filter(([, property]) => property.type === 'boolean' || property.anyOf?.some((option) => option.type === 'boolean'))
    .map(([key]) => key);
}

function normalizeBooleans(target: Params, keys: string[]): void {
  for (const key of keys) {
    const value = target[key];
    if (value === '1' || value === 1) target[key] = true;
    else if (value === '0' || value === 0) target[key] = false;
  }
}

/**
 * Parameters may travel in the query string or in the body, the body winning. For routes with a
 * body schema, query values of declared fields are merged into the body before validation, so a
 * route validates one object; query parameters the route does not declare are ignored.
 */
export function mergeInputsOnRoute(routeOptions: RouteOptions): void {
  const schema = routeOptions.schema as { body?: SchemaLike; querystring?: SchemaLike } | undefined;
  if (!schema) return;
  const bodyKeys = Object.keys(schema.body?.properties ?? {});
  const bodyBooleans = booleanKeys(schema.body);
  const queryBooleans = booleanKeys(schema.querystring);
  if (bodyKeys.length === 0 && queryBooleans.length === 0) return;
  const hook = async (request: FastifyRequest): Promise<void> => {
    const query = (request.query ?? {}) as Params;
    if (queryBooleans.length > 0) normalizeBooleans(query, queryBooleans);
    if (schema.body) {
      const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Params;
      for (const key of bodyKeys) {
        if (body[key] === undefined && query[key] !== undefined) body[key] = query[key];
      }
      normalizeBooleans(body, bodyBooleans);
      request.body = body;
    }
  };
  const existing = routeOptions.preValidation;
  routeOptions.preValidation = existing ? [hook, ...(Array.isArray(existing) ? existing : [existing])] : [hook];
}

interface AjvError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Turns schema validation failures into one entry per failing field. */
export function fieldErrorsFromValidation(errors: AjvError[]): FieldError[] {
  const byField = new Map<string, string>();
  for (const error of errors) {
    let field = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
    let message = error.message ?? 'is invalid';
    if (error.keyword === 'required') {
      field = [field, String(error.params.missingProperty)].filter(Boolean).join('.');
      message = 'is required.';
    } else if (error.keyword === 'additionalProperties') {
      field = [field, String(error.params.additionalProperty)].filter(Boolean).join('.');
      message = 'is not a known field.';
    } else if (error.keyword === 'anyOf' || error.keyword === 'oneOf') {
      message = 'has an invalid value.';
    } else {
      message = `${message.charAt(0).toUpperCase()}${message.slice(1)}.`;
    }
    if (!byField.has(field || 'body')) byField.set(field || 'body', message);
  }
  return [...byField].map(([field, message]) => ({ field, message }));
}
