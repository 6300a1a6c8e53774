import { hash } from 'node:crypto';
import type {
  FastifyBaseLogger,
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  onSendHookHandler,
  RouteOptions,
} from 'fastify';
import FindMyWay from 'find-my-way';
import { DatabaseUnavailableError, isStatementTimeout } from '../db/availability.ts';
import type { Principal } from '../shared/principal.ts';
import { type Access, type AuthorizationDependencies, authorizationSteps } from './authorization.ts';
import {
  DomainError,
  type ErrorCode,
  errorBody,
  type FieldError,
  generalCodeOf,
  localisedErrorBody,
  STATUS_OF,
} from './errors.ts';
import type { AnswerReply } from './fast-reply.ts';
import { mergeFieldErrors, ruleErrorsOf } from './field-rules.ts';
import { sendHtmlPage } from './html-page.ts';
import { fieldErrorsFromValidation, mergeInputsOnRoute, parseQueryString, registerBodyParsers } from './input.ts';
import { type MessageValues, negotiateMessageLanguage } from './message-languages.ts';
import { negotiateFormat, type ResponseFormat } from './negotiation.ts';
import { type DocumentedRoutes, producedTypes } from './openapi.ts';
import { setSecurityHeaders, setServingSecurityHeaders } from './security-headers.ts';
import { toXml } from './xml.ts';

export type { Principal, SessionAuthentication } from '../shared/principal.ts';
export type { Access } from './authorization.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    /** The route answers a session that must first enrol in two-factor sign-in (the enrolment itself, sign-out). */
    duringEnrolment?: boolean;
    /**
     * The route answers browsers a page (HTML, or a file) whatever `Accept` says, so an `Accept`
     * the API cannot answer (`text/html` alone) is no 415 there; its errors are JSON then.
     */
    page?: boolean;
    /**
     * An answer of the serving path to publishers' pages (teasers, beacons, clicks: docs/adr/0037):
     * it carries only the headers a cross-origin answer uses (no request id, `Vary: Accept`, ETag;
     * security-headers.ts `setServingSecurityHeaders`), and its requests are not logged one by one
     * unless LOG_LEVEL is debug or trace (the request metrics count them per route).
     */
    serving?: boolean;
    /** `false`: a GET route without the ETag step (`/api/me`: docs/adr/0037). */
    etag?: boolean;
    /**
     * A public route of the way into an account (sign-in, second factor, passkey sign-in, password
     * reset, mailbox confirmation): anyone may call it, so it takes a small body
     * (PUBLIC_BODY_LIMIT_BYTES) and is rate-limited per client address (PUBLIC_RATE_LIMIT_RPS).
     */
    accountEntry?: boolean;
    /**
     * The route also takes a `text/plain` body (input.ts `acceptPlainTextList`): what that text
     * holds, for the OpenAPI document, which declares it beside JSON.
     */
    plainTextBody?: string;
    /** The media types besides JSON and XML that the route's response schema declares (set when it is registered). */
    produces?: readonly string[];
  }
  interface FastifyInstance {
    /**
     * What a browser gets for a page no route has (the web app, which shows its own "not found"),
     * set by the web app's module; the API's 404 when the app is not built.
     */
    browserNotFoundPage: string | undefined;
  }
  interface FastifyRequest {
    principal: Principal | undefined;
    format: ResponseFormat;
  }
}

export interface ConventionDependencies extends AuthorizationDependencies {
  /** The largest body of the routes marked `accountEntry`. */
  publicBodyLimitBytes: number;
  /** Fields and list items a body may hold in all (BODY_MAX_MEMBERS). */
  bodyMaxMembers: number;
  trustProxy: boolean;
}

const ACCESS_BY_PREFIX: [string, Access][] = [
  ['/api/advertiser/', 'advertiser'],
  ['/api/webmaster/', 'publisher'],
  ['/api/admin/', 'operator'],
  ['/api/docs', 'public'],
];

/** Methods a browser may send when it opens an address by hand. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const XML_TYPE = 'application/xml; charset=UTF-8';
const JSON_TYPE = 'application/json; charset=utf-8';

/** Fastify's own error codes that are the client's fault, with the catalogue's entry for each. */
const CLIENT_ERROR_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_request',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_request',
};

/**
 * Installs every HTTP convention of the API on the root instance, for all routes present and
 * future: the request id and security headers, input parsing, format negotiation, authentication,
 * access by entry point, rate limiting, the error body, 404/405/OPTIONS, `fields`, and ETags.
 */
export function registerHttpConventions(
  app: FastifyInstance,
  dependencies: ConventionDependencies,
  documented?: DocumentedRoutes,
): void {
  registerBodyParsers(app, dependencies.bodyMaxMembers);
  app.decorateRequest('principal', undefined);
  app.decorateRequest('format', 'json');
  app.decorate('browserNotFoundPage', undefined);

  const knownRoutes = FindMyWay();
  const steps = authorizationSteps(dependencies);
  app.addHook('onRoute', (routeOptions) =>
    prepareRoute(routeOptions, { steps, publicBodyLimitBytes: dependencies.publicBodyLimitBytes, knownRoutes, documented }),
  );
  app.addHook('onRequest', startRequest(dependencies.trustProxy));
  app.addHook('preSerialization', (request, reply, payload, done) => {
    done(null, selectFields(request, reply, payload));
  });
  app.setNotFoundHandler((request, reply) => answerNoRoute(app, knownRoutes, request, reply));
  app.setErrorHandler(answerError);
}

/** What `prepareRoute` adds a route's steps from. */
interface RoutePreparation {
  steps: ReturnType<typeof authorizationSteps>;
  publicBodyLimitBytes: number;
  /** Every method and path registered, for 405 and OPTIONS. */
  knownRoutes: FindMyWay.Instance<FindMyWay.HTTPVersion.V1>;
  documented: DocumentedRoutes | undefined;
}

/**
 * When a route is registered: its access (from its path unless it names one), the media types it
 * produces, its OpenAPI entry, and the steps it needs, fixed once instead of decided per request.
 */
function prepareRoute(
  routeOptions: RouteOptions & { routePath: string; path: string; prefix: string },
  { steps, publicBodyLimitBytes, knownRoutes, documented }: RoutePreparation,
): void {
  const config = (routeOptions.config ?? {}) as {
    access?: Access;
    duringEnrolment?: boolean;
    serving?: boolean;
    etag?: boolean;
    page?: boolean;
    produces?: readonly string[];
    accountEntry?: boolean;
    plainTextBody?: string;
  };
  if (config.access === undefined) {
    config.access = ACCESS_BY_PREFIX.find(([prefix]) => routeOptions.url.startsWith(prefix))?.[1] ?? 'authenticated';
  }
  config.produces = producedTypes(routeOptions.schema?.response);
  routeOptions.config = config as typeof routeOptions.config;
  documented?.note(routeOptions, {
    authenticated: config.access !== 'public',
    page: config.page === true,
    answersEverything: routeOptions.errorHandler !== undefined,
    limitedByAddress: config.accountEntry === true,
    plainTextBody: config.plainTextBody,
  });
  mergeInputsOnRoute(routeOptions);
  // What a route needs is known here, once: a public route runs no authentication step and a
  // route that answers no GET no ETag step (the 404 handler gets neither: it is public and
  // answers no 200).
  const access = config.access;
  if (access !== 'public') {
    routeOptions.onRequest = withHook(routeOptions.onRequest, steps.authorizeFor(access, config.duringEnrolment === true));
  }
  if (config.accountEntry === true) {
    routeOptions.bodyLimit ??= publicBodyLimitBytes;
    routeOptions.onRequest = withHook(routeOptions.onRequest, steps.limitByAddress);
  }
  // A serving answer is never stored (fresh teasers, signed links): nothing to revalidate.
  if (config.serving !== true && config.etag !== false && [routeOptions.method].flat().includes('GET')) {
    routeOptions.onSend = withHook(routeOptions.onSend, etagHook);
  }
  for (const method of [routeOptions.method].flat()) {
    try {
      knownRoutes.on(method.toUpperCase() as 'GET', routeOptions.url, () => undefined);
    } catch {
      // The same method and path registered twice (HEAD for GET): one entry is enough.
    }
  }
}

/**
 * The hook for what every request needs, matched or not, in callback style: no promise per
 * request. Every response names its request's id, the one its log lines carry, and carries its
 * security headers, errors too. The route's own authentication step (`prepareRoute`) runs after it.
 */
function startRequest(trustProxy: boolean): onRequestHookHandler {
  return (request, reply, done) => {
    const { config } = request.routeOptions;
    const serving = config.serving === true;
    if (serving) {
      setServingSecurityHeaders(reply, config.page === true);
    } else {
      reply.header('x-request-id', request.id);
      setSecurityHeaders(request.url, reply);
    }
    try {
      request.format = negotiateFormat(request.headers.accept, request.routeOptions.config.produces);
    } catch (error) {
      if (config.page !== true) throw error;
    }
    // A serving answer is no-store: no cache keeps it, so none needs to know what it varies by.
    if (!serving) reply.header('Vary', 'Accept');
    setAnswerFormat(reply, request.format);
    if (trustProxy && request.headers['x-forwarded-proto'] !== 'https') {
      done(new DomainError('https_required', 'Requests must be made over HTTPS.'));
      return;
    }
    done();
  };
}

/**
 * What the negotiated format sets on a reply before its handler runs: XML's serializer and type
 * (JSON is the default). The serving fast path sets it with this function too.
 */
export function setAnswerFormat(reply: Pick<AnswerReply, 'serializer' | 'type'>, format: ResponseFormat): void {
  if (format === 'xml') {
    reply.serializer(toXml);
    reply.type(XML_TYPE);
  }
}

/** No route for the path (404, or the app's page for a browser), or not for the method (405, OPTIONS). */
async function answerNoRoute(
  app: FastifyInstance,
  knownRoutes: RoutePreparation['knownRoutes'],
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const path = request.url.split('?', 1)[0] ?? '/';
  const allowed = (['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).filter(
    (method) => knownRoutes.find(method, path) !== null,
  );
  if (allowed.length === 0) {
    // A browser opening an address by hand (/login, /admin, a typo) gets the app's own page,
    // with the 404 status; programs (no `text/html` in Accept) and /api keep the error body.
    const page = app.browserNotFoundPage;
    const browser = /\btext\/html\b/.test(request.headers.accept ?? '');
    if (page !== undefined && browser && SAFE_METHODS.has(request.method) && !path.startsWith('/api')) {
      reply.header('Cache-Control', 'no-cache');
      return sendHtmlPage(reply, 404, page);
    }
    throw new DomainError('route_not_found', 'Page not found.');
  }
  const allow = [...allowed, 'OPTIONS'].join(', ');
  reply.header('Allow', allow);
  if (request.method === 'OPTIONS') {
    reply.code(200);
    return '';
  }
  throw new DomainError(
    'method_not_allowed',
    `Method Not Allowed. This URL can only handle the following request methods: ${allow}.`,
  );
}

/** Every error's answer: its status, headers and the error body, in the request's format and language. */
async function answerError(error: FastifyError | DomainError, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  let failure = classify(error);
  if (failure.status === 422 && !(error instanceof DomainError) && error.validation) {
    failure = withRuleErrors(failure, await ruleErrorsOf(request));
  }
  logFailure(failure, error, request.log);
  // Fastify drops the Content-Type before calling the error handler: set the negotiated one again.
  reply.type(request.format === 'xml' ? XML_TYPE : JSON_TYPE);
  for (const [name, value] of Object.entries(failure.headers)) reply.header(name, value);
  reply.code(failure.status);
  // The serving path's answers are for publishers' pages and stay English, with no Vary to add.
  if (request.routeOptions.config.serving === true) return servingErrorBody(failure);
  const language = negotiateMessageLanguage(request.headers['accept-language']);
  const { body, contentLanguage } = localisedErrorBody(language, failure.status, failure, failure.code, failure.fieldErrors);
  varyOn(reply, 'Accept-Language');
  if (contentLanguage !== undefined) reply.header('Content-Language', contentLanguage);
  return body;
}

/** A 5xx is logged with its error; an outage only as met (the dependency monitor logged it once). */
function logFailure(failure: Failure, error: Error, log: FastifyBaseLogger): void {
  if (failure.status === 503) {
    log.warn({ cause: error.message }, 'request answered 503: a dependency is unavailable');
  } else if (failure.status >= 500) {
    log.error({ err: error }, 'request failed');
  }
}

/** The error body of a serving route's answer: English, whatever the request's language. */
function servingErrorBody(failure: Failure) {
  return errorBody(failure.status, failure.message, failure.code, failure.fieldErrors);
}

/**
 * An error of the serving fast path (src/http/fast-path.ts) answered as `answerError` answers it
 * on a serving route: status, headers and body from the same classification, in the negotiated
 * format. A route without field rules (none of the fast path's has any) adds none to a 422.
 */
export function sendServingFailure(reply: AnswerReply, error: Error, log: FastifyBaseLogger, format: ResponseFormat): void {
  const failure = classify(error as FastifyError);
  logFailure(failure, error, log);
  reply.type(format === 'xml' ? XML_TYPE : JSON_TYPE);
  for (const [name, value] of Object.entries(failure.headers)) reply.header(name, value);
  reply.code(failure.status);
  const body = servingErrorBody(failure);
  // Written here as the format's serializer writes it, and sent as it is.
  reply.serializer((payload) => String(payload));
  reply.send(format === 'xml' ? toXml(body) : JSON.stringify(body));
}

interface Failure {
  status: number;
  message: string;
  /** The message's catalogue key and values, when its throw site named them. */
  key?: string | undefined;
  values?: MessageValues | undefined;
  code: ErrorCode;
  fieldErrors?: FieldError[];
  headers: Record<string, string>;
}

/** A schema's 422 with the route's own field rules merged in: every failing field at once. */
function withRuleErrors(failure: Failure, ruleErrors: FieldError[]): Failure {
  if (ruleErrors.length === 0) return failure;
  const fieldErrors = mergeFieldErrors(failure.fieldErrors ?? [], ruleErrors);
  return { ...failure, fieldErrors, message: validationMessage(fieldErrors) };
}

function validationMessage(fieldErrors: FieldError[]): string {
  return fieldErrors.map((entry) => `${entry.field}: ${entry.message}`).join(' ');
}

/** Adds a request header to the answer's `Vary`, beside those already named. */
function varyOn(reply: FastifyReply, header: string): void {
  const vary = reply.getHeader('Vary');
  reply.header('Vary', vary === undefined || vary === '' ? header : `${String(vary)}, ${header}`);
}

/**
 * Seconds a client is told to wait while the database is away: a restart takes a few seconds, and
 * the instance uses it again on the first request after its return.
 */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

function classify(error: FastifyError | DomainError): Failure {
  if (error instanceof DatabaseUnavailableError || isStatementTimeout(error)) {
    return {
      status: 503,
      message: 'The database is unavailable for a moment. Please try again shortly.',
      code: 'database_unavailable',
      headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
    };
  }
  if (error instanceof DomainError) {
    const headers: Record<string, string> = {};
    if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(error.retryAfterSeconds);
    return {
      status: STATUS_OF[error.code],
      message: error.message,
      key: error.key,
      values: error.values,
      code: error.code,
      fieldErrors: error.fieldErrors,
      headers,
    };
  }
  if (error.validation) {
    if (error.validationContext === 'params')
      return { status: 404, message: 'Object not found.', code: 'not_found', headers: {} };
    const fieldErrors = fieldErrorsFromValidation(error.validation as Parameters<typeof fieldErrorsFromValidation>[0]);
    return { status: 422, message: validationMessage(fieldErrors), code: 'validation_failed', fieldErrors, headers: {} };
  }
  const known = error.code ? CLIENT_ERROR_CODES[error.code] : undefined;
  if (known !== undefined) return { status: STATUS_OF[known], message: error.message, code: known, headers: {} };
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return { status: error.statusCode, message: error.message, code: generalCodeOf(error.statusCode), headers: {} };
  }
  return { status: 500, message: 'An internal server error occurred.', code: 'internal_error', headers: {} };
}

/**
 * `fields=a,b`: keeps only the named fields of the object (or of each item of a list). As in
 * Yii2, `fields` limits the base fields and the relations named by `expand` are kept as well.
 */
function selectFields(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (reply.statusCode >= 300) return payload;
  const query = request.query as { fields?: unknown; expand?: unknown } | undefined;
  const fields = query?.fields;
  if (typeof fields !== 'string' || fields.trim() === '') return payload;
  const expand = typeof query?.expand === 'string' ? query.expand.split(',') : [];
  const wanted = new Set([...fields.split(','), ...expand].map((field) => field.trim()));
  if (request.format === 'json') reply.serializer(JSON.stringify);
  return Array.isArray(payload) ? payload.map((item) => pick(item, wanted)) : pick(payload, wanted);
}

const etagHook: onSendHookHandler<unknown> = (request, reply, payload, done) => {
  done(null, withEtag(request, reply, payload));
};

/** A route's hooks of one kind with `hook` first, where the app-wide hook it replaces ran. */
function withHook<Hook>(declared: Hook | Hook[] | undefined, hook: Hook): Hook[] {
  return [hook, ...(declared === undefined ? [] : [declared].flat())] as Hook[];
}

/** ETag on successful GETs, and 304 when the client already holds that version. */
function withEtag(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (request.method !== 'GET' || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
  // A response that may not be stored (fresh teasers, signed links) can never be revalidated.
  if (String(reply.getHeader('Cache-Control') ?? '').includes('no-store')) return payload;
  const etag = `"${hash('sha1', payload, 'base64url')}"`;
  reply.header('ETag', etag);
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && (ifNoneMatch === '*' || ifNoneMatch.split(',').some((tag) => tag.trim() === etag))) {
    reply.code(304);
    reply.removeHeader('Content-Type');
    return '';
  }
  return payload;
}

function pick(value: unknown, wanted: Set<string>): unknown {
  if (value === null || typeof value !== 'object') return value;
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (wanted.has(key)) result[key] = (value as Record<string, unknown>)[key];
  return result;
}

export { parseQueryString };
