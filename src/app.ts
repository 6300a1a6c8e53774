import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AppContext } from './app-context.ts';
import { registerHttpConventions } from './http/conventions.ts';
import { FastPath, serverWithFastPath } from './http/fast-path.ts';
import { answerClientError, answerFrameworkError } from './http/framework-errors.ts';
import { registerIdempotency } from './http/idempotency.ts';
import { parseQueryString } from './http/input.ts';
import { schemaCompilers } from './http/lazy-schemas.ts';
import { DocumentedRoutes } from './http/openapi.ts';
import { createRateLimiter, memoryRateLimitStore, redisRateLimitStore } from './http/rate-limit.ts';
import { requestIdGenerator } from './http/request-id.ts';
import type { RegisterRoutes } from './http/routes.ts';
import { ErrorBodySchema, ErrorCodeSchema } from './http/schemas.ts';
import { loggerOptions, requestChildLogger, requestLogController } from './logger.ts';
import { authenticateSession, confirmAccountEmail, sessionPolicyOf } from './modules/accounts/index.ts';
import {
  accountAdminRoutes,
  registerMeRoutes,
  registerPasskeyRoutes,
  registerSessionRoutes,
  registerTokenAdminRoutes,
  registerTwoFactorRoutes,
} from './modules/accounts/routes.ts';
import {
  campaignModeration,
  campaignOfOwnOffer,
  listCampaignsForModeration,
  listOffersForModeration,
  offerModeration,
  ownCampaignIds,
} from './modules/advertiser/index.ts';
import {
  registerBulkRoutes,
  registerCampaignRoutes,
  registerCategoryRoutes,
  registerClientRoutes,
  registerCoefficientRoutes,
  registerOfferRoutes,
  registerPostbackKeyRoutes,
  registerRuleRoutes,
} from './modules/advertiser/routes.ts';
import { registerAuditRoutes } from './modules/audit/routes.ts';
import { registerBackupRoutes } from './modules/backup/routes.ts';
import { registerCategoryAdminRoutes } from './modules/categories/routes.ts';
import { registerExportRoutes } from './modules/export/routes.ts';
import { idempotencyStore } from './modules/idempotency/index.ts';
import { registerImageRoutes } from './modules/images/routes.ts';
import { registerInvalidTrafficAdminRoutes, registerInvalidTrafficRoutes } from './modules/invalid-traffic/routes.ts';
import { mailRoutes, registerOutboxAdminRoutes } from './modules/mail/routes.ts';
import {
  moderationQueueRoutes,
  moderationRoutes,
  registerModerationReasonRoutes,
  siteModerationRoutes,
} from './modules/moderation/routes.ts';
import { registerRequestMetrics } from './modules/monitoring/index.ts';
import { registerMonitoringRoutes } from './modules/monitoring/routes.ts';
import { registerNotificationRoutes } from './modules/notifications/routes.ts';
import { registerAccountDataRoutes, registerSellersJsonRoutes, registerSitePrivacyRoutes } from './modules/privacy/routes.ts';
import { moderatedSites, ownBlockSites, ownSiteIds } from './modules/publisher/index.ts';
import {
  registerBlockRoutes,
  registerPayoutAdminRoutes,
  registerPayoutRoutes,
  registerSiteAdminRoutes,
  registerSiteRoutes,
} from './modules/publisher/routes.ts';
import { registerRefundRoutes } from './modules/refunds/routes.ts';
import { registerExplainRoutes, registerOpenRtbRoutes, registerServingRoutes } from './modules/serving/routes.ts';
import {
  advertiserStatisticsRoutes,
  publisherStatisticsRoutes,
  registerNetworkOverviewRoutes,
} from './modules/statistics/routes.ts';
import { registerWebAppRoutes } from './modules/web-app/routes.ts';
import { emitBalanceDrops } from './modules/webhooks/index.ts';
import { registerWebhookRoutes } from './modules/webhooks/routes.ts';
import { sharedOrLocal } from './redis-guard.ts';
import type { TlsMaterial } from './tls.ts';

export interface BuildOptions {
  tls: TlsMaterial;
  /** Pino options or false; tests pass `false` or a level. */
  logger?: boolean | { level: string; stream?: { write(line: string): void } };
  /** A logger made beforehand (the server's start-up already wrote to it); replaces `logger`. */
  loggerInstance?: FastifyBaseLogger;
  /** Compile every route's schemas at start, as Fastify does by itself (a test proves they all compile). */
  eagerSchemas?: boolean;
}

/**
 * Every module's routes, in one list: adding a module is adding a line here. Each domain registers
 * its operator (`/api/admin`) routes beside its own.
 */
const MODULES: RegisterRoutes[] = [
  registerMeRoutes,
  registerSessionRoutes,
  registerTwoFactorRoutes,
  registerPasskeyRoutes,
  accountAdminRoutes(emitBalanceDrops),
  registerTokenAdminRoutes,
  registerSiteRoutes,
  registerBlockRoutes,
  publisherStatisticsRoutes({ ownSiteIds, ownBlockSites }),
  registerPayoutRoutes,
  registerSiteAdminRoutes,
  siteModerationRoutes(moderatedSites),
  registerPayoutAdminRoutes,
  registerClientRoutes,
  mailRoutes(confirmAccountEmail),
  registerOutboxAdminRoutes,
  registerCategoryRoutes,
  registerCategoryAdminRoutes,
  registerCoefficientRoutes,
  moderationRoutes({ campaign: campaignModeration, offer: offerModeration }),
  moderationQueueRoutes({ campaigns: listCampaignsForModeration, offers: listOffersForModeration }),
  registerCampaignRoutes,
  registerOfferRoutes,
  registerBulkRoutes,
  advertiserStatisticsRoutes({ ownCampaignIds, campaignOfOwnOffer }),
  registerRuleRoutes,
  registerPostbackKeyRoutes,
  registerExportRoutes,
  registerImageRoutes,
  registerServingRoutes,
  registerOpenRtbRoutes,
  registerRefundRoutes,
  registerInvalidTrafficRoutes,
  registerInvalidTrafficAdminRoutes,
  registerNetworkOverviewRoutes,
  registerExplainRoutes,
  registerMonitoringRoutes,
  registerBackupRoutes,
  registerWebhookRoutes,
  registerNotificationRoutes,
  registerModerationReasonRoutes,
  registerAuditRoutes,
  registerSitePrivacyRoutes,
  registerSellersJsonRoutes,
  registerAccountDataRoutes,
  registerWebAppRoutes,
];

/** Assembles the HTTPS application from dependencies made once by the caller. */
export async function buildApp(context: AppContext, options: BuildOptions): Promise<FastifyInstance> {
  const { config } = context;
  // The serving fast path sees each request first (docs/adr/0056); it exists once Fastify does.
  let fastPath: FastPath | undefined;
  const app = Fastify({
    https: { cert: options.tls.cert, key: options.tls.key },
    serverFactory: serverWithFastPath((raw, response) => fastPath?.dispatch(raw, response) ?? false),
    ...(options.loggerInstance === undefined
      ? { logger: options.logger ?? loggerOptions(config) }
      : { loggerInstance: options.loggerInstance }),
    requestIdHeader: false,
    genReqId: requestIdGenerator(),
    logController: requestLogController(config.logLevel),
    childLoggerFactory: requestChildLogger,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    routerOptions: { querystringParser: parseQueryString },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: true, useDefaults: true } },
    schemaController: { compilersFactory: schemaCompilers(options.eagerSchemas === true) },
  }) as unknown as FastifyInstance;
  const verboseLogs = config.logLevel === 'debug' || config.logLevel === 'trace';
  fastPath = new FastPath({
    enabled: () => config.servingFastPath && !verboseLogs,
    trustProxy: config.trustProxy,
    log: app.log,
    recorder: (route, method) => context.metrics.requestRecorder(route, method),
  });
  app.decorate('fastPath', fastPath);
  app.decorate('publicUrl', config.publicUrl);
  app.decorate('configuredAddress', { host: config.host, port: config.port });
  app.addSchema(ErrorCodeSchema);
  app.addSchema(ErrorBodySchema);
  registerRequestMetrics(app, context.metrics);

  const store = sharedOrLocal(
    context.redisGuard,
    'rate_limit',
    (redis) => redisRateLimitStore(redis, config.redisKeyPrefix),
    memoryRateLimitStore,
  );
  // What the conventions add to every route, written into the document once (src/http/openapi.ts).
  const documented = new DocumentedRoutes();
  registerHttpConventions(
    app,
    {
      authenticate: (token) => context.tokens.authenticate(token),
      authenticateSession: (cookieValue, address) =>
        authenticateSession(context.db, context.clock, sessionPolicyOf(config), cookieValue, address),
      publicUrl: config.publicUrl,
      rateLimit: createRateLimiter(store, config.rateLimitPerSecond, context.clock),
      sessionRateLimit: createRateLimiter(store, config.sessionRateLimitPerSecond, context.clock),
      addressRateLimit: createRateLimiter(store, config.publicRateLimitPerSecond, context.clock),
      publicBodyLimitBytes: config.publicBodyLimitBytes,
      bodyMaxMembers: config.bodyMaxMembers,
      trustProxy: config.trustProxy,
    },
    documented,
  );
  registerIdempotency(app, {
    db: context.db,
    clock: context.clock,
    store: idempotencyStore,
    crashAfterCommit: config.crashAfterCommit,
  });

  await app.register(swagger, {
    // Shared schemas are components named by their $id (Error, ErrorCode), not def-0, def-1.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Nativa API',
        version: '1',
        license: { name: 'MIT', identifier: 'MIT' },
        description:
          'The Nativa native advertising API: advertisers, publishers and operators. Responses are JSON or XML (Accept header, optional `version=1`). Any call that needs the database answers 503 with `Retry-After` (in the usual error body) while the database is unavailable.',
      },
      // Without PUBLIC_URL the document is served by the API it describes: a relative server is that API.
      servers: [{ url: config.publicUrl ?? '/' }],
      components: {
        securitySchemes: {
          AuthToken: { type: 'apiKey', in: 'header', name: 'Auth-Token' },
          Session: { type: 'apiKey', in: 'cookie', name: 'nativa_session', description: 'Set by POST /api/session.' },
        },
      },
      security: [{ AuthToken: [] }, { Session: [] }],
    },
    transformObject: (document) =>
      documented.complete('openapiObject' in document ? document.openapiObject : document.swaggerObject),
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', uiConfig: { url: '/api/openapi.json' } });

  app.get('/api/openapi.json', { schema: { hide: true }, config: { access: 'public' } }, async () => app.swagger());
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  for (const registerModule of MODULES) registerModule(typed, context);
  return app;
}
