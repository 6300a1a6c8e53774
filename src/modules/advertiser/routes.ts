/**
 * The routes of advertiser, which app.ts registers (MODULES); what other modules use is in index.ts.
 * Routes take the AppContext, which names the modules' services, so index.ts does not re-export
 * them: a module importing another's index would import the context back (an import cycle).
 */
export { registerBulkRoutes } from './bulk/bulk-routes.ts';
export { registerCampaignRoutes } from './campaigns/campaign-routes.ts';
export { registerCategoryRoutes } from './categories/category-routes.ts';
export { registerClientRoutes } from './clients/client-routes.ts';
export { registerCoefficientRoutes } from './coefficients/coefficient-routes.ts';
export { registerOfferRoutes } from './offers/offer-routes.ts';
export { registerPostbackKeyRoutes } from './postback-keys/postback-key-routes.ts';
export { registerRuleRoutes } from './rules/rule-routes.ts';
