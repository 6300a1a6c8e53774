/**
 * Who a request is, and whether it may go on: the API token or the browser session, the rate
 * limit of each (scripts' and people's budgets), access by entry point, two-factor enrolment, and
 * the public account routes' budget per address. `registerHttpConventions` adds these steps to
 * each route that needs them when the route is registered.
 */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify';
import type { AccountKind } from '../db/schema.ts';
import type { Principal, SessionAuthentication } from '../shared/principal.ts';
import { DomainError, unauthenticated } from './errors.ts';
import type { RateLimitDecision, RateLimiter } from './rate-limit.ts';
import { isSameOrigin, readSessionCookie, sessionCookie } from './session-cookie.ts';

/** Who may call a route. Routes under /api/advertiser, /api/webmaster and /api/admin get theirs from the path. */
export type Access = 'public' | 'authenticated' | AccountKind;

/** What the authorization steps need from the server. */
export interface AuthorizationDependencies {
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
}

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

/** Safe methods change nothing, so a session may send them from another site's page. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The onRequest steps, bound to the server's authentication and limiters. */
export function authorizationSteps(dependencies: AuthorizationDependencies): {
  authorizeFor(access: Exclude<Access, 'public'>, duringEnrolment: boolean): onRequestHookHandler;
  limitByAddress: onRequestHookHandler;
} {
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
    if (session.renewed !== undefined)
      reply.header('Set-Cookie', sessionCookie(session.renewed.secret, session.renewed.maxAgeSeconds));
    // The browser sends the cookie with requests other sites make: only this server's pages may change things with it.
    if (!SAFE_METHODS.has(request.method) && !isSameOrigin(request, dependencies.publicUrl)) {
      throw new DomainError('cross_site_request', 'A request made with a session must come from this server’s own pages.');
    }
    return session.principal;
  }

  return { authorizeFor, limitByAddress };
}
