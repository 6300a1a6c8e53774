/**
 * The routes of publisher, which app.ts registers (MODULES); what other modules use is in index.ts.
 * Routes take the AppContext, which names the modules' services, so index.ts does not re-export
 * them: a module importing another's index would import the context back (an import cycle).
 */
export { registerBlockRoutes } from './blocks/block-routes.ts';
export { registerPayoutAdminRoutes } from './payouts/payout-admin-routes.ts';
export { registerPayoutRoutes } from './payouts/payout-routes.ts';
export { registerSiteAdminRoutes } from './sites/site-admin-routes.ts';
export { registerSiteRoutes } from './sites/site-routes.ts';
