/**
 * The routes of invalid-traffic, which app.ts registers (MODULES); what other modules use is in index.ts.
 * Routes take the AppContext, which names the modules' services, so index.ts does not re-export
 * them: a module importing another's index would import the context back (an import cycle).
 */
export { registerInvalidTrafficAdminRoutes } from './invalid-traffic-admin-routes.ts';
export { registerInvalidTrafficRoutes } from './invalid-traffic-routes.ts';
