import type { AppContext } from '../../app-context.ts';
import { type App, accountOf } from '../../http/routes.ts';
import { errorResponses } from '../../http/schemas.ts';
import { AccountCache } from './account-cache.ts';
import { toUser, UserSchema } from './user-schema.ts';

export function registerMeRoutes(app: App, context: AppContext): void {
  const accounts = new AccountCache(context.database, context.clock);
  app.get(
    '/api/me',
    {
      // No ETag: hashing the answer was a tenth of its CPU, and a client that polls its own
      // account wants the account, not a 304 (docs/adr/0037).
      config: { duringEnrolment: true, etag: false },
      schema: {
        tags: ['User'],
        operationId: 'getMe',
        summary: 'The account that owns the token.',
        response: { 200: UserSchema, ...errorResponses(401, 429) },
      },
    },
    // A cached account is answered without a promise: dashboards poll this route.
    (request) => {
      const row = accounts.get(accountOf(request));
      return row instanceof Promise ? row.then(toUser) : toUser(row);
    },
  );
}
