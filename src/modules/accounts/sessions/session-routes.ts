import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.ts';
import { DomainError } from '../../../errors.ts';
import { actorOf } from '../../../http/request-write.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses, IdParams, NoContent } from '../../../http/schemas.ts';
import { isSameOrigin, sessionCookie } from '../../../http/session-cookie.ts';
import { created, emailLink } from '../../../http/urls.ts';
import { issueToken, listAccountTokens, revokeTokenById } from '../account-service.ts';
import { toUser, UserSchema } from '../user-schema.ts';
import {
  Accepted,
  IssuedTokenSchema,
  OwnTokenSchema,
  PasswordChangeBody,
  ResetRequestBody,
  RevokedSessionsSchema,
  SecondFactorBody,
  SecondFactorRequiredSchema,
  SessionSchema,
  SetPasswordBody,
  SignInBody,
  TokenNameBody,
} from './session-schema.ts';
import {
  changePassword,
  completeSecondFactor,
  listSessions,
  requestPasswordReset,
  revokeOtherSessions,
  revokeOwnSession,
  SET_PASSWORD_PATH,
  type SignInClient,
  sessionPolicyOf,
  setPasswordWithToken,
  signIn,
  signOut,
} from './session-service.ts';
import { RESET_LIMITS } from './sign-in-throttle.ts';

/** The browser making a request, as a new session records it. */
export function signInClientOf(request: FastifyRequest): SignInClient {
  const userAgent = request.headers['user-agent'];
  return { address: request.ip, userAgent: typeof userAgent === 'string' ? userAgent : '', requestId: String(request.id) };
}

/** Refuses a sign-in that a page elsewhere started: it must not sign a visitor into an account of its choosing (login CSRF). */
export function refuseForeignSignIn(request: FastifyRequest, publicUrl: string | undefined): void {
  if (request.headers.origin !== undefined && !isSameOrigin(request, publicUrl)) {
    throw new DomainError('cross_site_request', 'Sign in from this server’s own pages.');
  }
}

/** What every group of session routes uses. */
interface SessionRouteContext {
  context: AppContext;
  sessions: Parameters<typeof signIn>[0];
  policy: ReturnType<typeof sessionPolicyOf>;
  tags: string[];
}

/** Sign-in, sign-out, sessions, passwords and an account's own API tokens. */
export function registerSessionRoutes(app: App, context: AppContext): void {
  const policy = sessionPolicyOf(context.config);
  const sessions = { db: context.db, clock: context.clock, throttle: context.signInThrottle, keys: context.accountKeys, policy };
  const routes: SessionRouteContext = { context, sessions, policy, tags: ['Session'] };
  registerSignInRoutes(app, routes);
  registerSessionListRoutes(app, routes);
  registerPasswordRoutes(app, routes);
  registerOwnTokenRoutes(app, routes);
}

/** Signing in (password, then a second factor when the account has one) and out. */
function registerSignInRoutes(app: App, { context, sessions, tags }: SessionRouteContext): void {
  const { db, clock, config } = context;
  app.post(
    '/api/session',
    {
      config: { access: 'public', accountEntry: true },
      schema: {
        tags,
        operationId: 'signIn',
        summary: 'Sign in: open a browser session.',
        description:
          'Checks a username or e-mail and a password and sets the `nativa_session` cookie (HttpOnly, Secure, SameSite=Lax), which then authenticates every `/api` request instead of `Auth-Token`; it expires after 14 days without use and, however busy, after `SESSION_MAX_AGE_DAYS` (30 by default). An account with two-factor sign-in gets 202 and a ticket instead: the session opens at `POST /api/session/second-factor`. Requests that change something with a session must come from this server’s own pages (`Origin` or `Sec-Fetch-Site`). Failed attempts are limited per account and per address (429 with `Retry-After`); an unknown login and a wrong password get the same 401.',
        security: [],
        body: SignInBody,
        response: { 200: UserSchema, 202: SecondFactorRequiredSchema, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      refuseForeignSignIn(request, config.publicUrl);
      const result = await signIn(sessions, { ...request.body, ...signInClientOf(request) });
      reply.header('Cache-Control', 'no-store');
      if (result.step === 'second-factor') {
        reply.code(202);
        return { secondFactor: 'totp' as const, ticket: result.ticket, expires: result.expiresAt.toISOString() };
      }
      reply.header('Set-Cookie', sessionCookie(result.cookie.secret, result.cookie.maxAgeSeconds));
      return toUser(result.account);
    },
  );

  app.post(
    '/api/session/second-factor',
    {
      config: { access: 'public', accountEntry: true },
      schema: {
        tags,
        operationId: 'signInSecondFactor',
        summary: 'Sign in, second step: the code of the authenticator app or a recovery code.',
        description:
          'Opens the session (as `POST /api/session` does) for the ticket that the password step answered. A recovery code is spent. A wrong code is a 401 and counts against the same per-account and per-address limit as a wrong password (429 with `Retry-After`); an expired or used ticket is a 401 too.',
        security: [],
        body: SecondFactorBody,
        response: { 200: UserSchema, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      refuseForeignSignIn(request, config.publicUrl);
      const signedIn = await completeSecondFactor(sessions, { ...request.body, ...signInClientOf(request) });
      reply.header('Set-Cookie', sessionCookie(signedIn.cookie.secret, signedIn.cookie.maxAgeSeconds));
      reply.header('Cache-Control', 'no-store');
      return toUser(signedIn.account);
    },
  );

  app.delete(
    '/api/session',
    {
      config: { access: 'authenticated', duringEnrolment: true },
      schema: {
        tags,
        operationId: 'signOut',
        summary: 'Sign out: end this browser session.',
        description: 'Revokes the session of the cookie and deletes the cookie. With an Auth-Token it only deletes the cookie.',
        response: { 204: NoContent, ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const sessionId = request.principal?.sessionId;
      if (sessionId !== undefined) await signOut(db, actorOf(request), sessionId, new Date(clock.now()));
      reply.header('Set-Cookie', sessionCookie('', 0));
      reply.code(204);
    },
  );
}

/** Where one is signed in, and ending those sessions. */
function registerSessionListRoutes(app: App, { context, policy, tags }: SessionRouteContext): void {
  const { db, clock } = context;
  app.get(
    '/api/me/sessions',
    {
      config: { duringEnrolment: true },
      schema: {
        tags,
        operationId: 'listOwnSessions',
        summary: 'Where you are signed in: your live browser sessions, the most recently used first.',
        response: { 200: Type.Array(SessionSchema), ...errorResponses(401, 429) },
      },
    },
    async (request) => {
      const now = new Date(clock.now());
      const rows = await listSessions(db, policy, accountOf(request), request.principal?.sessionId, now);
      return rows.map((row) => ({
        id: row.id,
        current: row.current,
        device: row.device,
        userAgent: row.user_agent,
        address: row.remote_address,
        method: row.method,
        created: row.created_at.toISOString(),
        lastSeen: row.last_seen_at.toISOString(),
        expires: row.expires_at.toISOString(),
      }));
    },
  );

  app.delete(
    '/api/me/sessions/:id',
    {
      config: { duringEnrolment: true },
      schema: {
        tags,
        operationId: 'endOwnSession',
        summary: 'Sign out one of your sessions (another browser, or this one).',
        description: 'Its next request answers 401. Another account’s session, or one already ended, is a 404.',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await revokeOwnSession(db, actorOf(request), accountOf(request), request.params.id, new Date(clock.now()));
      reply.code(204);
    },
  );

  app.delete(
    '/api/me/sessions',
    {
      config: { duringEnrolment: true },
      schema: {
        tags,
        operationId: 'endOtherSessions',
        summary: 'Sign out everywhere else: every session of your account but this one.',
        description: 'Made with an API token, it ends every session of the account. API tokens are not affected.',
        response: { 200: RevokedSessionsSchema, ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => {
      const now = new Date(clock.now());
      const ended = await revokeOtherSessions(db, actorOf(request), accountOf(request), request.principal?.sessionId, now);
      return { ended };
    },
  );
}

/** Changing one's password, and the e-mailed link that sets a forgotten or first one. */
function registerPasswordRoutes(app: App, { context, tags }: SessionRouteContext): void {
  const { db, clock, mailer } = context;
  app.put(
    '/api/me/password',
    {
      schema: {
        tags,
        operationId: 'changePassword',
        summary: 'Change your password.',
        description: 'Needs the current password. Every other session of the account ends; this one goes on.',
        body: PasswordChangeBody,
        response: { 204: NoContent, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      const { body } = request;
      await changePassword(db, {
        accountId: accountOf(request),
        sessionId: request.principal?.sessionId,
        current: body.current,
        next: body.new,
        now: new Date(clock.now()),
      });
      reply.code(204);
    },
  );

  app.post(
    '/api/password-reset',
    {
      config: { access: 'public', accountEntry: true },
      schema: {
        tags,
        operationId: 'requestPasswordReset',
        summary: 'Ask for a password-reset link by e-mail.',
        description: `When \`login\` (username or e-mail) names an account, its mailbox receives a link that sets a new password once, within one hour. At most ${RESET_LIMITS.perAccount} links per account and ${RESET_LIMITS.perAddress} requests per address are honoured an hour; further requests send nothing. The answer is 202 in every case, so it does not tell which accounts exist or whether a limit was reached.`,
        security: [],
        body: ResetRequestBody,
        response: { 202: Accepted, ...errorResponses(422) },
      },
    },
    async (request, reply) => {
      const outcome = await requestPasswordReset(
        { db, mailer, now: new Date(clock.now()), throttle: context.resetThrottle },
        { login: request.body.login, address: request.ip },
        (token) => emailLink(request, `${SET_PASSWORD_PATH}${token}`),
      );
      if (outcome === 'throttled') request.log.info('password reset over its limit: no e-mail');
      reply.code(202);
    },
  );

  app.post(
    '/api/password-reset/confirm',
    {
      config: { access: 'public', accountEntry: true },
      schema: {
        tags,
        operationId: 'confirmPasswordReset',
        summary: 'Set a password with an e-mailed link (reset or invitation).',
        description:
          'Spends the link’s token (it works once), sets the password, confirms the mailbox and ends every session of the account. An unknown, used or expired token is a 422 on `token`.',
        security: [],
        body: SetPasswordBody,
        response: { 204: NoContent, ...errorResponses(422) },
      },
    },
    async (request, reply) => {
      const { token, password } = request.body;
      await setPasswordWithToken(db, token, password, new Date(clock.now()));
      reply.code(204);
    },
  );
}

/** An account's own API tokens: list, issue (shown once), revoke. */
function registerOwnTokenRoutes(app: App, { context, tags }: SessionRouteContext): void {
  const { db, clock } = context;
  app.get(
    '/api/me/tokens',
    {
      schema: {
        tags,
        operationId: 'listOwnTokens',
        summary: 'List your API tokens (never their values).',
        response: { 200: Type.Array(OwnTokenSchema), ...errorResponses(401, 429) },
      },
    },
    async (request) => {
      const rows = await listAccountTokens(db, accountOf(request));
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        created: row.created_at.toISOString(),
        revoked: row.revoked_at?.toISOString() ?? null,
      }));
    },
  );

  app.post(
    '/api/me/tokens',
    {
      schema: {
        tags,
        operationId: 'createOwnToken',
        summary: 'Create an API token for your account.',
        description: 'The token is in this response only; keep it. Send it in the `Auth-Token` header.',
        body: TokenNameBody,
        response: { 201: IssuedTokenSchema, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      const { name } = request.body;
      const issued = await issueToken(db, accountOf(request), name);
      return created(request, reply, `/api/me/tokens/${issued.id}`, { id: issued.id, name, token: issued.token });
    },
  );

  app.delete(
    '/api/me/tokens/:id',
    {
      schema: {
        tags,
        operationId: 'revokeOwnToken',
        summary: 'Revoke one of your API tokens; it answers 401 from then on.',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      await revokeTokenById(db, id, new Date(clock.now()), accountOf(request));
      await context.tokens.revoked(id);
      reply.code(204);
    },
  );
}
