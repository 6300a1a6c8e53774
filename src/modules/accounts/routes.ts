/**
 * The routes of accounts, which app.ts registers (MODULES); what other modules use is in index.ts.
 * Routes take the AppContext, which names the modules' services, so index.ts does not re-export
 * them: a module importing another's index would import the context back (an import cycle).
 */
export { accountAdminRoutes } from './account-admin-routes.ts';
export { registerMeRoutes } from './me-routes.ts';
export { registerPasskeyRoutes } from './passkeys/passkey-routes.ts';
export { registerSessionRoutes } from './sessions/session-routes.ts';
export { registerTokenAdminRoutes } from './token-admin-routes.ts';
export { registerTwoFactorRoutes } from './two-factor/two-factor-routes.ts';
