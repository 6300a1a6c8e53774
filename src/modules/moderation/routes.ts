/**
 * The routes of moderation, which app.ts registers (MODULES); what other modules use is in index.ts.
 * Routes take the AppContext, which names the modules' services, so index.ts does not re-export
 * them: a module importing another's index would import the context back (an import cycle).
 */
export { moderationRoutes, siteModerationRoutes } from './moderation-routes.ts';
export { moderationQueueRoutes } from './queue-routes.ts';
export { registerModerationReasonRoutes } from './reason-routes.ts';
