import type { AppContext } from '../../../app-context.ts';
import { actorOf } from '../../../http/request-write.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses, IdParams, NoContent } from '../../../http/schemas.ts';
import { getAccount } from '../account-service.ts';
import { endSessionsOf } from '../sessions/session-service.ts';
import { CodeBody, EnrolmentSchema, RecoveryCodesSchema, TwoFactorStatusSchema } from './two-factor-schema.ts';
import {
  confirmEnrolment,
  disableTwoFactor,
  renewRecoveryCodes,
  resetTwoFactor,
  startEnrolment,
  type TwoFactorDependencies,
  twoFactorStatus,
} from './two-factor-service.ts';

/** The issuer an authenticator app shows beside the code: the public host when there is one. */
export function issuerOf(publicUrl: string | undefined): string {
  return publicUrl === undefined ? 'Nativa' : `Nativa (${new URL(publicUrl).host})`;
}

/**
 * Two-factor sign-in with TOTP (docs/web-account.md): status, enrolment and its confirmation,
 * turning it off, new recovery codes, and an operator's reset of an account's.
 */
export function registerTwoFactorRoutes(app: App, context: AppContext): void {
  const { db, clock, config } = context;
  const dependencies: TwoFactorDependencies = {
    db,
    clock,
    keys: context.accountKeys,
    throttle: context.signInThrottle,
    issuer: issuerOf(config.publicUrl),
  };
  const tags = ['Two-factor sign-in'];
  const requiredFor = (kind: string) => (config.require2faFor as readonly string[]).includes(kind);
  // Secrets and recovery codes are answered once; no cache or proxy may keep them.
  const noStore = { 'Cache-Control': 'no-store' };

  app.get(
    '/api/me/two-factor',
    {
      config: { duringEnrolment: true },
      schema: {
        tags,
        operationId: 'getTwoFactor',
        summary: 'Whether your sign-in asks for a code, and how many recovery codes are left.',
        response: { 200: TwoFactorStatusSchema, ...errorResponses(401, 429) },
      },
    },
    async (request) => {
      const principal = request.principal;
      const status = await twoFactorStatus(db, accountOf(request), requiredFor(principal?.kind ?? ''));
      return { ...status, enabledAt: status.enabledAt?.toISOString() ?? null };
    },
  );

  app.post(
    '/api/me/two-factor/enrolment',
    {
      config: { duringEnrolment: true },
      schema: {
        tags,
        operationId: 'startTwoFactorEnrolment',
        summary: 'Start turning on two-factor sign-in: a new secret to scan.',
        description:
          'Answers a new TOTP secret and its `otpauth://` URI (show it as a QR code). Nothing changes at sign-in until a code from it is confirmed; starting again replaces an unconfirmed secret. A 409 when it is already on. The secret is kept sealed (AES-256-GCM, key derived from the signing secret) and never answered again.',
        response: { 200: EnrolmentSchema, ...errorResponses(401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const account = await getAccount(db, accountOf(request));
      reply.headers(noStore);
      return startEnrolment(dependencies, account);
    },
  );

  app.post(
    '/api/me/two-factor/enrolment/confirm',
    {
      config: { duringEnrolment: true },
      schema: {
        tags,
        operationId: 'confirmTwoFactorEnrolment',
        summary: 'Turn on two-factor sign-in with a first code; answers the recovery codes, once.',
        description:
          'The code must come from the secret of the enrolment (the current 30-second step, or the one before or after). From now on, a sign-in with the password asks for a code. A wrong code is a 422 on `code`; no enrolment started is a 409.',
        body: CodeBody,
        response: { 200: RecoveryCodesSchema, ...errorResponses(401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const codes = await confirmEnrolment(dependencies, actorOf(request), accountOf(request), request.body.code);
      reply.headers(noStore);
      return { recoveryCodes: codes };
    },
  );

  app.post(
    '/api/me/two-factor/recovery-codes',
    {
      config: { duringEnrolment: true },
      schema: {
        tags,
        operationId: 'renewRecoveryCodes',
        summary: 'Ten new recovery codes in place of the old ones.',
        description:
          'Needs a current code of the authenticator app (or an unused recovery code). Wrong codes count against the sign-in limit (429 with `Retry-After`).',
        body: CodeBody,
        response: { 200: RecoveryCodesSchema, ...errorResponses(401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const codes = await renewRecoveryCodes(dependencies, actorOf(request), accountOf(request), request.body.code);
      reply.headers(noStore);
      return { recoveryCodes: codes };
    },
  );

  app.delete(
    '/api/me/two-factor',
    {
      schema: {
        tags,
        operationId: 'disableTwoFactor',
        summary: 'Turn off two-factor sign-in.',
        description:
          'Needs a current code (or an unused recovery code) in the body. The secret and the recovery codes are deleted. A 409 where it is required for the account’s kind or is not on.',
        body: CodeBody,
        response: { 204: NoContent, ...errorResponses(401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const principal = request.principal;
      const account = { id: accountOf(request), required: requiredFor(principal?.kind ?? '') };
      await disableTwoFactor(dependencies, actorOf(request), account, request.body.code);
      reply.code(204);
    },
  );

  app.delete(
    '/api/admin/users/:id/two-factor',
    {
      schema: {
        tags: ['Operator'],
        operationId: 'adminResetTwoFactor',
        summary: 'Reset an account’s two-factor sign-in (a lost phone and lost recovery codes).',
        description:
          'Deletes its secret and recovery codes, so its password alone signs in again (and, where it is required, the account must enrol again), and ends every browser session of the account (whoever holds the lost or stolen authenticator must sign in again; API tokens stay). Recorded in the audit trail as `two_factor.reset`, with the number of sessions ended. An unknown account is a 404; one without two-factor sign-in a 409.',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const now = new Date(clock.now());
      await resetTwoFactor(db, actorOf(request), request.params.id, now, (trx) => endSessionsOf(trx, request.params.id, now));
      reply.code(204);
    },
  );
}
