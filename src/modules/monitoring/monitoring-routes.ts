import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { forbidden, unauthorized } from '../../http/errors.ts';

const tags = ['Service'];
const PUBLIC = { access: 'public' as const };
/** A dependency that does not answer within this long counts as down. */
const READINESS_TIMEOUT_MS = 2000;

/** Liveness, readiness (database and Redis) and Prometheus metrics. */
export function registerMonitoringRoutes(app: FastifyInstance, context: AppContext): void {
  app.get(
    '/api/health',
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'Liveness: the process answers. Touches no database (use /api/health/ready for that).',
        security: [],
      },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/api/health/ready',
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'Readiness: 200 when the database and Redis (when configured) answer, 503 while either is down.',
        security: [],
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
      return { status: ready ? 'ok' : 'unavailable', database, redis };
    },
  );

  app.get(
    '/api/metrics',
    {
      config: PUBLIC,
      schema: {
        tags,
        summary:
          'Prometheus metrics (text exposition format): requests and latency per route, serving, clicks, conversions, e-mail, database pool, event loop. Operator token (`Auth-Token`) or METRICS_TOKEN (`Authorization: Bearer`).',
        security: [],
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
