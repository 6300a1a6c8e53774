import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.ts';
import type { Config } from '../../../config.ts';
import { actorOf } from '../../../http/request-write.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses, IdParams, NoContent } from '../../../http/schemas.ts';
import { sessionCookie } from '../../../http/session-cookie.ts';
import { created } from '../../../http/urls.ts';
import { getAccount } from '../account-service.ts';
import { refuseForeignSignIn, signInClientOf } from '../sessions/session-routes.ts';
import { sessionPolicyOf } from '../sessions/session-service.ts';
import { toUser, UserSchema } from '../user-schema.ts';
import {
  CreationOptionsSchema,
  PasskeySchema,
  PasskeySignInBody,
  RegisterPasskeyBody,
  RequestOptionsSchema,
} from './passkey-schema.ts';
import {
  listPasskeys,
  type RelyingParty,
  registerPasskey,
  registrationOptions,
  removePasskey,
  signInOptions,
  signInWithPasskey,
} from './passkey-service.ts';

/**
 * The relying party of passkeys: PUBLIC_URL's origin and host; without it, the address the server
 * is configured to listen on (a wildcard host read as `localhost`) and the port it listens on —
 * never a request header. Browsers refuse an IP address as RP ID, so passkeys need a name.
 */
export function relyingPartyOf(config: Pick<Config, 'publicUrl' | 'host'>, request: FastifyRequest): RelyingParty {
  if (config.publicUrl !== undefined) {
    const url = new URL(config.publicUrl);
    return { id: url.hostname, origin: url.origin, name: `Nativa (${url.host})` };
  }
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? 'localhost' : config.host;
  const port = request.raw.socket.localPort ?? 443;
  const origin = new URL(`https://${host.includes(':') ? `[${host}]` : host}:${port}`).origin;
  return { id: new URL(origin).hostname.replace(/^\[|\]$/g, ''), origin, name: 'Nativa' };
}

const toPasskey = (row: { id: number; name: string; created_at: Date; last_used_at: Date | null; backed_up: boolean }) => ({
  id: row.id,
  name: row.name,
  created: row.created_at.toISOString(),
  lastUsed: row.last_used_at?.toISOString() ?? null,
  backedUp: row.backed_up,
});

/** Passkeys (WebAuthn): register, list and remove one's own, and sign in with one instead of a password. */
export function registerPasskeyRoutes(app: App, context: AppContext): void {
  const { db, clock, config } = context;
  const sessions = {
    db,
    clock,
    throttle: context.signInThrottle,
    keys: context.accountKeys,
    policy: sessionPolicyOf(config),
  };
  const tags = ['Passkeys'];

  app.post(
    '/api/me/passkeys/options',
    {
      schema: {
        tags,
        operationId: 'passkeyRegistrationOptions',
        summary: 'Options to create a passkey for your account (the first step of registering one).',
        description:
          'Hand them to `navigator.credentials.create()` (or `startRegistration` of `@simplewebauthn/browser`) and send its answer to `POST /api/me/passkeys` within 5 minutes. The passkey is discoverable and needs user verification (a PIN, a fingerprint); the account’s passkeys are excluded. Nothing is stored yet.',
        response: { 200: CreationOptionsSchema, ...errorResponses(401, 403, 429) },
      },
    },
    async (request, reply) => {
      const account = await getAccount(db, accountOf(request));
      reply.header('Cache-Control', 'no-store');
      return registrationOptions(sessions, relyingPartyOf(config, request), account);
    },
  );

  app.post(
    '/api/me/passkeys',
    {
      schema: {
        tags,
        operationId: 'registerPasskey',
        summary: 'Register a passkey: the authenticator’s answer to the options.',
        description:
          'Checks the answer against the options’ challenge (once, within 5 minutes), this server’s origin and RP ID (`PUBLIC_URL`), and user verification, then keeps the public key. An answer that does not check out is a 422 on `credential`; a passkey already registered a 409. Recorded in the audit trail as `passkey.add`.',
        body: RegisterPasskeyBody,
        response: { 201: PasskeySchema, ...errorResponses(401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const row = await registerPasskey(
        sessions,
        relyingPartyOf(config, request),
        actorOf(request),
        accountOf(request),
        request.body,
      );
      return created(request, reply, `/api/me/passkeys/${row.id}`, toPasskey(row));
    },
  );

  app.get(
    '/api/me/passkeys',
    {
      schema: {
        tags,
        operationId: 'listPasskeys',
        summary: 'Your passkeys.',
        response: { 200: Type.Array(PasskeySchema), ...errorResponses(401, 429) },
      },
    },
    async (request) => (await listPasskeys(db, accountOf(request))).map(toPasskey),
  );

  app.delete(
    '/api/me/passkeys/:id',
    {
      schema: {
        tags,
        operationId: 'removePasskey',
        summary: 'Remove one of your passkeys; it signs in no more.',
        description: 'Another account’s passkey is a 404. Recorded in the audit trail as `passkey.remove`.',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await removePasskey(db, actorOf(request), accountOf(request), request.params.id, new Date(clock.now()));
      reply.code(204);
    },
  );

  app.post(
    '/api/session/passkey/options',
    {
      config: { access: 'public', accountEntry: true },
      schema: {
        tags,
        operationId: 'passkeySignInOptions',
        summary: 'Options to sign in with a passkey (no login or password typed).',
        description:
          'Hand them to `navigator.credentials.get()` (or `startAuthentication` of `@simplewebauthn/browser`) and send its answer to `POST /api/session/passkey` within 5 minutes. The challenge is signed, not stored: asking writes nothing.',
        security: [],
        response: { 200: RequestOptionsSchema, ...errorResponses(403) },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      return signInOptions(sessions, relyingPartyOf(config, request));
    },
  );

  app.post(
    '/api/session/passkey',
    {
      config: { access: 'public', accountEntry: true },
      schema: {
        tags,
        operationId: 'signInWithPasskey',
        summary: 'Sign in with a passkey: open a browser session.',
        description:
          'Checks the authenticator’s answer (a passkey registered here, signed over the challenge, this origin and RP ID, with user verification; the challenge works once) and sets the session cookie as `POST /api/session` does. A passkey needs no second factor. An answer that is not accepted is a 401 and counts against the sign-in limit (429 with `Retry-After`).',
        security: [],
        body: PasskeySignInBody,
        response: { 200: UserSchema, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      refuseForeignSignIn(request, config.publicUrl);
      const signedIn = await signInWithPasskey(
        sessions,
        relyingPartyOf(config, request),
        request.body.credential,
        signInClientOf(request),
      );
      reply.header('Set-Cookie', sessionCookie(signedIn.cookie.secret, signedIn.cookie.maxAgeSeconds));
      reply.header('Cache-Control', 'no-store');
      return toUser(signedIn.account);
    },
  );
}
