import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import type { App } from '../../http/routes.ts';
import { errorResponses, mediaAnswer } from '../../http/schemas.ts';
import { authorizeScrape, readiness } from './monitoring-service.ts';

const tags = ['Service'];
const PUBLIC = { access: 'public' as const };

const DependencyState = (description: string) =>
  Type.Union([Type.Literal('ok'), Type.Literal('down'), Type.Literal('none')], { description });

const Readiness = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')], { description: 'ok when every dependency answers.' }),
  database: DependencyState('The database: ok or down.'),
  redis: DependencyState('Redis: ok, down, or none when REDIS_URL is unset.'),
  nats: DependencyState(
    'The NATS JetStream event log: ok, down, or none when NATS_URL is unset. Reported only: while it is down clicks and views go to the database, and status stays ok.',
  ),
});

/** Liveness, readiness (database and Redis) and Prometheus metrics. */
export function registerMonitoringRoutes(app: App, context: AppContext): void {
  app.get(
    '/api/health',
    {
      config: PUBLIC,
      schema: {
        tags,
        operationId: 'getHealth',
        summary: 'Liveness: the process answers. Touches no database (use /api/health/ready for that).',
        description:
          'Behind a proxy (TRUST_PROXY), a request that did not arrive over HTTPS is refused with 403. While start-up waits for the database the process answers `starting` here, readiness 503 and every other request 503 `database_unavailable`.',
        security: [],
        response: {
          200: Type.Object({
            status: Type.Union([Type.Literal('ok'), Type.Literal('starting')], {
              description: 'ok once started; starting while start-up waits for the database.',
            }),
          }),
          ...errorResponses(403),
        },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/api/health/ready',
    {
      config: PUBLIC,
      schema: {
        tags,
        operationId: 'getReadiness',
        summary: 'Readiness: 200 when the database and Redis (when configured) answer, 503 while either is down.',
        security: [],
        response: { 200: Readiness, 503: Readiness, ...errorResponses(403) },
      },
    },
    async (_request, reply) => {
      const serving = context.serving;
      const state = await readiness(context.db, context.redis, serving && (() => serving.eventLogPing()));
      reply.code(state.status === 'ok' ? 200 : 503);
      reply.header('Cache-Control', 'no-store');
      return state;
    },
  );

  app.get(
    '/api/metrics',
    {
      config: PUBLIC,
      schema: {
        tags,
        operationId: 'getMetrics',
        summary:
          'Prometheus metrics (text exposition format): requests and latency per route, serving, clicks, conversions, e-mail, database pool, event loop. Operator token (`Auth-Token`) or METRICS_TOKEN (`Authorization: Bearer`).',
        security: [],
        response: {
          200: mediaAnswer('Prometheus text exposition format (version 0.0.4).', 'text/plain', 'text'),
          ...errorResponses(401, 403),
        },
      },
    },
    async (request, reply) => {
      await authorizeScrape(scrapeToken(request), {
        metricsToken: context.config.metricsToken,
        authenticate: (token) => context.tokens.authenticate(token),
      });
      const text = await context.metrics.registry.metrics();
      reply.header('Cache-Control', 'no-store');
      // Plain text whatever the Accept header says: Prometheus speaks no JSON or XML here.
      reply.serializer((payload: unknown) => payload as string);
      reply.type(context.metrics.registry.contentType);
      return text;
    },
  );
}

/** The token of a scrape: `Authorization: Bearer` (Prometheus' way) or `Auth-Token` (the API's). */
function scrapeToken(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  const bearer = typeof authorization === 'string' && authorization.startsWith('Bearer ') ? authorization.slice(7) : undefined;
  const header = request.headers['auth-token'];
  return bearer ?? (typeof header === 'string' && header !== '' ? header : undefined);
}
