import { XMLParser } from 'fast-xml-parser';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { badRequest, DomainError, type FieldError } from './errors.ts';
import { boundInputSchema, coerceInput, TEXT_PATTERN } from './input-types.ts';
import { englishText, type MessageValues } from './message-languages.ts';

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

/** Nesting a body may have: deeper than any schema of ours, shallow enough to walk without a deep stack. */
export const BODY_MAX_DEPTH = 32;

/**
 * Refuses a parsed body that holds more than `maxMembers` fields and list items in all, or is
 * nested deeper than BODY_MAX_DEPTH, before anything else reads it: validation, the field rules
 * and the error that would list every unknown field all cost in proportion to the members, so a
 * small body of many tiny keys must not reach them. The walk stops at the first member too many.
 */
export function checkBodyShape(body: unknown, maxMembers: number): void {
  let members = 0;
  const pending: [unknown, number][] = [[body, 0]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop() as [unknown, number];
    if (value === null || typeof value !== 'object') continue;
    if (depth >= BODY_MAX_DEPTH) throw tooComplex(`The request body is nested deeper than ${BODY_MAX_DEPTH} levels.`);
    const items = Array.isArray(value) ? value : Object.values(value);
    members += items.length;
    if (members > maxMembers) throw tooComplex(`The request body holds more than ${maxMembers} fields and list items.`);
    for (const item of items) if (item !== null && typeof item === 'object') pending.push([item, depth + 1]);
  }
}

const tooComplex = (message: string) => new DomainError('body_too_complex', message);

/**
 * Request bodies may be JSON (the default), a form, or XML shaped like our responses; each is
 * refused past `maxMembers` fields and list items (checkBodyShape).
 */
export function registerBodyParsers(app: FastifyInstance, maxMembers: number): void {
  // Only the formats below are understood; any other request Content-Type (text/plain too) → 415.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string, maxMembers));
    } catch (error) {
      done(error as Error);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    try {
      const parsed = parseQueryString(body as string);
      checkBodyShape(parsed, maxMembers);
      done(null, parsed);
    } catch (error) {
      done(error as Error);
    }
  });
  app.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, {});
    try {
      const parsed = xmlParser.parse(text, true) as Params;
      const root = parsed.request ?? parsed.response ?? Object.values(parsed)[0];
      checkBodyShape(root, maxMembers);
      done(null, root && typeof root === 'object' ? root : {});
    } catch (error) {
      done(error instanceof DomainError ? error : badRequest('The request body is not valid XML.'));
    }
  });
}

/**
 * A JSON request body as every route reads it: an object (empty text: `{}`), within the bounds of
 * `checkBodyShape`; anything else throws the 400 saying why. The serving fast path reads the bodies
 * it takes with it too.
 */
export function parseJsonBody(body: string, maxMembers: number): object {
  const text = body.trim();
  if (text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('The request body is not valid JSON.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw badRequest('The request body must be a JSON object.');
  }
  checkBodyShape(parsed, maxMembers);
  return parsed;
}

/**
 * For a route that browsers call with `navigator.sendBeacon(url, text)`: such a body is sent as
 * `text/plain` (a simple request, so no CORS preflight). Within `scope` only, a text/plain body is
 * read as a list: its lines (or commas, or spaces) become `{ [field]: [...] }`, which the route's
 * body schema then validates like any other body.
 */
export function acceptPlainTextList(scope: FastifyInstance, field: string): void {
  scope.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => {
    done(null, { [field]: plainTextList(body as string) });
  });
}

/** The items of a text/plain list body: its lines, or words separated by commas or spaces. */
export function plainTextList(body: string): string[] {
  return body.split(/[\s,]+/).filter((item) => item !== '');
}

/**
 * On every route: its input schemas get the bounds of input-types.ts, and a preValidation hook
 * turns the raw strings of the path, query and a form or XML body into the declared types
 * (strictly: see coerceInput); a JSON body keeps its types. Parameters may also travel in the query string or in the body, the body winning:
 * for routes with a body schema, query values of declared fields are merged into the body before
 * validation, so a route validates one object; query parameters the route does not declare are
 * ignored.
 */
export function mergeInputsOnRoute(routeOptions: RouteOptions): void {
  const schema = routeOptions.schema as { body?: SchemaLike; querystring?: SchemaLike; params?: SchemaLike } | undefined;
  if (!schema) return;
  if (schema.params) schema.params = boundInputSchema(schema.params);
  if (schema.querystring) schema.querystring = boundInputSchema(schema.querystring);
  if (schema.body) schema.body = boundInputSchema(schema.body);
  const { params, querystring, body } = schema;
  if (!params && !querystring && !body) return;
  const bodyKeys = Object.keys(body?.properties ?? {});
  // Callback style: no promise per request on the serving paths.
  const hook = (request: FastifyRequest, _reply: unknown, done: () => void): void => {
    if (params) coerceInput(params, request.params);
    const query = (request.query ?? {}) as Params;
    if (body) {
      const target = (request.body && typeof request.body === 'object' ? request.body : {}) as Params;
      const source = isJsonBody(request) ? 'json' : 'text';
      for (const key of bodyKeys) {
        if (target[key] === undefined && query[key] !== undefined) {
          // A value from the query string is text, whatever the body is.
          const property = body.properties?.[key];
          target[key] = source === 'json' && property ? coerceInput(property, query[key]) : query[key];
        }
      }
      request.body = coerceInput(body, target, source);
    }
    if (querystring) coerceInput(querystring, query);
    done();
  };
  const existing = routeOptions.preValidation;
  routeOptions.preValidation = existing ? [hook, ...(Array.isArray(existing) ? existing : [existing])] : [hook];
}

type SchemaLike = Parameters<typeof coerceInput>[0];

/** Whether the request's body was JSON (its values keep JSON's types). */
function isJsonBody(request: FastifyRequest): boolean {
  const type = request.headers['content-type'];
  return typeof type === 'string' && /^application\/(?:[\w.+-]+\+)?json\b/i.test(type.trimStart());
}

interface AjvError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Failing fields a 422 names at most; the rest are counted in one more entry. */
export const MAX_FIELD_ERRORS = 10;
/** Characters of a field's name an error repeats: a name is the client's text, of any length. */
const MAX_FIELD_NAME = 64;

/**
 * Turns schema validation failures into one entry per failing field, each written for a person
 * (humanMessage). An error echoes the client's field names, so it names at most MAX_FIELD_ERRORS
 * of them, each cut to MAX_FIELD_NAME characters, and says in one more entry (`body`) how many
 * others failed: the answer stays small whatever the body held.
 */
export function fieldErrorsFromValidation(errors: AjvError[]): FieldError[] {
  const byField = new Map<string, FieldError>();
  const others = new Set<string>();
  for (const error of errors) {
    let field = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
    if (error.keyword === 'required') field = [field, String(error.params.missingProperty)].filter(Boolean).join('.');
    if (error.keyword === 'additionalProperties') {
      field = [field, String(error.params.additionalProperty)].filter(Boolean).join('.');
    }
    const name = field || 'body';
    if (byField.has(name)) continue;
    if (byField.size < MAX_FIELD_ERRORS) byField.set(name, { field: shortName(name), ...humanMessage(error) });
    else others.add(name);
  }
  const listed = [...byField.values()];
  if (others.size > 0) listed.push({ field: 'body', ...sentence('validation.moreFields', { count: others.size }) });
  return listed;
}

function shortName(name: string): string {
  return name.length <= MAX_FIELD_NAME ? name : `${name.slice(0, MAX_FIELD_NAME)}…`;
}

const TYPE_KEYS = new Set(['integer', 'number', 'string', 'boolean', 'array', 'object', 'null']);
const FORMAT_KEYS = new Set(['email', 'uri', 'date-time', 'date', 'time']);

type Sentence = Omit<FieldError, 'field'>;

/** A sentence of the message catalogues (src/http/locales): its English text, key and values. */
function sentence(key: string, values: MessageValues = {}): Sentence {
  return { message: englishText(key, values), key, values };
}

/**
 * The one place where the validator's findings ("must NOT have fewer than 10 characters", "must be
 * integer") become sentences for the person who filled the field in; the web app shows them as
 * they are, beside the field. Each names its catalogue key, so the error handler can write it in
 * the request's language (src/http/message-languages.ts).
 */
function humanMessage(error: AjvError): Sentence {
  const { params } = error;
  const limit = Number(params.limit);
  switch (error.keyword) {
    case 'required':
      return sentence('validation.required');
    case 'additionalProperties':
      return sentence('validation.additionalProperty');
    case 'anyOf':
    case 'oneOf':
      return sentence('validation.invalidValue');
    case 'minLength':
      return limit === 1 ? sentence('validation.notEmpty') : sentence('validation.minLength', { count: limit });
    case 'maxLength':
      return sentence('validation.maxLength', { count: limit });
    case 'minimum':
      return sentence('validation.minimum', { limit: String(params.limit) });
    case 'maximum':
      return sentence('validation.maximum', { limit: String(params.limit) });
    case 'exclusiveMinimum':
      return sentence('validation.exclusiveMinimum', { limit: String(params.limit) });
    case 'exclusiveMaximum':
      return sentence('validation.exclusiveMaximum', { limit: String(params.limit) });
    case 'minItems':
      return limit === 1 ? sentence('validation.minItemsOne') : sentence('validation.minItems', { limit: String(params.limit) });
    case 'maxItems':
      return sentence('validation.maxItems', { limit: String(params.limit) });
    case 'uniqueItems':
      return sentence('validation.uniqueItems');
    case 'type': {
      const type = String(params.type);
      return TYPE_KEYS.has(type) ? sentence(`validation.type.${type}`) : sentence('validation.type.other', { type });
    }
    case 'enum':
      return sentence('validation.enum', { values: ((params.allowedValues as unknown[]) ?? []).join(', ') });
    case 'const':
      return sentence('validation.const', { value: String(params.allowedValue) });
    case 'format': {
      const format = String(params.format);
      return FORMAT_KEYS.has(format) ? sentence(`validation.format.${format}`) : sentence('validation.format.other', { format });
    }
    case 'pattern':
      return params.pattern === TEXT_PATTERN ? sentence('validation.text') : sentence('validation.pattern');
    default: {
      // A finding of a keyword our schemas do not use: the validator's own English words.
      const message = error.message ?? 'is invalid';
      return { message: `${message.charAt(0).toUpperCase()}${message.slice(1)}.` };
    }
  }
}
