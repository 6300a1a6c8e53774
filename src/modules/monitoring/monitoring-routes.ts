import { timingSafeEqual } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { forbidden, unauthorized } from '../../http/errors.ts';
import type { App } from '../../http/routes.ts';
import { errorResponses } from '../../http/schemas.ts';

const tags = ['Service'];
const PUBLIC = { access: 'public' as const };
/** A dependency that does not answer within this long counts as down. */
const READINESS_TIMEOUT_MS = 2000;

const DependencyState = (description: string) =>
  Type.Union([Type.Literal('ok'), Type.Literal('down'), Type.Literal('none')], { description });

const Readiness = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')], { description: 'ok when every dependency answers.' }),
  database: DependencyState('The database: ok or down.'),
  redis: DependencyState('Redis: ok, down, or none when REDIS_URL is unset.'),
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
        description: 'Behind a proxy (TRUST_PROXY), a request that did not arrive over HTTPS is refused with 403.',
        security: [],
        response: {
          200: Type.Object({ status: Type.Literal('ok', { description: 'Always ok when answered.' }) }),
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
      const client = context.redis;
      const [database, redis] = await Promise.all([
        check(() => sql`SELECT 1`.execute(context.db)),
        client ? check(() => client.ping()) : Promise.resolve('none' as const),
      ]);
      const ready = database === 'ok' && redis !== 'down';
      reply.code(ready ? 200 : 503);
      reply.header('Cache-Control', 'no-store');
      return { status: ready ? ('ok' as const) : ('unavailable' as const), database, redis };
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
        response: { 200: Type.String({ description: 'Prometheus text exposition format.' }), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      await authorizeScrape(request, context);
      const text = await context.metrics.registry.metrics();
      reply.header('Cache-Control', 'no-store');
      // Plain text whatever the Accept header says: Prometheus speaks no JSON or XML here.
      reply.serializer((payload: unknown) => payload as string);
      reply.type(context.metrics.registry.contentType);
      return text;
    },
  );
}

async function check(probe: () => Promise<unknown>): Promise<'ok' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'down'>((resolve) => {
    timer = setTimeout(() => resolve('down'), READINESS_TIMEOUT_MS);
  });
  try {
    return await Promise.race([probe().then(() => 'ok' as const), timeout]);
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

/** The scraper's METRICS_TOKEN (as a bearer token or Auth-Token), or an operator's API token. */
async function authorizeScrape(request: FastifyRequest, context: AppContext): Promise<void> {
  const authorization = request.headers.authorization;
  const bearer = typeof authorization === 'string' && authorization.startsWith('Bearer ') ? authorization.slice(7) : undefined;
  const header = request.headers['auth-token'];
  const token = bearer ?? (typeof header === 'string' && header !== '' ? header : undefined);
  if (token === undefined)
    throw unauthorized('An operator token (Auth-Token) or METRICS_TOKEN (Authorization: Bearer) is required.');
  const expected = context.config.metricsToken;
  if (expected !== undefined && sameSecret(token, expected)) return;
  const principal = await context.tokens.authenticate(token);
  if (principal === undefined) throw unauthorized();
  if (principal.kind !== 'operator') throw forbidden('Metrics are for operators only.');
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
