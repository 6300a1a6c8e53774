import { hash } from 'node:crypto';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestHookHandler,
  onSendHookHandler,
} from 'fastify';
import FindMyWay from 'find-my-way';
import { DatabaseUnavailableError, isStatementTimeout } from '../db/availability.ts';
import type { AccountKind } from '../db/schema.ts';
import {
  DomainError,
  type ErrorCode,
  errorBody,
  type FieldError,
  generalCodeOf,
  localisedErrorBody,
  STATUS_OF,
  unauthenticated,
} from './errors.ts';
import { mergeFieldErrors, ruleErrorsOf } from './field-rules.ts';
import { sendHtmlPage } from './html-page.ts';
import { fieldErrorsFromValidation, mergeInputsOnRoute, parseQueryString, registerBodyParsers } from './input.ts';
import { type MessageValues, negotiateMessageLanguage } from './message-languages.ts';
import { negotiateFormat, type ResponseFormat } from './negotiation.ts';
import { type DocumentedRoutes, producedTypes } from './openapi.ts';
import type { RateLimitDecision, RateLimiter } from './rate-limit.ts';
import { setSecurityHeaders, setServingSecurityHeaders } from './security-headers.ts';
import { isSameOrigin, readSessionCookie } from './session-cookie.ts';
import { toXml } from './xml.ts';

/** Who may call a route. Routes under /api/advertiser, /api/webmaster and /api/admin get theirs from the path. */
export type Access = 'public' | 'authenticated' | AccountKind;

/** The account behind a request's token or browser session. */
export interface Principal {
  accountId: number;
  kind: AccountKind;
  /** The API token used; 0 when the request came with a session instead. */
  tokenId: number;
  /** The browser session used, when there is one. */
  sessionId?: number;
  /**
   * The session's account must have two-factor sign-in (REQUIRE_2FA_FOR) and has not: only the
   * routes marked `duringEnrolment` answer it, until it enrols.
   */
  mustEnrol?: boolean;
}

/** A session the cookie named, and the cookie to send back when its expiry moved. */
export interface SessionAuthentication {
  principal: Principal;
  setCookie?: string[];
}

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

export interface ConventionDependencies {
  /** A token's principal: at once when it is cached, through a promise when it has to be looked up. */
  authenticate(token: string): Principal | undefined | Promise<Principal | undefined>;
  /** Resolves the session cookie's value (and notes the request's address); requests without an Auth-Token header use it. */
  authenticateSession(cookieValue: string, address: string): Promise<SessionAuthentication | undefined>;
  publicUrl: string | undefined;
  /** Per API token: the budget meant for scripts. */
  rateLimit: RateLimiter;
  /** Per browser session: sized for a person's pages, which load several lists at once. */
  sessionRateLimit: RateLimiter;
  /** The limit per client address of the routes marked `accountEntry`. */
  addressRateLimit: RateLimiter;
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

const ENTRY_POINT_NAMES: Record<AccountKind, string> = {
  advertiser: 'advertisers',
  publisher: 'publishers',
  operator: 'operators',
};

/** What a route asks of its caller, fixed when it is registered. */
interface RouteAccess {
  access: Access;
  duringEnrolment: boolean;
}

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
  app.addHook('onRoute', (routeOptions) => {
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
      routeOptions.onRequest = withHook(routeOptions.onRequest, authorizeFor(access, config.duringEnrolment === true));
    }
    if (config.accountEntry === true) {
      routeOptions.bodyLimit ??= dependencies.publicBodyLimitBytes;
      routeOptions.onRequest = withHook(routeOptions.onRequest, limitByAddress);
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
  });

  // One hook for what every request needs, matched or not, in callback style: no promise per
  // request. Every response names its request's id, the one its log lines carry, and carries its
  // security headers, errors too. The route's own authentication step (added above) runs after it.
  app.addHook('onRequest', (request, reply, done) => {
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
    if (request.format === 'xml') {
      reply.serializer(toXml);
      reply.type(XML_TYPE);
    }
    if (dependencies.trustProxy && request.headers['x-forwarded-proto'] !== 'https') {
      done(new DomainError('https_required', 'Requests must be made over HTTPS.'));
      return;
    }
    done();
  });

  /**
   * The onRequest step of the public account routes: their own budget per client address (the
   * address behind a trusted proxy), so no one address can keep the password hashing busy.
   */
  function limitByAddress(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const decision = dependencies.addressRateLimit(`ip:${request.ip}`);
    if (decision instanceof Promise) decision.then((settled) => done(addressRefusal(reply, settled)), done);
    else done(addressRefusal(reply, decision));
  }

  function addressRefusal(reply: FastifyReply, decision: RateLimitDecision): DomainError | undefined {
    reply.header('X-Rate-Limit-Limit', decision.limit);
    reply.header('X-Rate-Limit-Remaining', decision.remaining);
    reply.header('X-Rate-Limit-Reset', decision.resetSeconds);
    if (decision.allowed) return undefined;
    return new DomainError('rate_limited', 'Rate limit exceeded.', { retryAfterSeconds: decision.retryAfterSeconds });
  }

  /** The onRequest step of a route that needs a principal: its access is fixed when it is registered. */
  function authorizeFor(access: Exclude<Access, 'public'>, duringEnrolment: boolean): onRequestHookHandler {
    return (request, reply, done) => authorize(request, reply, { access, duringEnrolment }, done);
  }

  /**
   * Authentication, the rate limit and access by entry point, in continuation style: with a cached
   * token and the in-memory limiter every step answers at once and the request goes on without a
   * promise; a token looked up in the database, a session or Redis resume it when they answer.
   */
  function authorize(request: FastifyRequest, reply: FastifyReply, access: RouteAccess, done: HookHandlerDoneFunction): void {
    const token = request.headers['auth-token'];
    const principal =
      typeof token === 'string' && token !== '' ? dependencies.authenticate(token) : authorizeSession(request, reply);
    if (principal instanceof Promise) principal.then((found) => admit(request, reply, access, found, done), done);
    else admit(request, reply, access, principal, done);
  }

  function admit(
    request: FastifyRequest,
    reply: FastifyReply,
    access: RouteAccess,
    principal: Principal | undefined,
    done: HookHandlerDoneFunction,
  ): void {
    if (principal === undefined) {
      done(unauthenticated());
      return;
    }
    request.principal = principal;
    // A token has the scripts' budget; a browser session has one of its own, sized for pages.
    const decision =
      principal.sessionId === undefined
        ? dependencies.rateLimit(`t${principal.tokenId}`)
        : dependencies.sessionRateLimit(`s${principal.sessionId}`);
    if (decision instanceof Promise) decision.then((settled) => done(refusal(reply, access, principal, settled)), done);
    else done(refusal(reply, access, principal, decision));
  }

  /** Sets the rate-limit headers, and returns why the request may not go on, if it may not. */
  function refusal(
    reply: FastifyReply,
    { access, duringEnrolment }: RouteAccess,
    principal: Principal,
    decision: RateLimitDecision,
  ): DomainError | undefined {
    reply.header('X-Rate-Limit-Limit', decision.limit);
    reply.header('X-Rate-Limit-Remaining', decision.remaining);
    reply.header('X-Rate-Limit-Reset', decision.resetSeconds);
    if (!decision.allowed) {
      return new DomainError('rate_limited', 'Rate limit exceeded.', { retryAfterSeconds: decision.retryAfterSeconds });
    }
    if (access !== 'authenticated' && principal.kind !== access) {
      return new DomainError('wrong_account_kind', `This entry point is for ${ENTRY_POINT_NAMES[access as AccountKind]} only.`);
    }
    if (principal.mustEnrol === true && !duringEnrolment) {
      return new DomainError('two_factor_required', 'Turn on two-factor sign-in first: it is required for your account.');
    }
    return undefined;
  }

  async function authorizeSession(request: FastifyRequest, reply: FastifyReply): Promise<Principal> {
    const cookie = readSessionCookie(request.headers.cookie);
    if (cookie === undefined) throw unauthenticated('The Auth-Token header is missing.');
    const session = await dependencies.authenticateSession(cookie, request.ip);
    if (session === undefined) throw unauthenticated('Your session has ended. Please sign in again.');
    if (session.setCookie !== undefined) reply.header('Set-Cookie', session.setCookie);
    // The browser sends the cookie with requests other sites make: only this server's pages may change things with it.
    if (!SAFE_METHODS.has(request.method) && !isSameOrigin(request, dependencies.publicUrl)) {
      throw new DomainError('cross_site_request', 'A request made with a session must come from this server’s own pages.');
    }
    return session.principal;
  }

  app.addHook('preSerialization', (request, reply, payload, done) => {
    done(null, selectFields(request, reply, payload));
  });

  app.setNotFoundHandler(async (request, reply) => {
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
  });

  app.setErrorHandler(async (error: FastifyError | DomainError, request, reply) => {
    let failure = classify(error);
    if (failure.status === 422 && !(error instanceof DomainError) && error.validation) {
      failure = withRuleErrors(failure, await ruleErrorsOf(request));
    }
    if (failure.status === 503) {
      // An outage, logged once by the dependency monitor: the request says only that it met it.
      request.log.warn({ cause: error.message }, 'request answered 503: a dependency is unavailable');
    } else if (failure.status >= 500) {
      request.log.error({ err: error }, 'request failed');
    }
    // Fastify drops the Content-Type before calling the error handler: set the negotiated one again.
    reply.type(request.format === 'xml' ? XML_TYPE : JSON_TYPE);
    for (const [name, value] of Object.entries(failure.headers)) reply.header(name, value);
    reply.code(failure.status);
    // The serving path's answers are for publishers' pages and stay English, with no Vary to add.
    if (request.routeOptions.config.serving === true) {
      return errorBody(failure.status, failure.message, failure.code, failure.fieldErrors);
    }
    const language = negotiateMessageLanguage(request.headers['accept-language']);
    const { body, contentLanguage } = localisedErrorBody(language, failure.status, failure, failure.code, failure.fieldErrors);
    varyOn(reply, 'Accept-Language');
    if (contentLanguage !== undefined) reply.header('Content-Language', contentLanguage);
    return body;
  });
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
