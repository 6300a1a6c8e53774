/**
 * The routes of images, which app.ts registers (MODULES); what other modules use is in index.ts.
 * Routes take the AppContext, which names the modules' services, so index.ts does not re-export
 * them: a module importing another's index would import the context back (an import cycle).
 */
export { registerImageRoutes } from './image-routes.ts';
