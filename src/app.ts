import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from './app-context.ts';
import { registerHttpConventions } from './http/conventions.ts';
import { parseQueryString } from './http/input.ts';
import { createRateLimiter, memoryRateLimitStore, redisRateLimitStore } from './http/rate-limit.ts';
import { ErrorBodySchema } from './http/schemas.ts';
import { registerSecurityHeaders } from './http/security-headers.ts';
import { registerMeRoutes } from './modules/accounts/me-routes.ts';
import { registerCampaignRoutes } from './modules/advertiser/campaigns/campaign-routes.ts';
import { registerCategoryRoutes } from './modules/advertiser/categories/category-routes.ts';
import { registerClientRoutes } from './modules/advertiser/clients/client-routes.ts';
import { registerCoefficientRoutes } from './modules/advertiser/coefficients/coefficient-routes.ts';
import { registerOfferRoutes } from './modules/advertiser/offers/offer-routes.ts';
import { registerAdvertiserStatisticsRoutes } from './modules/advertiser/statistics/statistics-routes.ts';
import { registerImageRoutes } from './modules/images/image-routes.ts';
import { registerMailRoutes } from './modules/mail/mail-routes.ts';
import { registerModerationRoutes } from './modules/operator/moderation-routes.ts';
import { registerOperatorAccountRoutes } from './modules/operator/operator-routes.ts';
import { registerPublisherRoutes } from './modules/publisher/publisher-routes.ts';
import { registerServingRoutes } from './modules/serving/serving-routes.ts';
import { registerSessionRoutes } from './modules/sessions/session-routes.ts';
import { authenticateSession } from './modules/sessions/session-service.ts';
import { registerWebAppRoutes } from './modules/web-app/web-app-routes.ts';
import type { TlsMaterial } from './tls.ts';

export interface BuildOptions {
  tls: TlsMaterial;
  /** Pino options or false; tests pass `false` or a level. */
  logger?: boolean | { level: string };
}

/** Every module's routes, in one list: adding a module is adding a line here. */
const MODULES: ((app: FastifyInstance, context: AppContext) => void)[] = [
  registerMeRoutes,
  registerSessionRoutes,
  registerOperatorAccountRoutes,
  registerPublisherRoutes,
  registerClientRoutes,
  registerMailRoutes,
  registerCategoryRoutes,
  registerCoefficientRoutes,
  registerModerationRoutes,
  registerCampaignRoutes,
  registerOfferRoutes,
  registerAdvertiserStatisticsRoutes,
  registerImageRoutes,
  registerServingRoutes,
  registerWebAppRoutes,
];

/** Assembles the HTTPS application from dependencies made once by the caller. */
export async function buildApp(context: AppContext, options: BuildOptions): Promise<FastifyInstance> {
  const { config } = context;
  const app = Fastify({
    https: { cert: options.tls.cert, key: options.tls.key },
    logger: options.logger ?? { level: config.logLevel },
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    routerOptions: { querystringParser: parseQueryString },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: true, useDefaults: true } },
  }) as unknown as FastifyInstance;
  app.decorate('publicUrl', config.publicUrl);
  app.addSchema(ErrorBodySchema);

  registerSecurityHeaders(app);
  const store = context.redis ? redisRateLimitStore(context.redis, config.redisKeyPrefix) : memoryRateLimitStore();
  registerHttpConventions(app, {
    authenticate: (token) => context.tokens.authenticate(token),
    authenticateSession: (cookieValue) => authenticateSession(context.db, context.clock, cookieValue),
    publicUrl: config.publicUrl,
    rateLimit: createRateLimiter(store, config.rateLimitPerSecond, context.clock),
    trustProxy: config.trustProxy,
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Nativa API',
        version: '1',
        description:
          'The Nativa native advertising API: advertisers, publishers and operators. Responses are JSON or XML (Accept header, optional `version=1`).',
      },
      servers: config.publicUrl ? [{ url: config.publicUrl }] : [],
      components: {
        securitySchemes: {
          AuthToken: { type: 'apiKey', in: 'header', name: 'Auth-Token' },
          Session: { type: 'apiKey', in: 'cookie', name: 'nativa_session', description: 'Set by POST /api/session.' },
        },
      },
      security: [{ AuthToken: [] }, { Session: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', uiConfig: { url: '/api/openapi.json' } });

  app.get('/api/openapi.json', { schema: { hide: true }, config: { access: 'public' } }, async () => app.swagger());
  app.get(
    '/api/health',
    { config: { access: 'public' }, schema: { tags: ['Service'], summary: 'Liveness and database reachability.', security: [] } },
    async () => {
      await sql`SELECT 1`.execute(context.db);
      return { status: 'ok' };
    },
  );

  for (const registerModule of MODULES) registerModule(app, context);
  return app;
}
