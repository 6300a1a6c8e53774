import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';

import { DomainError } from '../../../errors.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses, IdParams, NoContent } from '../../../http/schemas.ts';
import { isSameOrigin, sessionCookie } from '../../../http/session-cookie.ts';
import { created, emailLink } from '../../../http/urls.ts';
import { sharedOrLocal } from '../../../redis-guard.ts';
import { issueToken, listAccountTokens, revokeTokenById } from '../account-service.ts';
import { toUser, UserSchema } from '../user-schema.ts';
import {
  Accepted,
  IssuedTokenSchema,
  OwnTokenSchema,
  PasswordChangeBody,
  ResetRequestBody,
  SetPasswordBody,
  SignInBody,
  TokenNameBody,
} from './session-schema.ts';
import {
  changePassword,
  requestPasswordReset,
  SET_PASSWORD_PATH,
  setPasswordWithToken,
  signIn,
  signOut,
} from './session-service.ts';
import { memoryFailureCounter, RESET_LIMITS, ResetThrottle, redisFailureCounter, SignInThrottle } from './sign-in-throttle.ts';

/** Sign-in, sign-out, passwords and an account's own API tokens. */
export function registerSessionRoutes(app: App, context: AppContext): void {
  const { db, clock, mailer, config } = context;
  const counter = sharedOrLocal(
    context.redisGuard,
    'sign_in',
    (redis) => redisFailureCounter(redis, config.redisKeyPrefix),
    memoryFailureCounter,
  );
  const throttle = new SignInThrottle(counter, clock);
  const resetThrottle = new ResetThrottle(counter, clock);
  const tags = ['Session'];

  app.post(
    '/api/session',
    {
      config: { access: 'public' },
      schema: {
        tags,
        operationId: 'signIn',
        summary: 'Sign in: open a browser session.',
        description:
          'Checks a username or e-mail and a password and sets the `nativa_session` cookie (HttpOnly, Secure, SameSite=Lax), which then authenticates every `/api` request instead of `Auth-Token`; it expires after 14 days without use. Requests that change something with a session must come from this server’s own pages (`Origin` or `Sec-Fetch-Site`). Failed attempts are limited per account and per address (429 with `Retry-After`); an unknown login and a wrong password get the same 401.',
        security: [],
        body: SignInBody,
        response: { 200: UserSchema, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      // A page elsewhere must not sign a visitor into an account of its choosing (login CSRF).
      if (request.headers.origin !== undefined && !isSameOrigin(request, config.publicUrl)) {
        throw new DomainError('cross_site_request', 'Sign in from this server’s own pages.');
      }
      const signedIn = await signIn({ db, clock, throttle }, { ...request.body, address: request.ip });
      reply.header('Set-Cookie', signedIn.setCookie);
      reply.header('Cache-Control', 'no-store');
      return toUser(signedIn.account);
    },
  );

  app.delete(
    '/api/session',
    {
      config: { access: 'authenticated' },
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
      if (sessionId !== undefined) await signOut(db, sessionId, new Date(clock.now()));
      reply.header('Set-Cookie', sessionCookie('', 0));
      reply.code(204);
    },
  );

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
      config: { access: 'public' },
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
        { db, mailer, now: new Date(clock.now()), throttle: resetThrottle },
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
      config: { access: 'public' },
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
